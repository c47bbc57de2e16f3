import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { z } from 'zod';
import type { iterationSchema } from '../../api/schemas/evals';
import { API_BASE, ApiError, apiKey, rateLimitNotice, signOut } from './api';
import { retryAfterSeconds } from './retryAfter';
import type { EvalRun } from './types';

export type EvalIteration = z.infer<typeof iterationSchema>;

export interface RunEventHandlers {
  /** the run, first and whenever its progress or status changed */
  onRun(run: EvalRun): void;
  /** one finished iteration, each once (a reconnect resumes after the last one seen) */
  onIteration(iteration: EvalIteration): void;
  /** the final run; the stream is closed */
  onEnd(run: EvalRun): void;
  /** the stream cannot go on (404, ...); nothing more arrives. A 401 also signs out, as every request does. */
  onFailure(failure: ApiError): void;
  /** the connection dropped and a retry is due in `delayMs` (the view may say so) */
  onReconnecting?(delayMs: number): void;
}

const FIRST_DELAY_MS = 500;
const MOST_DELAY_MS = 15_000;

/**
 * Follows a run over `GET .../eval-runs/{runId}/events`: one long request instead of polling, so a watched run costs
 * one request of the key's budget. A dropped connection is retried sending `Last-Event-ID`, so that no iteration comes
 * twice; the stream ends at `end`. Returns a function that stops following.
 */
export function followRun(projectId: string, runId: string, handlers: RunEventHandlers): () => void {
  let lastEventId: string | undefined;
  const path = `${API_BASE}/projects/${encodeURIComponent(projectId)}/eval-runs/${encodeURIComponent(runId)}/events`;
  return followStream(
    () => ({ path, lastEventId }),
    (message) => {
      if (message.id !== undefined && message.id !== '') lastEventId = message.id;
      const data: unknown = JSON.parse(message.data);
      if (message.event === 'run') handlers.onRun(data as EvalRun);
      else if (message.event === 'iteration') handlers.onIteration(data as EvalIteration);
      else if (message.event === 'end') {
        handlers.onEnd(data as EvalRun);
        return true;
      }
      return false;
    },
    handlers,
  );
}

export interface RunsEventHandlers {
  /** a run's state: each one's first, then whenever its progress or status changed; its final state once */
  onRun(run: EvalRun): void;
  /** the stream cannot go on (404, ...); nothing more arrives. A 401 also signs out, as every request does. */
  onFailure(failure: ApiError): void;
}

/**
 * Follows several runs of a project over one `GET .../eval-runs/events?runIds=` (their progress and status, not
 * their iterations) until none of them runs: what a view listing runs shows live for one request of the key's
 * budget. A dropped connection is retried for the runs still running (the first event of each is its state then,
 * so an end missed meanwhile arrives too). Returns a function that stops following.
 */
export function followRuns(projectId: string, runIds: string[], handlers: RunsEventHandlers): () => void {
  const running = new Set(runIds);
  const base = `${API_BASE}/projects/${encodeURIComponent(projectId)}/eval-runs/events?runIds=`;
  return followStream(
    () => (running.size === 0 ? undefined : { path: base + [...running].map(encodeURIComponent).join(',') }),
    (message) => {
      if (message.event === 'end') return true;
      if (message.event !== 'run') return false;
      const run = JSON.parse(message.data) as EvalRun;
      if (run.status !== 'running' && run.status !== 'queued') running.delete(run.id);
      handlers.onRun(run);
      return false;
    },
    handlers,
  );
}

/**
 * One events stream followed until it ends. EventSource cannot send the Authorization header, so this is fetch + a
 * stream parser. `connection` names each connection's path and Last-Event-ID (undefined: nothing is left to follow);
 * `onMessage` answers true at the stream's last event. A dropped connection is retried with backoff; a 429 waits its
 * Retry-After, saying so as every request does.
 */
function followStream(
  connection: () => { path: string; lastEventId?: string } | undefined,
  onMessage: (message: EventSourceMessage) => boolean,
  handlers: { onFailure(failure: ApiError): void; onReconnecting?(delayMs: number): void },
): () => void {
  const stopper = new AbortController();
  let ended = false;

  const parser = createParser({
    onEvent(message) {
      if (ended) return;
      if (onMessage(message)) {
        ended = true;
        stopper.abort();
      }
    },
  });

  /** One connection; true when something arrived (the backoff starts again). */
  async function connect(): Promise<{ received: boolean; failure?: ApiError; waitMs?: number }> {
    const next = connection();
    if (!next) {
      ended = true;
      return { received: false };
    }
    const headers: Record<string, string> = {
      accept: 'text/event-stream',
      authorization: `Bearer ${apiKey.get() ?? ''}`,
    };
    if (next.lastEventId !== undefined) headers['last-event-id'] = next.lastEventId;
    const reply = await fetch(next.path, { headers, signal: stopper.signal, cache: 'no-store', credentials: 'omit' });
    if (reply.status === 429)
      return { received: false, waitMs: retryAfterSeconds(reply.headers.get('retry-after')) * 1000 };
    if (!reply.ok || !reply.body) {
      const failure = await failureOf(reply);
      if (reply.status === 401) signOut(`The API did not accept the key (${failure.message}). Sign in again.`);
      return { received: false, failure };
    }
    parser.reset();
    const reader = reply.body.pipeThrough(new TextDecoderStream()).getReader();
    let received = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { received };
      received = true;
      parser.feed(value);
    }
  }

  void (async () => {
    let delay = FIRST_DELAY_MS;
    while (!ended && !stopper.signal.aborted) {
      let waitMs: number | undefined;
      try {
        const outcome = await connect();
        if (outcome.failure) {
          handlers.onFailure(outcome.failure);
          return;
        }
        if (outcome.received) delay = FIRST_DELAY_MS;
        waitMs = outcome.waitMs;
      } catch {
        // a network drop (or our own abort, checked below)
      }
      if (ended || stopper.signal.aborted) return;
      if (waitMs !== undefined) {
        // A 429 (the key's budget, or too many streams open): wait as asked, and say so as every request does.
        rateLimitNotice.set(`The API asks us to wait ${waitMs / 1000} s (rate limit); retrying…`);
        await sleep(waitMs, stopper.signal);
        rateLimitNotice.set(null);
        continue;
      }
      handlers.onReconnecting?.(delay);
      await sleep(delay, stopper.signal);
      delay = Math.min(delay * 2, MOST_DELAY_MS);
    }
  })();

  return () => stopper.abort();
}

async function failureOf(reply: Response): Promise<ApiError> {
  try {
    const body = (await reply.json()) as { code?: string; message?: string; details?: Record<string, unknown> };
    return new ApiError(
      reply.status,
      body.code ?? `HTTP_${reply.status}`,
      body.message ?? reply.statusText,
      body.details,
    );
  } catch {
    return new ApiError(reply.status, `HTTP_${reply.status}`, `the events stream answered ${reply.status}`);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
