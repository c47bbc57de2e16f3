import type { Db } from '../../../db/connection.js';
import { listIterationPage } from '../../../db/evalIterations.js';
import { requireRun } from '../../access/run.js';
import type { PageCursors } from '../../ports/pageCursors.js';
import type { Principal } from '../../principal.js';
import type { Iteration } from '../../evals/iteration.js';

export interface IterationPage {
  items: Iteration[];
  /** the cursor of the next page; absent on the last */
  nextCursor?: string;
}

/** A run's iterations, in plan order, a page at a time (`cursor`: the previous page's nextCursor). */
export function listIterations(deps: { sql: Db; cursors: PageCursors }) {
  return async function listIterations(input: {
    principal: Principal;
    projectId: string;
    runId: string;
    cursor?: string;
    limit: number;
  }): Promise<IterationPage> {
    const run = await requireRun(deps.sql, input.principal, input);
    const scope = `iterations:${run.id}`;
    const after = input.cursor ? deps.cursors.decode<number>(scope, input.cursor) : 0;
    const rows = await listIterationPage(deps.sql, run.id, after, input.limit + 1);
    const items = rows.slice(0, input.limit);
    return {
      items,
      ...(rows.length > input.limit ? { nextCursor: deps.cursors.encode(scope, items.at(-1)!.seq) } : {}),
    };
  };
}

export type ListIterations = ReturnType<typeof listIterations>;
