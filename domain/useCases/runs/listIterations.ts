import { requireRun } from '../../access/run.js';
import type { RunStore } from '../../ports/runStore.js';
import type { PageCursors } from '../../ports/pageCursors.js';
import type { Principal } from '../../principal.js';
import type { Iteration } from '../../evals/iteration.js';

export interface IterationPage {
  items: Iteration[];
  /** the cursor of the next page; absent on the last */
  nextCursor?: string;
}

/** A run's iterations, in plan order, a page at a time (`cursor`: the previous page's nextCursor). */
export function listIterations(deps: { runs: RunStore; cursors: PageCursors }) {
  return async function listIterations(input: {
    principal: Principal;
    projectId: string;
    runId: string;
    cursor?: string;
    limit: number;
  }): Promise<IterationPage> {
    const run = await requireRun(deps.runs, input.principal, input);
    const scope = `iterations:${run.id}`;
    const after = input.cursor ? deps.cursors.decode<number>(scope, input.cursor) : 0;
    const rows = await deps.runs.iterationPage(run.id, after, input.limit + 1);
    const items = rows.slice(0, input.limit);
    return {
      items,
      ...(rows.length > input.limit ? { nextCursor: deps.cursors.encode(scope, items.at(-1)!.seq) } : {}),
    };
  };
}

export type ListIterations = ReturnType<typeof listIterations>;
