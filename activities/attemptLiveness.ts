import { ApplicationFailure } from '@temporalio/activity';

/** The failure type of an attempt that stood still (retryable: Temporal's next attempt runs what it held). */
export const WORKER_STOOD_STILL = 'WORKER_STOOD_STILL';

/**
 * Whether the process running a batch attempt kept running. A worker that was paused (SIGSTOP, a frozen VM or
 * container, a machine that slept) or starved of CPU for seconds stood still while Temporal's heartbeat timeout ran:
 * Temporal may already have given the batch to a new attempt that has not fenced its iterations yet, and every timer
 * of the attempt fires at once when it wakes (an MCP initialize or request "did not answer in time" while the
 * answer sat unread, a model timeout). What such an attempt runs or finishes after the pause is not its iterations'
 * truth: it claims and stores nothing more and ends, and Temporal's next attempt runs what it held.
 *
 * Measured on the monotonic clock by a ticker: a gap between ticks is time the process did not run. The stretch since
 * the last tick counts too, so a write that wakes up before the ticker does is refused as well.
 */
export class AttemptLiveness {
  private last: number;
  private longest = 0;
  private readonly ticker: NodeJS.Timeout;

  /** `limitMs`: the longest standstill an attempt survives (well below its heartbeat timeout) */
  constructor(
    private readonly limitMs: number,
    tickMs = 250,
    /** the monotonic clock, in ms (a test's own, so that a standstill needs no stopped process) */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.last = now();
    this.ticker = setInterval(() => this.tick(), tickMs);
    this.ticker.unref();
  }

  private tick(): void {
    const now = this.now();
    this.longest = Math.max(this.longest, now - this.last);
    this.last = now;
  }

  /** the longest the process stood still since the attempt began, up to now */
  stoodStillMs(): number {
    return Math.max(this.longest, this.now() - this.last);
  }

  /** Throws a retryable failure once the process stood still for `limitMs` or more; nothing may be written after it. */
  check(): void {
    const still = this.stoodStillMs();
    if (still < this.limitMs) return;
    throw ApplicationFailure.create({
      type: WORKER_STOOD_STILL,
      message: `this worker stood still for ${Math.round(still)} ms (paused, or starved of CPU): what this attempt ran since is not stored, and Temporal's next attempt runs the batch's unfinished iterations`,
      nonRetryable: false,
    });
  }

  stop(): void {
    clearInterval(this.ticker);
  }
}

/** An attempt survives standstills shorter than a third of its heartbeat timeout (5 s of the batches' 15 s). */
export function standstillLimitMs(heartbeatTimeoutMs: number | undefined): number {
  return Math.min(5_000, (heartbeatTimeoutMs ?? 15_000) / 3);
}
