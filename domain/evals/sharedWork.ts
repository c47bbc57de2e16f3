export interface SharedWorkOptions {
  /** how long a result is shared after it succeeded (0: only while in flight) */
  keepMs: number;
  /** keys kept at most (the oldest are forgotten first) */
  maxKeys?: number;
  now?: () => number;
}

/**
 * The same work asked for at once by several callers (a run's batches that start together in one worker) done once:
 * callers with the same key share the work in flight and, for `keepMs`, its result. A failure is never kept, so the
 * next caller tries again.
 */
export class SharedWork<T> {
  readonly #entries = new Map<string, { promise: Promise<T>; doneAt?: number }>();
  readonly #keepMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor(options: SharedWorkOptions) {
    this.#keepMs = options.keepMs;
    this.#maxKeys = options.maxKeys ?? 100;
    this.#now = options.now ?? Date.now;
  }

  get(key: string, work: () => Promise<T>): Promise<T> {
    this.#forgetOld();
    const found = this.#entries.get(key);
    if (found) return found.promise;
    const entry: { promise: Promise<T>; doneAt?: number } = { promise: work() };
    this.#entries.set(key, entry);
    const forget = () => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    };
    entry.promise.then(() => (this.#keepMs > 0 ? (entry.doneAt = this.#now()) : forget()), forget);
    return entry.promise;
  }

  /** Keys kept (for tests). */
  get size(): number {
    return this.#entries.size;
  }

  #forgetOld(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries)
      if (entry.doneAt !== undefined && now - entry.doneAt > this.#keepMs) this.#entries.delete(key);
    // Maps iterate in insertion order: the oldest go first.
    for (const key of this.#entries.keys()) {
      if (this.#entries.size < this.#maxKeys) break;
      this.#entries.delete(key);
    }
  }
}
