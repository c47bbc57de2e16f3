import { z } from 'zod';
import type { FollowRun } from '../../domain/useCases/runs/followRun.js';
import type { FollowRuns } from '../../domain/useCases/runs/followRuns.js';
import type { Logger } from '../../runtime/logger.js';
import type { EventIdCodec } from '../eventIds.js';
import type { EventStreamLimits, EventStreams, KeyCheck } from '../eventStream.js';
import { defineRoute } from '../route.js';
import { streamRunEvents, streamRunsEvents } from '../runEvents.js';
import { MAX_FOLLOWED_RUNS, runParams, runsEventsQuery } from '../schemas/evals.js';
import { projectParams } from '../schemas/common.js';

/** What every stream shares: the heartbeat, the lifetime, the key check, the per-key cap, one request of the budget. */
const streamBounds = (limits: EventStreamLimits) =>
  `A comment line every ${limits.heartbeatMs / 1000} s keeps the stream alive; the server closes a stream after ${limits.maxLifetimeMs / 60_000} min (reconnect to go on) ` +
  `and drops a client that reads nothing for ${limits.drainTimeoutMs / 1000} s. A stream whose key is revoked (or whose user leaves the organization) ends within ${limits.keyCheckMs / 1000} s with \`event: error\` (the 401's envelope). A key holds at most ${limits.perKey} open streams per API process (of either kind): ` +
  'one more is 429 RATE_LIMITED with details.reason TOO_MANY_STREAMS. The request counts once against the rate limit.';

const eventsDescription = (limits: EventStreamLimits) =>
  "Server-sent events (`text/event-stream`) of a run, so a page follows it with one request instead of polling. Each event's `data` is JSON: " +
  '`event: run` is the run as GET /eval-runs/{runId} returns it (EvalRun), sent first and again whenever its progress or status changes; ' +
  '`event: iteration` is one iteration whose status became final (completed, failed or cancelled), as in the iterations list, each exactly once, in the order they became final, ' +
  'with an opaque `id:` to resume after; `event: end` is the final run, after which the server closes the stream. ' +
  'A reconnect sending `Last-Event-ID` (header) gets only the iterations after that id; a malformed one is 400 VALIDATION_ERROR. ' +
  `To follow several runs without their iterations, GET /eval-runs/events?runIds=. ${streamBounds(limits)}`;

const runsEventsDescription = (limits: EventStreamLimits) =>
  `Server-sent events (\`text/event-stream\`) of up to ${MAX_FOLLOWED_RUNS} runs of the project at once, without their iterations: what a page listing runs needs to show them live with one request. Each event's \`data\` is JSON: ` +
  '`event: run` is one run as GET /eval-runs/{runId} returns it (EvalRun): each run first, in the order of `runIds` (a run that has ended already too, so a client that reconnects learns of an end it missed), ' +
  'again whenever its progress or status changes, and once more with its final status when it ends; ' +
  '`event: end` (data `{}`) once none of the runs is running, after which the server closes the stream. ' +
  "A run that is not the project's is 404 NOT_FOUND naming it (details.runIds); a malformed `runIds` is 400 VALIDATION_ERROR. " +
  `To follow one run with its iterations, GET /eval-runs/{runId}/events. ${streamBounds(limits)}`;

export interface EvalRunEventRouteDeps {
  followRun: FollowRun;
  followRuns: FollowRuns;
  /** this process's open event streams and their bounds */
  eventStreams: EventStreams;
  /** seals the ids of iteration events (Last-Event-ID) */
  eventIds: EventIdCodec;
  /** whether the stream's key is still good (checked now and then while the stream is open) */
  keyRefusal: (principal: { keyId: string }) => ReturnType<KeyCheck>;
  log: Logger;
}

export function evalRunEventRoutes({
  followRun,
  followRuns,
  eventStreams,
  eventIds,
  keyRefusal,
  log,
}: EvalRunEventRouteDeps) {
  return [
    // Before GET /eval-runs/{runId} (routes/index.ts mounts this module first): `events` is never a run's id.
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-runs/events',
      tag: 'Evals',
      summary: 'Several runs live: their progress and status until they end (server-sent events)',
      description: runsEventsDescription(eventStreams.limits),
      params: projectParams,
      query: runsEventsQuery,
      response: z.string().meta({
        description: 'text/event-stream: `run`, `end` and `error` events (see the description), and comments',
      }),
      responseType: 'text/event-stream',
      raw: true,
      errors: ['NOT_FOUND', 'VALIDATION_ERROR', 'RATE_LIMITED'],
      async handler({ principal, params, query, req, res }) {
        const feed = await followRuns({ principal, projectId: params.projectId, runIds: query.runIds });
        if (req.method === 'HEAD') {
          res.status(200).type('text/event-stream').end();
          return '';
        }
        const stream = eventStreams.start(res, { keyId: principal.keyId, subject: query.runIds.join(',') }, () =>
          keyRefusal(principal),
        );
        await streamRunsEvents({ log, pollMs: eventStreams.limits.pollMs }, stream, feed);
        return '';
      },
    }),
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
        const feed = await followRun({ principal, ...params, lastEventId: req.get('last-event-id') });
        // Express answers HEAD with the GET route: the headers a stream would have, and no stream behind them.
        if (req.method === 'HEAD') {
          res.status(200).type('text/event-stream').end();
          return '';
        }
        const stream = eventStreams.start(res, { keyId: principal.keyId, subject: feed.run.id }, () =>
          keyRefusal(principal),
        );
        await streamRunEvents({ log, eventIds, pollMs: eventStreams.limits.pollMs }, stream, feed);
        // raw: the reply went out through res; nothing is left to send
        return '';
      },
    }),
  ];
}
