import { RunNotFound } from '../../evals/runFailures.js';
import { summarizeRun } from '../../evals/summary.js';
import { summarizeAdaptive } from '../../evals/adaptive.js';
import type { RunEnded } from '../../ports/runEnded.js';
import type { RunStore } from '../../ports/runStore.js';

export interface FinalizeInput {
  runId: string;
  outcome: 'completed' | 'failed' | 'cancelled';
  error?: string;
  /** the run's budget was spent before every iteration ran (issue 16): those left are kept as cancelled, not run */
  stoppedBy?: 'budget';
  /**
   * Ends the run only if it is still queued (issue 33: a cancel while it waits, a queued run that cannot be planned
   * when its turn comes); one started meanwhile is left as it is. Without it, only a running run is ended.
   */
  whileQueued?: boolean;
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
 * The one way a run ends, whatever happened before: unfinished iterations are kept as cancelled, the summary covers
 * what finished, and per-run model keys are dropped (the run's slot is freed). Idempotent: an already finished run
 * is returned as it is. Every ending goes through here: the workflow's last activity, ingest (on its transaction:
 * `finalizeRun({ runs: createRunStore(tx) })`), the reconciler (reconcileRuns, for a workflow that closed without getting here) and a
 * workflow that could not be started (startRun, the scheduled run's start). The run row stays locked throughout, so
 * a plan in flight never adds iterations to a run that has just ended.
 *
 * `runEnded` is told once, by the call that ended the run, after its transaction (issue 33: webhooks, the queue, the
 * run-level span). A queued run ended while it waited (`whileQueued`: cancelled, or failed when its turn came) is
 * told too: it ended, though it never ran. A caller finalizing on its own transaction (ingest) leaves it out and tells it after committing.
 */
export function finalizeRun(deps: { runs: RunStore; runEnded?: RunEnded }) {
  return async function finalizeRun(input: FinalizeInput): Promise<FinalizeResult> {
    let ended = false;
    const row = await deps.runs.transaction(async (runs) => {
      const run = await runs.lock(input.runId);
      if (!run) throw new RunNotFound(input.runId);
      if (run.status !== (input.whileQueued ? 'queued' : 'running')) return run;
      ended = true;
      const byBudget = input.stoppedBy === 'budget' && input.outcome === 'completed';
      await runs.cancelUnfinishedIterations(input.runId, byBudget ? NOT_RUN_BUDGET : undefined);
      const { summary, result } = summarizeRun(await runs.finishedOutcomes(input.runId), run.passCriteria);
      return (await runs.finish(input.runId, {
        status: input.outcome,
        result: input.outcome === 'completed' ? result : input.outcome === 'failed' ? 'failed' : null,
        summary: {
          ...summary,
          ...(byBudget && { stoppedBy: 'budget' as const }),
          ...(run.adaptive && { adaptive: summarizeAdaptive(run.adaptive) }),
        },
        error: input.error ?? null,
      }))!;
    });
    if (ended && deps.runEnded) await deps.runEnded({ run: row, endedAt: row.completedAt ?? new Date() });
    return { status: row.status, result: row.result, passRate: row.summary?.passRate ?? null };
  };
}

export type FinalizeRun = ReturnType<typeof finalizeRun>;

/** What a run's row says when its workflow could not be started: the run is ended as failed and its slot freed. */
export const START_FAILED = 'the run could not be started on Temporal';
