/**
 * Starting and cancelling a conformance check's workflow (the API: api/conformanceLauncher.ts), and the workflow's id
 * and input that the domain and the workflow share. Pure: the workflow imports it into Temporal's sandbox.
 */

/** One workflow per check: a second start of the same check is refused by Temporal. */
export const conformanceCheckWorkflowId = (checkId: string): string => `conformance-check:${checkId}`;

export interface ConformanceCheckInput {
  checkId: string;
  /** the check's time limit (the activity's startToCloseTimeout is a little above it) */
  timeoutMs: number;
}

export interface ConformanceCheckWorkflows {
  start(input: ConformanceCheckInput, labels: { organizationId: string; projectId: string }): Promise<void>;
  /** Asks the check's workflow to stop; a workflow that already closed or never existed is no error. */
  cancel(checkId: string): Promise<void>;
}
