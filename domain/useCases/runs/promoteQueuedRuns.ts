import { planRun, type RunPlan } from '../../evals/plan.js';
import type { Run } from '../../evals/run.js';
import { TooManyIterations } from '../../evals/runFailures.js';
import type { RunSetupStore } from '../../ports/runSetupStore.js';
import type { ScheduledSuites } from '../../ports/runStore.js';
import type { RunLog, RunWorkflows } from '../../ports/runWorkflows.js';
import type { RunEnded } from '../../ports/runEnded.js';
import type { FinalizeRun } from './finalizeRun.js';
import { launchRun } from './launchRun.js';

/** Organizations one sweep looks at (those waiting longest first); the next sweep takes the rest. */
const SWEEP_ORGANIZATIONS = 200;

export interface PromoteQueuedRunsDeps {
  /** the queue (under the organization's run lock), and where a run taken from it is planned */
  setup: RunSetupStore;
  /** the suite's and project's names, for the run's description in Temporal Web UI */
  suites: Pick<ScheduledSuites, 'find'>;
  /** starts the run's workflow (the same start and workflow id as POST /eval-runs: runtime/runLauncher.ts) */
  workflows: Pick<RunWorkflows, 'start'>;
  /** ends a run that cannot be planned or started */
  finalizeRun: FinalizeRun;
  maxConcurrentRuns: number;
  /** a run's concurrency when it asks for none (EVAL_ITERATION_CONCURRENCY) */
  defaultConcurrency: number;
  log: RunLog;
}

/** What a run says when its turn came but its plan could not be written (the suite grew past the bound, ...). */
const notPlanned = (message: string) => `the queued run could not be planned when its turn came: ${message}`;

/**
 * Issue 33: starts an organization's queued runs, oldest first (created_at, then id), while its concurrency cap
 * has room. Each run is taken in a transaction of its own under the organization's run lock (the advisory lock run
 * creation takes, db/evalRuns.ts lockOrganizationRuns): the slot count and the take are one step, so API replicas
 * (and workers) promoting at once take turns, never start the same run twice, and never exceed the cap. The run
 * becomes `running` and is planned in that transaction (planRun, with the suite as it is now); after it commits,
 * its workflow is started as POST /eval-runs starts one (launchRun: one that cannot be started ends the run as
 * failed). A crash between the commit and the start leaves a running run without a workflow, which the run
 * reconciler ends after its start grace, as for any run.
 *
 * Called when a run ends (`onRunEnded`, the RunEnded port), when a run has just been queued (a slot may have freed
 * meanwhile), and by the periodic sweep of every API process (`sweep`), so a lost tell or a restart delays a
 * queued run by one sweep interval at most.
 */
export function promoteQueuedRuns(deps: PromoteQueuedRunsDeps) {
  const { setup, log } = deps;

  /**
   * Takes the organization's next queued run if a slot is free: running and planned; undefined when there is none
   * to take. A plan refused (the suite grew past the bound while the run waited) rolls the take back and ends that
   * run as failed while still queued, and the next one is tried.
   */
  const takeNext = async (organizationId: string): Promise<{ run: Run; plan: RunPlan } | 'refused' | undefined> => {
    let taken: string | undefined;
    try {
      return await setup.transaction(async (tx) => {
        const active = await tx.lockActiveRuns(organizationId);
        if (active >= deps.maxConcurrentRuns) return undefined;
        const run = await tx.takeQueuedRun(organizationId);
        if (!run) return undefined;
        taken = run.id;
        return { run, plan: await planRun(tx, run.id, { concurrency: deps.defaultConcurrency }) };
      });
    } catch (error) {
      if (!(error instanceof TooManyIterations) || !taken) throw error;
      await deps.finalizeRun({ runId: taken, outcome: 'failed', error: notPlanned(error.message), whileQueued: true });
      log.warn(
        { runId: taken, organizationId, reason: error.message },
        'a queued run could not be planned when its turn came',
      );
      return 'refused';
    }
  };

  /** Starts as many of the organization's queued runs as its free slots allow; the runs started. */
  async function promote(organizationId: string): Promise<Run[]> {
    const started: Run[] = [];
    for (;;) {
      const next = await takeNext(organizationId);
      if (!next) return started;
      if (next === 'refused') continue;
      const { run, plan } = next;
      const suite = await deps.suites.find(run.suiteId);
      const about = {
        suiteName: suite?.name ?? run.suiteId,
        projectName: suite?.projectName ?? run.projectId,
        iterations: plan.iterationIds.length,
      };
      try {
        await launchRun(deps, run, about, plan);
        log.info({ runId: run.id, organizationId }, 'queued run started');
        started.push(run);
      } catch (error) {
        // launchRun ended the run as failed (its slot freed): the next one is tried.
        log.warn(
          { runId: run.id, organizationId, err: error instanceof Error ? error.message : String(error) },
          'a queued run could not be started on Temporal; it was ended as failed',
        );
      }
    }
  }

  return {
    promote,

    /** The RunEnded listener: a run of the organization ended, so a slot may be free. */
    onRunEnded: (async ({ run }) => {
      await promote(run.organizationId);
    }) satisfies RunEnded,

    /** One pass over the organizations that have queued runs; how many runs it started. */
    async sweep(): Promise<number> {
      let started = 0;
      for (const organizationId of await setup.organizationsWithQueuedRuns(SWEEP_ORGANIZATIONS)) {
        started += (await promote(organizationId)).length;
      }
      return started;
    },
  };
}

export type PromoteQueuedRuns = ReturnType<typeof promoteQueuedRuns>;
