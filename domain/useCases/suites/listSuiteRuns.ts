import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireSuite } from '../../access/suite.js';
import type { Principal } from '../../principal.js';
import type { Progress, Run } from '../../evals/run.js';

/** A suite's recent runs, newest first, each with its progress. */
export function listSuiteRuns(deps: { suites: SuiteStore }) {
  return async function listSuiteRuns(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    limit: number;
  }): Promise<{ run: Run; progress: Progress }[]> {
    const { suites } = deps;
    const suite = await requireSuite(suites, input.principal, input);
    const runs = await suites.runs(suite.id, input.limit);
    // Every run's progress in one query, not one per run.
    const progress = await suites.progressOf(runs.map((run) => run.id));
    return runs.map((run) => ({ run, progress: progress.get(run.id)! }));
  };
}

export type ListSuiteRuns = ReturnType<typeof listSuiteRuns>;
