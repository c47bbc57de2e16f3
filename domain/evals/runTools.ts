import type { McpOperations } from '../mcp/index.js';
import { collectTools } from './executeIteration.js';
import { SharedWork } from './sharedWork.js';
import type { SavedServer } from '../catalog/server.js';

export type CollectedTools = Awaited<ReturnType<typeof collectTools>>;

export interface RunToolListingsOptions {
  /** how long a listing is shared after it succeeded (a server's changed tool list reaches batches after that) */
  maxAgeMs?: number;
  /** runs whose listings are kept at most (the oldest are forgotten first) */
  maxRuns?: number;
  now?: () => number;
}

/**
 * The tools of a run's servers, listed once for the run's batches that start together in this worker: a run's first
 * batches (one per lane) and the lanes' next ones share one listing instead of each asking every server (on two
 * cores, eight listings at once on one stdio server held a run's first model request back by tens of milliseconds).
 * A listing is shared while it is in flight and for `maxAgeMs` after (2 s); a failed one is not kept, so the next
 * batch lists again. The listing itself is bounded by the MCP request timeouts, not by a batch's cancellation: each
 * batch stops waiting for it when its own signal aborts.
 */
export class RunToolListings {
  readonly #listings: SharedWork<CollectedTools>;
  readonly #mcp: McpOperations;

  constructor(mcp: McpOperations, options: RunToolListingsOptions = {}) {
    this.#mcp = mcp;
    this.#listings = new SharedWork({ keepMs: options.maxAgeMs ?? 2_000, maxKeys: options.maxRuns, now: options.now });
  }

  list(runId: string, servers: SavedServer[], signal: AbortSignal): Promise<CollectedTools> {
    const key = `${runId}:${servers.map((s) => s.id).join(',')}`;
    const listing = this.#listings.get(key, () => collectTools(this.#mcp, servers, new AbortController().signal));
    return untilAborted(listing, signal);
  }

  /** Listings kept (for tests). */
  get size(): number {
    return this.#listings.size;
  }
}

/** The promise's outcome, or the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
