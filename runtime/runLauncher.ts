import type { Client } from '@temporalio/client';
import { runSearchAttributes, runUserMetadata } from '../workflows/definitions.js';
import type { evalRun } from '../workflows/evalRun.js';
import type { RunPlan } from '../domain/evals/plan.js';
import {
  evalRunWorkflowId,
  type RunDescription,
  type RunLabels,
  type RunWorkflows,
} from '../domain/ports/runWorkflows.js';

/**
 * Eval runs on Temporal (the domain's RunWorkflows): start and cancel, one workflow per run. The API starts and cancels
 * runs; both processes start queued runs in their turn (promoteQueuedRuns, issue 33).
 */
export class RunLauncher implements RunWorkflows {
  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
  ) {}

  /** Starts the run's workflow with its plan (written with the run), so its first task starts the first batches. */
  async start(run: RunLabels & { id: string }, about: RunDescription, plan?: RunPlan): Promise<void> {
    await this.temporal.workflow.start<typeof evalRun>('evalRun', {
      taskQueue: this.taskQueue,
      workflowId: evalRunWorkflowId(run.id),
      args: [{ runId: run.id, ...(plan && { plan }) }],
      typedSearchAttributes: runSearchAttributes(run),
      ...runUserMetadata(run, about),
    });
  }

  async cancel(runId: string): Promise<void> {
    await this.temporal.workflow.getHandle(evalRunWorkflowId(runId)).cancel();
  }
}
