// Pure and deterministic (workflow code): how a run's iterations are cut into batches as the run goes.

export interface BatchSizing {
  /** batches in flight at once */
  lanes: number;
  /** size of the first batches, before any batch has been timed */
  initialSize: number;
  /** a batch aims at about this much work: its fixed cost (an activity, a few queries: ~10-20 ms) stays well under 1% */
  targetMs: number;
  /** once less than this much work per lane is left, the rest is cut into one last batch per lane */
  minMs: number;
  /** never more iterations than this in one batch */
  maxSize: number;
  /**
   * count the work still in flight (batches handed out and not observed yet) into a lane's fair share, so that lanes
   * that become free one after the other get equal batches and finish together, instead of ever smaller ones (the
   * workflow's sizing, inFlightSizing)
   */
  inFlight?: boolean;
}

// Changing these changes the batches, hence the activities, of workflows already running: a workflow change, shipped
// as ARCHITECTURE.md ("Shipping workflow changes") says.
export const defaultSizing = { targetMs: 5_000, minMs: 500, maxSize: 100 } as const;

/**
 * The workflow's sizing, counting the work in flight: its lanes finish together whatever the batch size,
 * so a batch may hold more work, and a run crosses fewer batch boundaries (each a workflow task and the batch's
 * reads, tens of milliseconds in which the lane's model is idle). The first timings include the run's start, which
 * makes iterations look slower than they are: with 5 s, 200 iterations of 200 ms on 8 lanes left a tail.
 */
export const inFlightSizing = { ...defaultSizing, targetMs: 10_000, inFlight: true } as const;

/**
 * Hands out the run's iterations batch by batch, sized by how long iterations have taken so far: about
 * `targetMs` of work per batch, and towards the end no more than an equal share of what is left per lane
 * (guided self-scheduling), so the lanes finish together instead of one lane running a long last batch alone.
 * Fast iterations get large batches (few activities), slow ones small batches (a fair tail).
 */
export class BatchScheduler {
  readonly #ids: string[];
  readonly #sizing: BatchSizing;
  #next = 0;
  /** milliseconds per iteration, smoothed over the batches timed so far */
  #perIterationMs: number | undefined;
  /** once in the tail, the size every remaining batch has */
  #tailSize: number | undefined;
  /** batches handed out and not observed yet, by their first iteration: their size and when they were handed out */
  readonly #inFlight = new Map<string, { count: number; at: number }>();

  constructor(ids: string[], sizing: BatchSizing) {
    this.#ids = ids;
    this.#sizing = sizing;
  }

  /**
   * The next batch, or undefined when every iteration has been handed out; at most `max` iterations (a run's budget:
   * undefined when `max` is 0).
   */
  take(max = Number.POSITIVE_INFINITY, now = 0): string[] | undefined {
    const remaining = this.#ids.length - this.#next;
    if (remaining <= 0 || max <= 0) return undefined;
    const size = Math.min(remaining, this.#size(remaining, now), max);
    const batch = this.#ids.slice(this.#next, this.#next + size);
    this.#next += size;
    this.#inFlight.set(batch[0], { count: size, at: now });
    return batch;
  }

  /** Iterations not handed out yet. */
  get remaining(): number {
    return this.#ids.length - this.#next;
  }

  /** A batch took `elapsedMs` (workflow time, so replay sees the same numbers). */
  observe(batch: string[], elapsedMs: number): void {
    const count = batch.length;
    if (count <= 0) return;
    this.#inFlight.delete(batch[0]);
    const sample = Math.max(elapsedMs, 1) / count;
    this.#perIterationMs = this.#perIterationMs === undefined ? sample : (this.#perIterationMs + sample) / 2;
  }

  /**
   * What is left for the lanes, in iterations: those not handed out, plus (with `inFlight`) the estimated rest of the
   * batches still running (their size at the smoothed pace, less the time they have run).
   */
  #work(remaining: number, now: number, perIterationMs: number): number {
    if (!this.#sizing.inFlight) return remaining;
    let running = 0;
    for (const { count, at } of this.#inFlight.values())
      running += Math.max(0, count - Math.max(0, now - at) / perIterationMs);
    return remaining + running;
  }

  #size(remaining: number, now: number): number {
    const { lanes, initialSize, targetMs, minMs, maxSize } = this.#sizing;
    if (this.#perIterationMs === undefined) return Math.max(1, Math.min(initialSize, maxSize));
    if (this.#tailSize !== undefined) return this.#tailSize;
    const forTarget = Math.max(1, Math.min(maxSize, Math.floor(targetMs / this.#perIterationMs)));
    const share = this.#work(remaining, now, this.#perIterationMs) / lanes;
    // Rounded, not ceiled, with the work in flight counted: lanes freed one after the other then get equal batches.
    const fairShare = this.#sizing.inFlight ? Math.max(1, Math.round(share)) : Math.ceil(share);
    if (fairShare * this.#perIterationMs >= minMs) return Math.min(forTarget, fairShare);
    // The tail: less than minMs of work per lane is left. It is cut once into one batch per lane, instead of
    // ever smaller batches that would cost more activities than they save.
    this.#tailSize = Math.min(forTarget, fairShare);
    return this.#tailSize;
  }
}
