/**
 * Provider rate limits, shared by the lanes of a run. A model request answered 429 (rate limit) or 529 (Anthropic's
 * "overloaded") closes the run's gate for that provider until the provider's reset (retry-after-ms, Retry-After,
 * the rate-limit reset headers: failures.ts providerRetryDelay); every model request of that run and provider in
 * this process waits at the gate before it goes out, so the lanes slow down together instead of each burning its
 * attempts. A short wait happens in-process (the model call is simply made again after it: no attempt is spent);
 * a longer one is left to the retry policy (activities/retryPolicy.ts), which has Temporal wait (nextRetryDelay).
 */
import { APICallError, type LanguageModelMiddleware } from 'ai';
import { providerRetryDelay } from './failures.js';
import type { TraceRecorder } from './trace.js';

/**
 * By default, a provider's delay up to this long is waited for in-process; a longer one fails the call to the retry
 * policy (the worker's MODEL_RATE_LIMIT_WAIT_MS).
 */
export const MAX_GATE_WAIT_MS = 60_000;
/**
 * One model call is asked again at most this many times after a limit, and waits at most this long in all, before
 * it is left to the retry policy: a provider that keeps refusing (with a tiny Retry-After) is not hammered.
 */
export const MAX_GATE_RETRIES_PER_CALL = 8;
export const MAX_GATE_WAIT_PER_CALL_MS = 5 * 60_000;
/** A 429/529 that says nothing of when to come back: 1 s, then doubling while the provider keeps limiting. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

/** The statuses that close the gate: rate limited, and Anthropic's overloaded. */
export function isRateLimitStatus(status: number | undefined): boolean {
  return status === 429 || status === 529;
}

export class RateLimitGate {
  /** clock reading until which requests wait (0: open) */
  #until = 0;
  /** 429s without a delay since the last request that went through, for the backoff */
  #strikes = 0;
  #waiters = 0;

  constructor(
    readonly provider: string,
    private readonly clock: () => number = Date.now,
    /** a reset further away than this is not waited for in-process */
    readonly maxWaitMs = MAX_GATE_WAIT_MS,
  ) {
    this.#usedAt = clock();
  }

  /** the last time a request looked at the gate */
  #usedAt: number;

  /** How long a request would wait now. */
  remainingMs(): number {
    this.#usedAt = this.clock();
    return Math.max(0, this.#until - this.#usedAt);
  }

  /**
   * Open, nobody waiting, and no request has looked at it for `quietMs`: the registry may forget it. (Iterations
   * hold their gate while they run, so one in use must not be replaced by a new gate of the same run and provider.)
   */
  idle(quietMs: number): boolean {
    const now = this.clock();
    return this.#waiters === 0 && this.#until <= now && now - this.#usedAt >= quietMs;
  }

  /**
   * The provider limits: closed for `delayMs` from now (never shortened by a smaller delay). Without a delay, the
   * backoff for this many limits in a row. Returns the delay applied.
   */
  limit(delayMs?: number): number {
    let delay: number;
    if (delayMs !== undefined && Number.isFinite(delayMs)) delay = Math.max(0, delayMs);
    // Lanes whose requests left before the gate closed are told the same: one backoff step, not one per lane.
    else if (this.remainingMs() > 0) return this.remainingMs();
    else delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(this.#strikes++, 10));
    this.#until = Math.max(this.#until, this.clock() + delay);
    return delay;
  }

  /** A request went through: headerless backoff starts over. */
  passed(): void {
    this.#strikes = 0;
  }

  /**
   * Waits until the gate opens (re-reading it: another lane may have pushed the reset further), or rejects with the
   * signal's reason when it fires. Resolves with the time waited (0 when open).
   */
  async wait(signal?: AbortSignal): Promise<number> {
    const start = this.clock();
    // An open gate is no wait at all, even when the clock ticks between the two readings.
    let slept = false;
    this.#waiters += 1;
    try {
      for (let remaining = this.remainingMs(); remaining > 0; remaining = this.remainingMs()) {
        slept = true;
        await sleep(remaining, signal);
      }
    } finally {
      this.#waiters -= 1;
    }
    return slept ? this.clock() - start : 0;
  }
}

/**
 * An open gate no request has looked at for this long is forgotten: longer than any iteration lives (a batch
 * activity's start-to-close timeout is 1 hour), so no running iteration still holds it.
 */
const FORGET_AFTER_MS = 2 * 60 * 60_000;

/**
 * The worker's gates, one per run and provider. A gate is forgotten once open and unused for FORGET_AFTER_MS, so the
 * map holds only the runs of the last hours that called a provider.
 */
export class RateLimitGates {
  readonly #gates = new Map<string, RateLimitGate>();

  constructor(private readonly options: { maxWaitMs?: number; clock?: () => number } = {}) {}

  gate(runId: string, provider: string): RateLimitGate {
    for (const [key, gate] of this.#gates) if (gate.idle(FORGET_AFTER_MS)) this.#gates.delete(key);
    const key = `${runId}\u0000${provider}`;
    let gate = this.#gates.get(key);
    if (!gate) {
      gate = new RateLimitGate(provider, this.options.clock, this.options.maxWaitMs);
      this.#gates.set(key, gate);
    }
    return gate;
  }

  /** gates remembered (for tests) */
  get size(): number {
    return this.#gates.size;
  }
}

/**
 * Every model request waits at the gate first, recorded in the trace as a `rate-limit` span (the provider and the
 * time waited) whenever it had to wait. A 429/529 closes the gate until the provider's reset and, when that is
 * within the gate's maxWaitMs (and this call is within MAX_GATE_RETRIES_PER_CALL and MAX_GATE_WAIT_PER_CALL_MS),
 * the request waits for the reset with the run's other requests and is then sent (the provider turned it away
 * unread: nothing is done twice). Any other failure, and a reset further away, goes on as it is: the retry policy
 * decides (activities/retryPolicy.ts), from the provider's delay. The AI SDK retries nothing behind it
 * (agentLoop.ts MODEL_CALL_RETRIES).
 */
export function gateModelCalls(
  gate: RateLimitGate,
  trace: TraceRecorder,
  options: { signal?: AbortSignal; clock?: () => number } = {},
): LanguageModelMiddleware {
  const clock = options.clock ?? Date.now;
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params }) => {
      const signal = params.abortSignal ?? options.signal;
      let waitedMs = 0;
      for (let retries = 0; ; retries++) {
        const ahead = gate.remainingMs();
        if (ahead > 0) {
          const span = trace.start('rate-limit', `${gate.provider} rate limit`, {
            provider: gate.provider,
            delayMs: ahead,
          });
          try {
            const waited = await gate.wait(signal);
            waitedMs += waited;
            trace.end(span, 'ok', { delayMs: waited });
          } catch (error) {
            trace.end(span, 'cancelled');
            throw error;
          }
        }
        try {
          const result = await doGenerate();
          gate.passed();
          return result;
        } catch (error) {
          if (!APICallError.isInstance(error) || !isRateLimitStatus(error.statusCode)) throw error;
          const delay = gate.limit(providerRetryDelay(error.responseHeaders, clock()));
          const waitHere =
            delay <= gate.maxWaitMs &&
            waitedMs + delay <= MAX_GATE_WAIT_PER_CALL_MS &&
            retries < MAX_GATE_RETRIES_PER_CALL;
          if (waitHere) continue;
          throw error;
        }
      }
    },
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
