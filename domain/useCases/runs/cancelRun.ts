import { requireRun } from '../../access/run.js';
import { OperationFailure } from '../../failures.js';
import type { RunStore } from '../../ports/runStore.js';
import type { RunWorkflows } from '../../ports/runWorkflows.js';
import type { RunWithProgress } from './getRun.js';
import type { ReconcileRuns } from './reconcileRuns.js';
import type { Principal } from '../../principal.js';
import { isExecuted } from '../../evals/run.js';

/**
 * Cancels a running run: its workflow is asked to cancel, and finalizes what finished (kept) when its batches have
 * stopped. A run whose workflow already closed in Temporal cannot be cancelled there: it is ended now (reconcile),
 * and the refusal (CONFLICT) says how it ended. An ingested run has no workflow to cancel.
 */
export function cancelRun(deps: {
  runs: RunStore;
  reconciler: Pick<ReconcileRuns, 'reconcile'>;
  workflows: Pick<RunWorkflows, 'cancel'>;
}) {
  return async function cancelRun(input: {
    principal: Principal;
    projectId: string;
    runId: string;
  }): Promise<RunWithProgress> {
    const run = await deps.reconciler.reconcile(await requireRun(deps.runs, input.principal, input), 'cancel');
    if (run.status !== 'running' || !isExecuted(run)) {
      throw new OperationFailure(
        'CONFLICT',
        `the run is ${run.status === 'running' ? 'ingested, not executed here' : `already ${run.status}`}; only a running run can be cancelled`,
        { status: run.status },
      );
    }
    await deps.workflows.cancel(run.id);
    return { run, progress: await deps.runs.progress(run.id) };
  };
}

export type CancelRun = ReturnType<typeof cancelRun>;
