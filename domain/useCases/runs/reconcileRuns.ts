import type { RunStore } from '../../ports/runStore.js';
import type { RunLog, RunWorkflowStates, WorkflowEnding } from '../../ports/runWorkflows.js';
import type { FinalizeRun } from './finalizeRun.js';
import { isExecuted, type Run } from '../../evals/run.js';

/** A run is written, then its workflow started: this long, a run without one may still be starting. */
const START_GRACE_MS = 2 * 60_000;
/** A read asks Temporal about a running run at most this often per process, so a poll stays one query. */
const READ_CHECK_MS = 2_000;
/** Runs the sweep looks at per pass (oldest first); the next pass takes the rest. */
const SWEEP_BATCH = 500;
const MISSING_WORKFLOW =
  "the workflow of this run does not exist in Temporal: it never started, or it was deleted (by an operator, or after the namespace's retention period)";

/** Who asked to reconcile a run (the log line says so). */
export type ReconciledBy = 'read' | 'cap' | 'sweep' | 'cancel' | 'delete';

export interface ReconcileRunsDeps {
  runs: RunStore;
  /** Temporal's word on a run's workflow (runtime/runReconciler.ts) */
  workflows: RunWorkflowStates;
  /** the one way a run ends */
  finalizeRun: FinalizeRun;
  log: RunLog;
}

/**
 * The run's row says running while its workflow is closed in Temporal (terminated or reset away in Web UI, timed
 * out, failed or cancelled without finalizing) or gone: the workflow never gets to finalize it, so this does, with
 * the same finalizeRun (open iterations cancelled, summary over what finished, per-run keys dropped, the slot
 * freed). Idempotent and guarded by the row's status, so any number of processes may run it at once.
 *
 * One story with four ways in, which share the read throttle (built once per process, it remembers when it last
 * asked about each run): a read (`onRead`), the run cap (`reconcileOrganization`), the periodic sweep (`sweep`,
 * runtime/runReconciler.ts startRunSweep), and one run now (`reconcile`: cancelling a run, deleting its suite).
 */
export function reconcileRuns(deps: ReconcileRunsDeps) {
  const { runs, log } = deps;
  /** when this process last asked Temporal about a run on a read */
  const checkedAt = new Map<string, number>();

  const remember = (runId: string, at: number) => {
    if (checkedAt.size >= 10_000) {
      for (const [id, checked] of checkedAt) if (at - checked >= READ_CHECK_MS) checkedAt.delete(id);
    }
    checkedAt.set(runId, at);
  };

  /** Temporal's word on the run's workflow; undefined while it runs, may still start, or Temporal does not answer. */
  const workflowEnding = async (run: Run): Promise<WorkflowEnding | undefined> => {
    const answer = await deps.workflows.state(run.id);
    switch (answer.state) {
      case 'open':
        return undefined;
      case 'closed':
        return answer.ending;
      case 'missing':
        // A run whose iterations began had a workflow, so it was deleted. One whose iterations are all pending may be
        // between insert and start (runs are planned as they are created, before their workflow starts).
        // A queued run's start is when it left the queue (planned then), not when it was created.
        if (Date.now() - (run.startedAt ?? run.createdAt).getTime() < START_GRACE_MS && !(await runs.hasBegun(run.id)))
          return undefined;
        return { outcome: 'failed', error: MISSING_WORKFLOW };
      case 'unknown':
        log.warn(
          { runId: run.id, err: answer.error },
          "could not ask Temporal about a run's workflow; the run is left as it is",
        );
        return undefined;
    }
  };

  /** One run, checked now: ended when Temporal says its workflow closed without finalizing it; else as it was. */
  const reconcile = async (run: Run, by: ReconciledBy): Promise<Run> => {
    if (!executedAndRunning(run)) return run;
    const ending = await workflowEnding(run);
    if (!ending) return run;
    await deps.finalizeRun({ runId: run.id, ...ending });
    checkedAt.delete(run.id);
    const ended = (await runs.get(run.id)) ?? run;
    // else the workflow finalized the run itself between our read and Temporal's answer
    if (ended.error === ending.error)
      log.warn(
        { runId: run.id, organizationId: run.organizationId, status: ended.status, reason: ending.error, by },
        'run ended: its workflow closed in Temporal without finalizing it',
      );
    return ended;
  };

  return {
    reconcile,

    /** A read of a run: a running run's workflow is described at most every READ_CHECK_MS; else the row as read. */
    async onRead(run: Run): Promise<Run> {
      if (!executedAndRunning(run)) return run;
      const now = Date.now();
      if (now - (checkedAt.get(run.id) ?? 0) < READ_CHECK_MS) return run;
      remember(run.id, now);
      return await reconcile(run, 'read');
    },

    /** A run about to be refused by the cap: the organization's counted runs, each checked now. How many ended. */
    async reconcileOrganization(organizationId: string): Promise<number> {
      // At most MAX_CONCURRENT_RUNS runs: asked at once, so a slow Temporal delays the answer by one deadline only.
      const checked = await Promise.all((await runs.active(organizationId)).map((run) => reconcile(run, 'cap')));
      return checked.filter((run) => run.status !== 'running').length;
    },

    /** One pass of the sweep: every running run quiet for quietMs. How many ended. */
    async sweep(quietMs: number): Promise<number> {
      let ended = 0;
      for (const run of await runs.quiet(quietMs, SWEEP_BATCH)) {
        if ((await reconcile(run, 'sweep')).status !== 'running') ended += 1;
      }
      return ended;
    },
  };
}

export type ReconcileRuns = ReturnType<typeof reconcileRuns>;

/** Only runs executed here (started through the API or by a schedule) have a workflow; ingested ones stay open without one. */
const executedAndRunning = (run: Run) => run.status === 'running' && isExecuted(run);
