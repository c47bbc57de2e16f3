import { requireRun } from '../../access/run.js';
import { refused } from '../../failures.js';
import type { RunWithProgress } from './getRun.js';
import { runToolSurfaces } from '../../evals/runSurfaces.js';
import type { SurfaceStore } from '../../ports/surfaceStore.js';
import type { ReconcileRuns } from './reconcileRuns.js';
import type { RunStore } from '../../ports/runStore.js';
import type { Principal } from '../../principal.js';
import type { Iteration } from '../../evals/iteration.js';
import type { Run } from '../../evals/run.js';

/** The positions of a run's iteration events, sealed (api/eventIds.ts EventIdCodec is one). */
export interface EventPositions {
  /** The position an id of this run's events carries; undefined for anything else. */
  decode(runId: string, id: string): number | undefined;
}

/** What a stream of one run's events reads, poll after poll (api/runEvents.ts streamRunEvents). */
export interface RunFeed {
  /** the run as it was when followed */
  run: Run;
  /** the stream position to resume after: that of the Last-Event-ID sent (0: from the start) */
  after: number;
  /** The run now (checked against its workflow now and then), with its progress. */
  read(): Promise<RunWithProgress>;
  /** The run's final iterations after a stream position, in stream order, without the ids in `skip`. */
  iterations(afterPosition: number, skip: string[], limit: number): Promise<Iteration[]>;
}

/**
 * Following one run's events: the run (404 unless the key may see it), where a reconnect resumes (its Last-Event-ID:
 * absent or empty is the start; the id of an iteration event of this run resumes after it; anything else is
 * refused), and the reads a stream makes each poll.
 */
export function followRun(deps: {
  runs: RunStore;
  reconciler: Pick<ReconcileRuns, 'onRead'>;
  eventIds: EventPositions;
  /** the run's tool surfaces, read with it as GET of the run reads them (getRun.ts) */
  surfaces?: Pick<SurfaceStore, 'runSurfaces'>;
}) {
  const { runs, reconciler } = deps;
  return async function followRun(input: {
    principal: Principal;
    projectId: string;
    runId: string;
    lastEventId?: string;
  }): Promise<RunFeed> {
    const found = await requireRun(runs, input.principal, input);
    const after = resumePosition(deps.eventIds, found.id, input.lastEventId);
    let current = await reconciler.onRead(found);
    return {
      run: current,
      after,
      async read() {
        // The run is read before its iterations: once it reads final, every iteration it ended with is visible.
        current = await reconciler.onRead((await runs.get(current.id)) ?? current);
        const [progress, seen] = await Promise.all([
          runs.progress(current.id),
          deps.surfaces ? deps.surfaces.runSurfaces([current.id]) : Promise.resolve([]),
        ]);
        return { run: current, progress, ...(seen.length > 0 && { toolSurfaces: runToolSurfaces(seen) }) };
      },
      iterations: (afterPosition, skip, limit) => runs.streamIterations(found.id, afterPosition, skip, limit),
    };
  };
}

export type FollowRun = ReturnType<typeof followRun>;

function resumePosition(eventIds: EventPositions, runId: string, header: string | undefined): number {
  const value = header?.trim() ?? '';
  if (value === '') return 0;
  const position = eventIds.decode(runId, value);
  if (position === undefined) {
    throw refused("Last-Event-ID must be the id of an event this run's stream sent, unchanged", {
      header: 'Last-Event-ID',
    });
  }
  return position;
}
