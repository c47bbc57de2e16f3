import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireSuite } from '../../access/suite.js';
import { notFound, refused } from '../../failures.js';
import type { SuiteSchedules } from '../../ports/suiteSchedules.js';
import type { Principal } from '../../principal.js';
import { isExecuted, type Run } from '../../evals/run.js';

/**
 * Ends a run whose workflow already closed where it ran (terminated in Temporal Web UI, timed out) and answers the
 * run as it is now (runtime/runReconciler.ts implements it).
 */
export interface ClosedRunCheck {
  reconcile(run: Run, by: 'delete'): Promise<Run>;
}

/** What a user has to do about a run that keeps its suite from being deleted. */
const howToEnd = (run: Run) =>
  isExecuted(run)
    ? `cancel it (POST /eval-runs/${run.id}/cancel) or wait for it to finish`
    : `finalize it (eval-ingest/runs/finalize with runId ${run.id})`;

/**
 * Deletes a suite and its schedule; its past runs stay readable. A suite with a running run is refused
 * (SUITE_HAS_RUNNING_RUNS), after the runs whose workflow already closed are ended.
 */
export function deleteSuite(deps: { suites: SuiteStore; schedules: SuiteSchedules; reconciler: ClosedRunCheck }) {
  return async function deleteSuite(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
  }): Promise<{ id: string }> {
    const { suites, schedules, reconciler } = deps;
    const suite = await requireSuite(suites, input.principal, input);
    const remove = () =>
      suites.transaction(async (tx) => {
        const outcome = await tx.delete(suite.projectId, suite.id);
        // Its schedule goes before the deletion commits: a deleted suite never keeps a schedule firing.
        if (outcome?.deleted) await schedules.remove(suite.id);
        return outcome;
      });
    let outcome = await remove();
    if (outcome && !outcome.deleted) {
      // A run whose workflow already closed in Temporal (terminated in Web UI) is ended now rather than refusing.
      const runs = await Promise.all(outcome.running.map((run) => reconciler.reconcile(run, 'delete')));
      if (runs.some((run) => run.status !== 'running')) outcome = await remove();
    }
    if (!outcome) throw notFound('eval suite', { suiteId: input.suiteId });
    if (!outcome.deleted) {
      const [first] = outcome.running;
      throw refused(
        `suite ${suite.id} has ${outcome.running.length === 1 ? 'a running run' : `${outcome.running.length} running runs`} (${outcome.running.map((r) => r.id).join(', ')}): ${howToEnd(first)}, then delete the suite`,
        { reason: 'SUITE_HAS_RUNNING_RUNS', suiteId: suite.id, runIds: outcome.running.map((r) => r.id) },
      );
    }
    return { id: suite.id };
  };
}

export type DeleteSuite = ReturnType<typeof deleteSuite>;
