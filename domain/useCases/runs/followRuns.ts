import { requireVisibleProject } from '../../access/visibleProject.js';
import { notFound } from '../../failures.js';
import type { RunWithProgress } from './getRun.js';
import type { ReconcileRuns } from './reconcileRuns.js';
import type { RunStore } from '../../ports/runStore.js';
import type { Principal } from '../../principal.js';
import type { Run } from '../../evals/run.js';

/** What a stream of several runs reads, poll after poll (api/runEvents.ts streamRunsEvents). */
export interface RunsFeed {
  projectId: string;
  /** the runs followed, in the order asked */
  runs: Run[];
  /** The runs among `runIds` now (each checked against its workflow now and then), in that order, with their progress. Two statements whatever their number. */
  read(runIds: string[]): Promise<RunWithProgress[]>;
}

/** Following several runs of a project: each must be the project's (404 naming those that are not). */
export function followRuns(deps: { runs: RunStore; reconciler: Pick<ReconcileRuns, 'onRead'> }) {
  const { runs, reconciler } = deps;
  return async function followRuns(input: {
    principal: Principal;
    projectId: string;
    runIds: string[];
  }): Promise<RunsFeed> {
    const project = await requireVisibleProject(runs, input.principal, input.projectId);
    const found = new Map((await runs.findMany(project.id, input.runIds)).map((run) => [run.id, run]));
    const missing = input.runIds.filter((runId) => !found.has(runId));
    if (missing.length > 0) throw notFound(missing.length === 1 ? 'eval run' : 'eval runs', { runIds: missing });
    return {
      projectId: project.id,
      runs: input.runIds.map((runId) => found.get(runId)!),
      async read(runIds) {
        // Each run is read before its progress: once it reads final, every iteration it ended with is counted.
        const read = new Map((await runs.findMany(project.id, runIds)).map((run) => [run.id, run]));
        const current = await Promise.all(
          runIds.flatMap((id) => (read.has(id) ? [reconciler.onRead(read.get(id)!)] : [])),
        );
        const progress = await runs.progressOf(current.map((run) => run.id));
        return current.map((run) => ({ run, progress: progress.get(run.id)! }));
      },
    };
  };
}

export type FollowRuns = ReturnType<typeof followRuns>;
