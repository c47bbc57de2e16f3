import { initialBatchSize } from './initialBatchSize.js';
import { formatCount, limits } from '../limits.js';
import type { RunSetupStore } from '../ports/runSetupStore.js';
import { RunNotFound, TooManyIterations } from './runFailures.js';
import { caseModels, runConcurrency } from './runSettings.js';
import type { PlannedIteration } from './iteration.js';
import type { RunBudget } from './run.js';

/** Why a run leaves a case of its suite out: ingest created it, and it holds reported results only. */
export const INGESTED_RESULTS_ONLY = 'INGESTED_RESULTS_ONLY';

/**
 * The cases a run of the suite plans: all but the ones ingest created. Those hold results reported from elsewhere
 * (a JUnit testcase, an SDK reporter's result): what they name as a prompt (a classname) and a model (often none)
 * is no case a run could execute, and one of them must never make a runnable suite refuse to run.
 */
export function runnableCases<C extends { ingested: boolean }>(cases: readonly C[]): C[] {
  return cases.filter((c) => !c.ingested);
}

export interface RunPlan {
  iterationIds: string[];
  /** iterations of each of the first batches (initialBatchSize); the workflow sizes later ones by how long iterations take */
  batchSize: number;
  /** batches in flight at once: the run's concurrency, else the worker's default, never above the organization's ceiling */
  concurrency: number;
  /** what the run may spend (absent: no budget); the workflow stops scheduling iterations once it is spent */
  budget?: RunBudget;
  /**
   * an adaptive run (issue 31): after its planned iterations, the workflow asks adaptiveRound for more rounds. Absent
   * in the plans of runs started before adaptive runs (their histories replay without the extra activity).
   */
  adaptive?: true;
}

/**
 * Every case × its runs (or the run's iterationOverride) × its models, written once as pending iterations, the
 * models of one run of a case side by side (so that a budget spent half-way has compared them on the same runs). A run is planned
 * once, while it runs: a retried plan, or one re-executed by a workflow reset in Temporal Web UI, finds the plan
 * (or the run already ended) and adds nothing, even when the suite gained cases since. In the caller's transaction,
 * when `setup` is bound to one (a run created with its plan), else in one of its own.
 */
export async function planRun(setup: RunSetupStore, runId: string, options: { concurrency: number }): Promise<RunPlan> {
  // The run row is locked while planning, so a run ended meanwhile (finalizeRun) gets no new iterations.
  const { rows, run } = await setup.transaction(async (tx) => {
    const run = await tx.lockRun(runId);
    if (!run) throw new RunNotFound(runId);
    if (run.status !== 'running' || run.startedAt !== null) return { rows: await tx.planIterations(runId, []), run };
    // A run's suite cannot be deleted while the run is running, but its record is read whatever happens to it.
    // Both reads go out together (pipelined on the transaction's connection).
    const [suite, cases] = await Promise.all([
      tx.suite(run.projectId, run.suiteId, { includeDeleted: true }),
      tx.cases(run.suiteId),
    ]);
    const planned: PlannedIteration[] = runnableCases(cases).flatMap((c) => {
      const models = caseModels(c, suite);
      return Array.from({ length: run.adaptive?.design.firstRound ?? run.iterationOverride ?? c.runs }, (_, i) =>
        models.map((m, modelIndex) => ({
          caseId: c.id,
          title: c.title,
          query: c.query,
          iterationNumber: i + 1,
          modelIndex,
          model: m.model,
          provider: m.provider,
          expectedToolCalls: c.expectedToolCalls,
          isNegativeTest: c.isNegativeTest,
        })),
      ).flat();
    });
    if (planned.length > limits.iterationsPerRun) {
      // POST /eval-runs checked the bound, but the suite grew since (its cases were written meanwhile): the run fails
      // here, with nothing planned, rather than run past it. Retrying could not change that.
      throw new TooManyIterations(
        `the suite grew to ${formatCount(planned.length)} iterations after this run was started, past the ${formatCount(limits.iterationsPerRun)} a run may plan`,
      );
    }
    const written = await tx.planIterations(runId, planned);
    await tx.markStarted(runId);
    return { rows: written, run };
  });
  const concurrency = runConcurrency(run, options.concurrency, await setup.organizationLimits(run.organizationId));
  return {
    iterationIds: rows.map((r) => r.id),
    batchSize: initialBatchSize(rows.length, concurrency),
    concurrency,
    ...(run.budget && { budget: run.budget }),
    ...(run.adaptive && { adaptive: true as const }),
  };
}
