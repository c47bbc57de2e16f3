/**
 * What planning or ending a run can meet that no retry would change. Plain errors, so the domain stays free of
 * Temporal: the activities turn them into non-retryable failures of the same type (activities/retryPolicy.ts,
 * activityFailure), which is also what an operator reads in Temporal Web UI.
 */
export class RunNotFound extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId} does not exist`);
    this.name = 'RunNotFound';
  }
}

/** The suite grew past what a run may plan after the run was started (ingest adds cases to suites it shares). */
export class TooManyIterations extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TooManyIterations';
  }
}
