import type { Db } from '../../db/connection.js';
import { cancelUnfinishedIterations, finishedOutcomes } from '../../db/evalIterations.js';
import { finishRun, getRun } from '../../db/evalRuns.js';
import { summarizeRun } from './summary.js';

export interface FinalizeInput {
  runId: string;
  outcome: 'completed' | 'failed' | 'cancelled';
  error?: string;
}

export interface FinalizeResult {
  status: string;
  result: string | null;
  passRate: number | null;
}

/**
 * Ends the run whatever happened before: unfinished iterations are kept as cancelled, the summary covers what
 * finished, and per-run model keys are dropped. Idempotent: an already finished run is returned as it is.
 */
export async function finalizeRun(sql: Db, input: FinalizeInput): Promise<FinalizeResult> {
  const run = await getRun(sql, input.runId);
  if (!run) throw new Error(`run ${input.runId} does not exist`);
  if (run.status !== 'running') return { status: run.status, result: run.result, passRate: run.summary?.passRate ?? null };

  await cancelUnfinishedIterations(sql, input.runId);
  const { summary, result } = summarizeRun(await finishedOutcomes(sql, input.runId), run.pass_criteria);
  const finished = await finishRun(sql, input.runId, {
    status: input.outcome,
    result: input.outcome === 'completed' ? result : input.outcome === 'failed' ? 'failed' : null,
    summary,
    error: input.error ?? null,
  });
  const row = finished ?? (await getRun(sql, input.runId))!;
  return { status: row.status, result: row.result, passRate: row.summary?.passRate ?? null };
}
