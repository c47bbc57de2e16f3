import type { SavedServer } from '../../db/servers.js';
import type { McpOperations } from '../mcp/index.js';
import { collectTools } from './iteration.js';

export type CollectedTools = Awaited<ReturnType<typeof collectTools>>;

interface Entry {
  listing: Promise<CollectedTools>;
  /** when the listing succeeded (undefined while it is in flight) */
  listedAt?: number;
}

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
  readonly #entries = new Map<string, Entry>();
  readonly #mcp: McpOperations;
  readonly #maxAgeMs: number;
  readonly #maxRuns: number;
  readonly #now: () => number;

  constructor(mcp: McpOperations, options: RunToolListingsOptions = {}) {
    this.#mcp = mcp;
    this.#maxAgeMs = options.maxAgeMs ?? 2_000;
    this.#maxRuns = options.maxRuns ?? 100;
    this.#now = options.now ?? Date.now;
  }

  list(runId: string, servers: SavedServer[], signal: AbortSignal): Promise<CollectedTools> {
    this.#forgetOld();
    const key = `${runId}:${servers.map((s) => s.id).join(',')}`;
    let entry = this.#entries.get(key);
    if (!entry) {
      const listing = collectTools(this.#mcp, servers, new AbortController().signal);
      const created: Entry = { listing };
      entry = created;
      this.#entries.set(key, created);
      listing.then(
        () => (created.listedAt = this.#now()),
        () => {
          if (this.#entries.get(key) === created) this.#entries.delete(key);
        },
      );
    }
    return untilAborted(entry.listing, signal);
  }

  /** Listings kept (for tests). */
  get size(): number {
    return this.#entries.size;
  }

  #forgetOld(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries)
      if (entry.listedAt !== undefined && now - entry.listedAt > this.#maxAgeMs) this.#entries.delete(key);
    // Maps iterate in insertion order: the oldest go first.
    for (const key of this.#entries.keys()) {
      if (this.#entries.size < this.#maxRuns) break;
      this.#entries.delete(key);
    }
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
