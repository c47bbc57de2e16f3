import type { Run } from '../evals/run.js';

/**
 * What happens once a run has ended (issue 33): a webhook delivery, the next queued run's start, the run-level span.
 * finalizeRun, the one way a run ends, tells it once per run, after the ending is written (after the transaction
 * commits when finalizeRun owns it; an ingest finalizing on its own transaction tells it after that transaction).
 *
 * A listener must never throw into the caller and never hold it for long: the run has already ended, whatever a
 * listener does. `fanOutRunEnded` (runtime/runEnded.ts) composes several and logs a listener's failure.
 */
export interface RunEndedEvent {
  /** the run as finalizeRun left it (status completed, failed or cancelled; summary set) */
  run: Run;
  endedAt: Date;
}

export type RunEnded = (event: RunEndedEvent) => Promise<void>;

/** The listener that does nothing: the default wherever nothing listens. */
export const ignoreRunEnded: RunEnded = async () => {};
