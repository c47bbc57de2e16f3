import { inTransaction, type Db } from '../../db/connection.js';
import { cancelUnfinishedIterations, finishedOutcomes } from '../../db/evalIterations.js';
import { finishRun, lockRunById } from '../../db/evalRuns.js';
import { RunNotFound } from './runFailures.js';
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
 * The one way a run ends: its workflow's last activity, ingest, and the API's reconciler (runtime/runReconciler.ts,
 * for a workflow that closed without getting here). The run row stays locked throughout, so a plan in flight
 * never adds iterations to a run that has just ended.
 */
export async function finalizeRun(sql: Db, input: FinalizeInput): Promise<FinalizeResult> {
  const row = await inTransaction(sql, async (tx) => {
    const run = await lockRunById(tx, input.runId);
    if (!run) throw new RunNotFound(input.runId);
    if (run.status !== 'running') return run;
    await cancelUnfinishedIterations(tx, input.runId);
    const { summary, result } = summarizeRun(await finishedOutcomes(tx, input.runId), run.passCriteria);
    return (await finishRun(tx, input.runId, {
      status: input.outcome,
      result: input.outcome === 'completed' ? result : input.outcome === 'failed' ? 'failed' : null,
      summary,
      error: input.error ?? null,
    }))!;
  });
  return { status: row.status, result: row.result, passRate: row.summary?.passRate ?? null };
}
