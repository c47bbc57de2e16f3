import {
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { finalizeRun } from '../domain/evals/finalize.js';
import type { Logger } from './logger.js';
import type { Sql } from '../db/connection.js';
import { getRun, isExecuted, listActiveRuns, listQuietRuns, type Run } from '../db/evalRuns.js';
import { evalRunWorkflowId } from '../workflows/definitions.js';
import { hasIterationBegun } from '../db/evalIterations.js';

/** How a run ends when its workflow closed without finalizing it. */
export interface WorkflowEnding {
  outcome: 'failed' | 'cancelled';
  error: string;
}

export interface RunReconcilerDeps {
  sql: Sql;
  temporal: Client;
  log: Logger;
}

/** POST /eval-runs writes the row, then starts the workflow: this long, a run without one may still be starting. */
const START_GRACE_MS = 2 * 60_000;
/** A read asks Temporal about a running run at most this often per process, so a poll stays one query. */
const READ_CHECK_MS = 2_000;
/** A question to Temporal that takes longer leaves the row as it is: a read never hangs on Temporal. */
const TEMPORAL_DEADLINE_MS = 3_000;
/** Runs the sweep looks at per pass (oldest first); the next pass takes the rest. */
const SWEEP_BATCH = 500;
const MISSING_WORKFLOW =
  "the workflow of this run does not exist in Temporal: it never started, or it was deleted (by an operator, or after the namespace's retention period)";

/**
 * The run's row says running while its workflow is closed in Temporal (terminated or reset away in Web UI, timed
 * out, failed or cancelled without finalizing) or gone: the workflow never gets to finalize it, so this does, with
 * the same finalizeRun (open iterations cancelled, summary over what finished, per-run keys dropped, the slot
 * freed). Idempotent and guarded by the row's status, so any number of API replicas may run it at once.
 * Asked on a read, when the run cap would refuse, and by a periodic sweep (startRunSweep).
 */
export class RunReconciler {
  /** when this process last asked Temporal about a run on a read */
  private readonly checkedAt = new Map<string, number>();

  constructor(private readonly deps: RunReconcilerDeps) {}

  /** GET /eval-runs/{id}: a running run's workflow is described at most every READ_CHECK_MS; else the row as read. */
  async onRead(run: Run): Promise<Run> {
    if (!executedAndRunning(run)) return run;
    const now = Date.now();
    if (now - (this.checkedAt.get(run.id) ?? 0) < READ_CHECK_MS) return run;
    this.remember(run.id, now);
    return await this.reconcile(run, 'read');
  }

  /** POST /eval-runs when the cap would refuse: the organization's counted runs, each checked now. How many ended. */
  async reconcileOrganization(organizationId: string): Promise<number> {
    // At most MAX_CONCURRENT_RUNS runs: asked at once, so a slow Temporal delays the answer by one deadline only.
    const runs = await Promise.all(
      (await listActiveRuns(this.deps.sql, organizationId)).map((run) => this.reconcile(run, 'cap')),
    );
    return runs.filter((run) => run.status !== 'running').length;
  }

  /** One pass of the sweep: every running run quiet for quietMs. How many ended. */
  async sweep(quietMs: number): Promise<number> {
    let ended = 0;
    for (const run of await listQuietRuns(this.deps.sql, quietMs, SWEEP_BATCH)) {
      if ((await this.reconcile(run, 'sweep')).status !== 'running') ended += 1;
    }
    return ended;
  }

  /** One run, checked now: ended when Temporal says its workflow closed without finalizing it; else as it was. */
  async reconcile(run: Run, by: 'read' | 'cap' | 'sweep' | 'cancel' | 'delete'): Promise<Run> {
    if (!executedAndRunning(run)) return run;
    const ending = await this.workflowEnding(run);
    if (!ending) return run;
    await finalizeRun(this.deps.sql, { runId: run.id, ...ending });
    this.checkedAt.delete(run.id);
    const ended = (await getRun(this.deps.sql, run.id)) ?? run;
    // else the workflow finalized the run itself between our read and Temporal's answer
    if (ended.error === ending.error)
      this.deps.log.warn(
        { runId: run.id, organizationId: run.organizationId, status: ended.status, reason: ending.error, by },
        'run ended: its workflow closed in Temporal without finalizing it',
      );
    return ended;
  }

  /** Temporal's word on the run's workflow; undefined while it runs, may still start, or Temporal does not answer. */
  private async workflowEnding(run: Run): Promise<WorkflowEnding | undefined> {
    const { temporal, log } = this.deps;
    try {
      return await temporal.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, async () => {
        // Without a run id the handle names the workflow's current execution: after a reset, the new one.
        const description = await temporal.workflow.getHandle(evalRunWorkflowId(run.id)).describe();
        if (['RUNNING', 'PAUSED', 'UNSPECIFIED', 'UNKNOWN'].includes(description.status.name)) return undefined;
        return await closedEnding(
          temporal.workflow.getHandle(description.workflowId, description.runId, { followRuns: false }),
        );
      });
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        // A run whose iterations began had a workflow, so it was deleted. One whose iterations are all pending may be
        // between insert and start (runs are planned as they are created, before their workflow starts).
        if (Date.now() - run.createdAt.getTime() < START_GRACE_MS && !(await hasIterationBegun(this.deps.sql, run.id)))
          return undefined;
        return { outcome: 'failed', error: MISSING_WORKFLOW };
      }
      log.warn(
        { runId: run.id, err: error instanceof Error ? error.message : String(error) },
        "could not ask Temporal about a run's workflow; the run is left as it is",
      );
      return undefined;
    }
  }

  private remember(runId: string, at: number): void {
    if (this.checkedAt.size >= 10_000) {
      for (const [id, checked] of this.checkedAt) if (at - checked >= READ_CHECK_MS) this.checkedAt.delete(id);
    }
    this.checkedAt.set(runId, at);
  }
}

/** Only runs executed here (started through the API or by a schedule) have a workflow; ingested ones stay open without one. */
const executedAndRunning = (run: Run) => run.status === 'running' && isExecuted(run);

/** How a closed execution ended, from its close event (what `result()` reads): the reason an operator typed, too. */
async function closedEnding(execution: WorkflowHandle): Promise<WorkflowEnding> {
  try {
    await execution.result();
    // Completed, yet the row says running: the run was not finalized by this execution.
    return { outcome: 'failed', error: 'the workflow completed in Temporal without finalizing the run' };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const cause = error.cause;
    if (cause instanceof TerminatedFailure)
      return { outcome: 'failed', error: `the workflow was terminated in Temporal: ${cause.message}` };
    if (cause instanceof TimeoutFailure)
      return { outcome: 'failed', error: 'the workflow timed out in Temporal (its execution or run timeout passed)' };
    if (cause instanceof CancelledFailure)
      return { outcome: 'cancelled', error: 'the workflow was cancelled in Temporal before it finalized the run' };
    // as the workflow words its own failures: the activity's message rather than "Activity task failed"
    const detail = (cause?.cause instanceof Error ? cause.cause : (cause ?? error)).message;
    return { outcome: 'failed', error: `the workflow failed in Temporal before it finalized the run: ${detail}` };
  }
}

/**
 * The periodic sweep, so that no run depends on someone reading it: every intervalMs, the runs quiet for that long
 * are checked. Runs in every API process; replicas sweeping the same run at once end it once (guarded by status).
 */
export function startRunSweep(
  reconciler: RunReconciler,
  options: { intervalMs: number; log: Logger },
): { stop(): Promise<void> } {
  let stopped = false;
  let pass: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      pass = reconciler
        .sweep(options.intervalMs)
        .then(
          (ended) => {
            if (ended > 0) options.log.info({ ended }, 'run sweep ended runs whose workflow had closed');
          },
          (error: unknown) =>
            options.log.warn(
              { err: error instanceof Error ? error.message : String(error) },
              'run sweep failed; trying again next interval',
            ),
        )
        .finally(() => {
          pass = undefined;
          if (!stopped) schedule();
        });
    }, options.intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
