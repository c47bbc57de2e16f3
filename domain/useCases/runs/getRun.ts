import { requireRun } from '../../access/run.js';
import type { ReconcileRuns } from './reconcileRuns.js';
import type { RunStore } from '../../ports/runStore.js';
import type { Principal } from '../../principal.js';
import type { Progress, QueuePlace, Run } from '../../evals/run.js';
import { runToolSurfaces, type RunToolSurfaces } from '../../evals/runSurfaces.js';
import type { SurfaceStore } from '../../ports/surfaceStore.js';

/** A run with its progress: what a poll reads. */
export interface RunWithProgress {
  run: Run;
  progress: Progress;
  /** the tool surfaces its servers showed its listings (absent when none was recorded, or no store was given) */
  toolSurfaces?: RunToolSurfaces[];
  /** a queued run's place in its organization's queue (issue 33), computed as it is read */
  queue?: QueuePlace;
}

/**
 * A poll of a run: status, result, summary and live progress. Progress comes from the iteration rows: exact, and one
 * indexed query. Asking the workflow instead (its progress query, still there for operators) measured 34 ms median
 * while a large run was active and slowed the run itself by ~15% (bench/eval-run.ts; docs/PERFORMANCE.md).
 */
export function getRun(deps: {
  runs: RunStore;
  reconciler: Pick<ReconcileRuns, 'onRead'>;
  surfaces?: Pick<SurfaceStore, 'runSurfaces'>;
}) {
  return async function getRun(input: {
    principal: Principal;
    projectId: string;
    runId: string;
  }): Promise<RunWithProgress> {
    // A row that says running is checked against its workflow now and then (onRead): one terminated in Temporal
    // Web UI reads as failed, not running for good.
    const run = await deps.reconciler.onRead(await requireRun(deps.runs, input.principal, input));
    const [progress, seen, positions] = await Promise.all([
      deps.runs.progress(run.id),
      deps.surfaces ? deps.surfaces.runSurfaces([run.id]) : Promise.resolve([]),
      run.status === 'queued' ? deps.runs.queuePositions([run.id]) : Promise.resolve(new Map<string, number>()),
    ]);
    const position = positions.get(run.id);
    return {
      run,
      progress,
      ...(seen.length > 0 && { toolSurfaces: runToolSurfaces(seen) }),
      ...(position !== undefined && { queue: { position } }),
    };
  };
}

export type GetRun = ReturnType<typeof getRun>;
