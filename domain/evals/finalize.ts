import { inTransaction, type Db } from '../../db/connection.js';
import { cancelUnfinishedIterations, finishedOutcomes } from '../../db/evalIterations.js';
import { finishRun, lockRunById } from '../../db/evalRuns.js';
import { RunNotFound } from './runFailures.js';
import { summarizeRun } from './summary.js';

export interface FinalizeInput {
  runId: string;
  outcome: 'completed' | 'failed' | 'cancelled';
  error?: string;
  /** the run's budget was spent before every iteration ran (issue 16): those left are kept as cancelled, not run */
  stoppedBy?: 'budget';
}

/** What an iteration its run's budget left unrun says (status cancelled). */
export const NOT_RUN_BUDGET = {
  error: "not run: the run's budget was spent",
  errorDetails: { reason: 'BUDGET_EXHAUSTED' },
} as const;

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
    const byBudget = input.stoppedBy === 'budget' && input.outcome === 'completed';
    await cancelUnfinishedIterations(tx, input.runId, byBudget ? NOT_RUN_BUDGET : undefined);
    const { summary, result } = summarizeRun(await finishedOutcomes(tx, input.runId), run.passCriteria);
    return (await finishRun(tx, input.runId, {
      status: input.outcome,
      result: input.outcome === 'completed' ? result : input.outcome === 'failed' ? 'failed' : null,
      summary: byBudget ? { ...summary, stoppedBy: 'budget' } : summary,
      error: input.error ?? null,
    }))!;
  });
  return { status: row.status, result: row.result, passRate: row.summary?.passRate ?? null };
}
