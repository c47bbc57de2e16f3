import type { AdaptiveCase } from '../../evals/adaptive.js';
import { decideLook, lookLevels, plannedLooks } from '../../evals/compare/sequential.js';
import type { PlannedIteration } from '../../evals/iteration.js';
import { runnableCases } from '../../evals/plan.js';
import { RunNotFound } from '../../evals/runFailures.js';
import { caseModels } from '../../evals/runSettings.js';
import type { RunSetupStore } from '../../ports/runSetupStore.js';

export interface AdaptiveRoundInput {
  runId: string;
  /** the look after round `look` (0: after the first round) */
  look: number;
}

/**
 * One look of an adaptive run (issue 31), after a round of its iterations has finished: per case still open, its
 * pass counts so far and the baseline's (counted in SQL) go through the sequential test
 * (domain/evals/compare/sequential.ts); a decided case stops, an open one gets the next round's iterations, planned
 * as pending rows. Answers the new iterations (none: every case is decided, or the run is no longer running).
 * Idempotent: a retried look decides on the same counts (the new round has not run) and plans nothing twice (the
 * plan's unique key); a case decided at an earlier look stays decided.
 */
export function adaptiveRound(deps: { setup: RunSetupStore }) {
  return async function adaptiveRound(input: AdaptiveRoundInput): Promise<{ iterationIds: string[] }> {
    return await deps.setup.transaction(async (tx) => {
      const run = await tx.lockRun(input.runId);
      if (!run) throw new RunNotFound(input.runId);
      if (run.status !== 'running' || !run.adaptive) return { iterationIds: [] };
      const { design, baselineRunId } = run.adaptive;
      const looks = plannedLooks(design);
      const levels = lookLevels(design);
      const [suite, cases, current, base] = await Promise.all([
        tx.suite(run.projectId, run.suiteId, { includeDeleted: true }),
        tx.cases(run.suiteId),
        tx.casePassCounts(run.id),
        tx.casePassCounts(baselineRunId),
      ]);
      const currentOf = new Map(current.map((c) => [c.caseId, c]));
      const baseOf = new Map(base.map((c) => [c.caseId, c]));
      const before = new Map((run.adaptive.cases ?? []).map((c) => [c.caseId, c]));
      const planned: PlannedIteration[] = [];
      const decided: AdaptiveCase[] = [];
      const live = runnableCases(cases);
      for (const c of live) {
        const prior = before.get(c.id);
        // A case written to the suite after the run was planned is not the run's: it has no first round.
        if (!prior && !currentOf.has(c.id)) continue;
        if (prior && prior.stopReason !== null && prior.look < input.look) {
          decided.push(prior);
          continue;
        }
        const counts = currentOf.get(c.id) ?? { passed: 0, total: 0 };
        const baseline = baseOf.get(c.id);
        const look = Math.min(input.look, looks.length - 1);
        const spent = looks[look];
        if (!baseline || baseline.total === 0) {
          decided.push({
            caseId: c.id,
            title: c.title,
            iterations: spent,
            look,
            stopReason: 'no_baseline',
            pValue: null,
            level: null,
          });
          continue;
        }
        const d = decideLook(design, look, counts, baseline, levels);
        const stopReason = d.decision === 'continue' ? null : d.decision;
        decided.push({
          caseId: c.id,
          title: c.title,
          iterations: d.decision === 'continue' ? spent + d.more : spent,
          look,
          stopReason,
          pValue: d.pValue,
          level: d.level,
        });
        if (d.decision !== 'continue') continue;
        const models = caseModels(c, suite!);
        for (let n = spent + 1; n <= spent + d.more; n++) {
          models.forEach((m, modelIndex) =>
            planned.push({
              caseId: c.id,
              title: c.title,
              query: c.query,
              iterationNumber: n,
              modelIndex,
              model: m.model,
              provider: m.provider,
              expectedToolCalls: c.expectedToolCalls,
              isNegativeTest: c.isNegativeTest,
            }),
          );
        }
      }
      // A case deleted from the suite meanwhile gets no more rounds; what its looks said is kept.
      const liveIds = new Set(live.map((c) => c.id));
      for (const c of before.values()) if (!liveIds.has(c.caseId)) decided.push(c);
      await tx.recordAdaptiveCases(run.id, decided);
      if (planned.length === 0) return { iterationIds: [] };
      const rows = await tx.planIterations(run.id, planned);
      return { iterationIds: rows.filter((r) => r.status === 'pending').map((r) => r.id) };
    });
  };
}

export type AdaptiveRound = ReturnType<typeof adaptiveRound>;
