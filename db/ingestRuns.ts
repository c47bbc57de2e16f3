import type { Db, Tx } from './connection.js';
import type { RunRow } from './evalRuns.js';
import { camelRow } from './rows.js';
import type { Run } from '../domain/evals/run.js';

/** A run by the id its reporter gave it; unique per project (eval_runs_external_idx). */
export async function findRunByExternalId(sql: Db, projectId: string, externalRunId: string): Promise<Run | undefined> {
  const [row] = await sql<
    RunRow[]
  >`SELECT * FROM eval_runs WHERE project_id = ${projectId} AND external_run_id = ${externalRunId}`;
  return camelRow(row);
}

/**
 * True when an insert lost the race for an externalRunId: the unique index, not a prior read, decides which of
 * several concurrent requests creates the run.
 */
export function isExternalRunConflict(error: unknown): boolean {
  const e = error as { code?: string; constraint_name?: string } | null;
  return e?.code === '23505' && e.constraint_name === 'eval_runs_external_idx';
}

/**
 * The run, row-locked until the transaction ends, so that appends to one run and its finalize happen one at a
 * time (iteration numbers stay dense, and a finalize never misses an append that was in flight).
 */
export async function lockRun(
  tx: Tx,
  projectId: string,
  ref: { runId?: string; externalRunId?: string },
): Promise<Run | undefined> {
  const [row] = await tx<RunRow[]>`
    SELECT * FROM eval_runs
    WHERE project_id = ${projectId}
      ${ref.runId !== undefined ? tx`AND id = ${ref.runId}` : tx``}
      ${ref.externalRunId !== undefined ? tx`AND external_run_id = ${ref.externalRunId}` : tx``}
    FOR UPDATE`;
  return camelRow(row);
}
