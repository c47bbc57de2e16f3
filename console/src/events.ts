import { createParser } from 'eventsource-parser';
import type { z } from 'zod';
import type { evalRunSchema, iterationSchema } from '../../api/schemas/evals.js';

export type EvalRun = z.infer<typeof evalRunSchema>;
export type EvalIteration = z.infer<typeof iterationSchema>;

/** Why the stream stopped for good: the API's error envelope (e.g. 404 for a run out of reach). */
export interface RunEventsFailure {
  status: number;
  code: string;
  message: string;
}

export interface RunEventHandlers {
  /** the run, first and whenever its progress or status changed */
  onRun(run: EvalRun): void;
  /** one finished iteration, each once (a reconnect resumes after the last one seen) */
  onIteration(iteration: EvalIteration): void;
  /** the final run; the stream is closed */
  onEnd(run: EvalRun): void;
  /** the stream cannot go on (401, 404, ...); nothing more arrives */
  onFailure(failure: RunEventsFailure): void;
  /** the connection dropped and a retry is due in `delayMs` (the view may say so) */
  onReconnecting?(delayMs: number): void;
}

const API_KEY = 'runway.apiKey';
const FIRST_DELAY_MS = 500;
const MOST_DELAY_MS = 15_000;

/**
 * Follows a run over `GET .../eval-runs/{runId}/events`: one long request instead of polling, so a watched run costs
 * one request of the key's budget. EventSource cannot send the Authorization header, so this is fetch + a stream
 * parser. A dropped connection is retried with backoff, sending `Last-Event-ID` so that no iteration comes twice;
 * the stream ends at `end`. Returns a function that stops following.
 */
export function followRun(projectId: string, runId: string, handlers: RunEventHandlers): () => void {
  const stopper = new AbortController();
  let lastEventId: string | undefined;
  let ended = false;
  const path = `/api/v1/projects/${encodeURIComponent(projectId)}/eval-runs/${encodeURIComponent(runId)}/events`;

  const parser = createParser({
    onEvent(message) {
      if (message.id !== undefined && message.id !== '') lastEventId = message.id;
      const data: unknown = JSON.parse(message.data);
      if (message.event === 'run') handlers.onRun(data as EvalRun);
      else if (message.event === 'iteration') handlers.onIteration(data as EvalIteration);
      else if (message.event === 'end') {
        ended = true;
        handlers.onEnd(data as EvalRun);
        stopper.abort();
      }
    },
  });

  /** One connection; true when something arrived (the backoff starts again). */
  async function connect(): Promise<{ received: boolean; failure?: RunEventsFailure; waitMs?: number }> {
    const headers: Record<string, string> = {
      Accept: 'text/event-stream',
      Authorization: `Bearer ${sessionStorage.getItem(API_KEY) ?? ''}`,
    };
    if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
    const reply = await fetch(path, { headers, signal: stopper.signal, cache: 'no-store' });
    if (reply.status === 429) {
      const seconds = Number(reply.headers.get('Retry-After'));
      return { received: false, waitMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined };
    }
    if (!reply.ok || !reply.body) return { received: false, failure: await failureOf(reply) };
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
      const wait = waitMs ?? delay;
      handlers.onReconnecting?.(wait);
      await sleep(wait, stopper.signal);
      delay = Math.min(delay * 2, MOST_DELAY_MS);
    }
  })();

  return () => stopper.abort();
}

async function failureOf(reply: Response): Promise<RunEventsFailure> {
  try {
    const body = (await reply.json()) as { code?: string; message?: string };
    return { status: reply.status, code: body.code ?? 'HTTP_ERROR', message: body.message ?? reply.statusText };
  } catch {
    return { status: reply.status, code: 'HTTP_ERROR', message: `the events stream answered ${reply.status}` };
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
