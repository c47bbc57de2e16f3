import type { RunPlan } from '../../evals/plan.js';
import type { Run } from '../../evals/run.js';
import type { RunDescription, RunWorkflows } from '../../ports/runWorkflows.js';
import { START_FAILED, type FinalizeRun } from './finalizeRun.js';

/**
 * Starts the workflow of a run just written, with its plan (POST /eval-runs, a re-grade, a queued run's turn). A workflow that cannot be
 * started ends the run as failed, through the one finalizeRun (its slot freed), and the error goes on to the caller.
 */
export async function launchRun(
  deps: { workflows: Pick<RunWorkflows, 'start'>; finalizeRun: FinalizeRun },
  run: Run,
  about: RunDescription,
  plan?: RunPlan,
): Promise<void> {
  const { id, organizationId, projectId, suiteId, source } = run;
  try {
    await deps.workflows.start({ id, organizationId, projectId, suiteId, source }, about, plan);
  } catch (error) {
    await deps.finalizeRun({ runId: run.id, outcome: 'failed', error: START_FAILED });
    throw error;
  }
}
