import { createEvalRun, type RunCreationDeps } from '../../evals/startEvalRun.js';
import { OperationFailure } from '../../failures.js';
import type { ScheduledSuites } from '../../ports/runStore.js';
import type { RunLog, ScheduledRunOutcome, ScheduledSuiteRunInput } from '../../ports/runWorkflows.js';
import type { PromoteQueuedRuns } from './promoteQueuedRuns.js';

/** Counts what due scheduled runs did (the worker's Prometheus metrics). */
export interface ScheduledRunRecorder {
  scheduledRunOutcome(outcome: { outcome: 'started' | 'queued' | 'skipped'; reason?: string }): void;
}

export interface StartScheduledRunDeps extends RunCreationDeps {
  /** the suite a due run starts from, and where its skips are kept */
  suites: ScheduledSuites;
  log: RunLog;
  metrics?: ScheduledRunRecorder;
  /** starts the organization's queued runs while slots are free (a run just queued may find one freed meanwhile) */
  queue?: Pick<PromoteQueuedRuns, 'promote'>;
}

/**
 * A suite's schedule came due: its run is created exactly as POST /eval-runs creates one (createEvalRun: the same
 * cap, checks and model keys), with source `schedule`, no API key and no per-run model keys, so models run on the
 * organization's provider keys only. A run that cannot start now (the cap is full, a model has no key, the suite
 * lost its servers or cases) is skipped, not retried: the next due time tries again, and the skip is kept on the
 * suite with its reason, logged and counted. At the cap, an organization that queues runs (its queueRuns setting,
 * issue 33) gets the run queued instead: outcome `queued`, and the queue starts it in its turn with its own
 * top-level workflow (same workflow id), not as the scheduled workflow's child. The caller (workflows/scheduledSuiteRun.ts) starts the run's
 * evalRun workflow; when it cannot, it ends the run with finalizeRun (START_FAILED), as startRun does.
 */
export function startScheduledRun(deps: StartScheduledRunDeps) {
  const { suites, log } = deps;
  return async function startScheduledRun({ suiteId }: ScheduledSuiteRunInput): Promise<ScheduledRunOutcome> {
    const skipped = async (reason: string, message: string, record: boolean): Promise<ScheduledRunOutcome> => {
      if (record) await suites.recordSkip(suiteId, { reason, message });
      log.warn({ suiteId, reason, message }, 'scheduled run skipped');
      deps.metrics?.scheduledRunOutcome({ outcome: 'skipped', reason });
      return { outcome: 'skipped', reason, message };
    };
    const suite = await suites.find(suiteId);
    // Deleting a suite deletes its schedule; an action already under way when that happened ends here.
    if (!suite) return await skipped('SUITE_NOT_FOUND', `suite ${suiteId} does not exist`, false);
    if (suite.deletedAt) return await skipped('SUITE_DELETED', `suite ${suiteId} was deleted`, false);
    try {
      const { run, suiteName, iterations } = await createEvalRun(
        deps,
        { organizationId: suite.organizationId, projectId: suite.projectId, source: 'schedule', createdByKeyId: null },
        { suiteId },
      );
      const labels = {
        id: run.id,
        organizationId: run.organizationId,
        projectId: run.projectId,
        suiteId: run.suiteId,
        source: run.source,
      };
      if (run.status === 'queued') {
        log.info({ suiteId, runId: run.id, organizationId: run.organizationId }, 'scheduled run queued');
        deps.metrics?.scheduledRunOutcome({ outcome: 'queued' });
        await deps.queue?.promote(run.organizationId);
        return { outcome: 'queued', run: labels };
      }
      log.info({ suiteId, runId: run.id, organizationId: run.organizationId }, 'scheduled run started');
      deps.metrics?.scheduledRunOutcome({ outcome: 'started' });
      return {
        outcome: 'started',
        run: {
          id: run.id,
          organizationId: run.organizationId,
          projectId: run.projectId,
          suiteId: run.suiteId,
          source: run.source,
        },
        about: { suiteName, projectName: suite.projectName, iterations },
      };
    } catch (error) {
      // A refusal is the suite's or the organization's state, which a retry a moment later would not change.
      if (error instanceof OperationFailure) {
        const reason = typeof error.details?.reason === 'string' ? error.details.reason : error.code;
        return await skipped(reason, error.message, true);
      }
      throw error;
    }
  };
}

export type StartScheduledRun = ReturnType<typeof startScheduledRun>;
