import { requireRunOf } from '../../access/run.js';
import { notFound, OperationFailure, refused } from '../../failures.js';
import { initialBatchSize } from '../../evals/initialBatchSize.js';
import { runConcurrency } from '../../evals/runSettings.js';
import { holdRunSlot, withinRunCap, type RunCap } from '../../evals/runCap.js';
import { isExecuted, type Run, type SkippedCase } from '../../evals/run.js';
import type { RunStore } from '../../ports/runStore.js';
import type { RunSetupStore } from '../../ports/runSetupStore.js';
import type { RunWorkflows } from '../../ports/runWorkflows.js';
import type { FinalizeRun } from './finalizeRun.js';
import { launchRun } from './launchRun.js';
import type { Principal } from '../../principal.js';

export interface RegradeRunDeps extends RunCap {
  runs: Pick<RunStore, 'visibleProject' | 'find'>;
  setup: RunSetupStore;
  workflows: Pick<RunWorkflows, 'start'>;
  finalizeRun: FinalizeRun;
  /** batches in flight when the organization sets no ceiling (the worker's default) */
  defaultConcurrency: number;
}

export interface RegradedRun {
  run: Run;
  /** iterations graded again (the original's errored ones are copied as errored, not counted here) */
  iterations: number;
  skipped: SkippedCase[];
}

/**
 * POST /eval-runs/{runId}/regrade (issue 31): a new run (source `regrade`, `regradeOf` the original) that grades the
 * original's recorded conversations again with the suite's current expectations, output checks and judge, without
 * calling the run's models or servers (domain/evals/regrade.ts). Its iterations are written with the run (copies of
 * the original's, with their traces) and its workflow started with them as its plan, as POST /eval-runs does; a
 * workflow that cannot be started ends it as failed. Cases deleted since, or whose prompts changed, are left out
 * and named (`skipped`). Refused: a run still running, an ingested run, a run whose suite was deleted, a run with no
 * recorded conversation.
 */
export function regradeRun(deps: RegradeRunDeps) {
  return async function regradeRun(input: {
    principal: Principal;
    projectId: string;
    runId: string;
  }): Promise<RegradedRun> {
    const { project, run: original } = await requireRunOf(deps.runs, input.principal, input);
    if (original.status === 'running' || original.status === 'queued')
      throw new OperationFailure(
        'CONFLICT',
        'the run is still running; re-grade it once it has ended (completed, failed or cancelled)',
        { status: original.status, reason: 'RUN_NOT_FINISHED' },
      );
    if (!isExecuted(original))
      throw refused(
        'an ingested run cannot be re-graded: its reporter sent verdicts, not the conversations Runway records for the runs it executes',
        { runId: original.id, source: original.source, reason: 'NO_RECORDED_CONVERSATIONS' },
      );
    const suite = await deps.setup.suite(original.projectId, original.suiteId);
    if (!suite)
      throw notFound('eval suite', {
        suiteId: original.suiteId,
        reason: 'SUITE_DELETED',
        message: "the run's suite was deleted: there are no expectations to grade it with",
      });
    const { recorded } = await deps.setup.countRecorded(original.id);
    if (recorded === 0)
      throw refused('the run recorded no graded conversation to grade again (none of its iterations completed)', {
        runId: original.id,
        reason: 'NO_RECORDED_CONVERSATIONS',
      });
    const skipped = await deps.setup.skippedCases(original.id);
    const limits = await deps.setup.organizationLimits(original.organizationId);

    const create = () =>
      deps.setup.transaction(async (tx) => {
        await holdRunSlot(tx, deps, original.organizationId);
        // The suite's row lock: a suite deleted meanwhile gets no run.
        if (!(await tx.lockLiveSuite(original.suiteId)))
          throw notFound('eval suite', { suiteId: original.suiteId, reason: 'SUITE_DELETED' });
        const run = await tx.createRun({
          suiteId: original.suiteId,
          projectId: original.projectId,
          organizationId: original.organizationId,
          source: 'regrade',
          notes: `re-grade of run ${original.runNumber} (${original.id})`,
          passCriteria: suite.passCriteria,
          serverIds: original.serverIds,
          iterationOverride: original.iterationOverride,
          createdByKeyId: input.principal.keyId,
          hostId: original.hostId,
          clientProfile: original.clientProfile,
          iterationIsolation: original.iterationIsolation,
          concurrency: original.concurrency,
          regradeOf: original.id,
          regradeSkipped: skipped,
        });
        const iterationIds = await tx.copyRecordedIterations(original.id, run.id);
        await tx.markStarted(run.id);
        return { run, iterationIds };
      });
    const { run, iterationIds } = await withinRunCap(deps, original.organizationId, create);
    const concurrency = runConcurrency(run, deps.defaultConcurrency, limits);
    await launchRun(
      deps,
      run,
      { suiteName: suite.name, projectName: project.name, iterations: iterationIds.length },
      { iterationIds, batchSize: initialBatchSize(iterationIds.length, concurrency), concurrency },
    );
    return { run, iterations: iterationIds.length, skipped };
  };
}

export type RegradeRun = ReturnType<typeof regradeRun>;
