import { z } from 'zod';
import { findRun } from '../../db/evalRuns.js';
import { requireProject } from '../access.js';
import { keyRefusal } from '../auth.js';
import type { RouteDeps } from '../app.js';
import type { EventIdCodec } from '../eventIds.js';
import { notFound, validationError } from '../errors.js';
import { defineRoute } from '../route.js';
import { streamRunEvents } from '../runEvents.js';
import { runParams } from '../schemas/evals.js';

/**
 * Last-Event-ID: absent or empty is the start; the `id:` of an iteration event of this run resumes after it (its
 * stream position, EventIdCodec); anything else is a 400.
 */
function resumePosition(eventIds: EventIdCodec, runId: string, header: string | undefined): number {
  const value = header?.trim() ?? '';
  if (value === '') return 0;
  const position = eventIds.decode(runId, value);
  if (position === undefined) {
    throw validationError("Last-Event-ID must be the id of an event this run's stream sent, unchanged", {
      header: 'Last-Event-ID',
    });
  }
  return position;
}

const eventsDescription = (limits: RouteDeps['eventStreams']['limits']) =>
  "Server-sent events (`text/event-stream`) of a run, so a page follows it with one request instead of polling. Each event's `data` is JSON: " +
  '`event: run` is the run as GET /eval-runs/{runId} returns it (EvalRun), sent first and again whenever its progress or status changes; ' +
  '`event: iteration` is one iteration whose status became final (completed, failed or cancelled), as in the iterations list, each exactly once, in the order they became final, ' +
  'with an opaque `id:` to resume after; `event: end` is the final run, after which the server closes the stream. ' +
  'A reconnect sending `Last-Event-ID` (header) gets only the iterations after that id; a malformed one is 400 VALIDATION_ERROR. ' +
  `A comment line every ${limits.heartbeatMs / 1000} s keeps the stream alive; the server closes a stream after ${limits.maxLifetimeMs / 60_000} min (reconnect with Last-Event-ID) ` +
  `and drops a client that reads nothing for ${limits.drainTimeoutMs / 1000} s. A stream whose key is revoked (or whose user leaves the organization) ends within ${limits.keyCheckMs / 1000} s with \`event: error\` (the 401's envelope). A key holds at most ${limits.perKey} open streams per API process: ` +
  'one more is 429 RATE_LIMITED with details.reason TOO_MANY_STREAMS. The request counts once against the rate limit.';

export function evalRunEventRoutes({ sql, reconciler, eventStreams, eventIds, log }: RouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-runs/:runId/events',
      tag: 'Evals',
      summary: "A run's live events: progress and finished iterations (server-sent events)",
      description: eventsDescription(eventStreams.limits),
      params: runParams,
      response: z.string().meta({
        description:
          'text/event-stream: `run`, `iteration`, `end` and `error` events (see the description), and comments',
      }),
      responseType: 'text/event-stream',
      raw: true,
      errors: ['NOT_FOUND', 'VALIDATION_ERROR', 'RATE_LIMITED'],
      async handler({ principal, params, req, res }) {
        const project = await requireProject(sql, principal, params.projectId);
        const found = await findRun(sql, project.id, params.runId);
        if (!found) throw notFound('eval run', { runId: params.runId });
        const after = resumePosition(eventIds, found.id, req.get('last-event-id'));
        const run = await reconciler.onRead(found);
        // Express answers HEAD with the GET route: the headers a stream would have, and no stream behind them.
        if (req.method === 'HEAD') {
          res.status(200).type('text/event-stream').end();
          return '';
        }
        const stream = eventStreams.start(res, { keyId: principal.keyId, subject: run.id }, () =>
          keyRefusal(sql, principal),
        );
        await streamRunEvents(
          { sql, reconciler, log, eventIds, pollMs: eventStreams.limits.pollMs },
          stream,
          run,
          after,
        );
        // raw: the reply went out through res; nothing is left to send
        return '';
      },
    }),
  ];
}
