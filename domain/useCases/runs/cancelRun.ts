import { requireRun } from '../../access/run.js';
import { OperationFailure } from '../../failures.js';
import type { RunStore } from '../../ports/runStore.js';
import type { RunWorkflows } from '../../ports/runWorkflows.js';
import type { RunWithProgress } from './getRun.js';
import type { ReconcileRuns } from './reconcileRuns.js';
import type { FinalizeRun } from './finalizeRun.js';
import type { Principal } from '../../principal.js';
import { isExecuted } from '../../evals/run.js';

/**
 * Cancels a running run: its workflow is asked to cancel, and finalizes what finished (kept) when its batches have
 * stopped. A run whose workflow already closed in Temporal cannot be cancelled there: it is ended now (reconcile),
 * and the refusal (CONFLICT) says how it ended. An ingested run has no workflow to cancel. A queued run (issue 33)
 * has none yet: it ends cancelled at once (finalizeRun while it is still queued, so RunEnded is told), unless its
 * turn came meanwhile, and then its workflow is cancelled as any running run's.
 */
export function cancelRun(deps: {
  runs: RunStore;
  reconciler: Pick<ReconcileRuns, 'reconcile'>;
  workflows: Pick<RunWorkflows, 'cancel'>;
  finalizeRun: FinalizeRun;
}) {
  return async function cancelRun(input: {
    principal: Principal;
    projectId: string;
    runId: string;
  }): Promise<RunWithProgress> {
    let found = await requireRun(deps.runs, input.principal, input);
    if (found.status === 'queued') {
      const ended = await deps.finalizeRun({ runId: found.id, outcome: 'cancelled', whileQueued: true });
      const now = (await deps.runs.get(found.id)) ?? found;
      if (ended.status === 'cancelled' && now.status === 'cancelled')
        return { run: now, progress: await deps.runs.progress(now.id) };
      found = now; // started meanwhile: cancelled through its workflow below
    }
    const run = await deps.reconciler.reconcile(found, 'cancel');
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
