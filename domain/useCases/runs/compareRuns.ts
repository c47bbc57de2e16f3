import { requireVisibleProject } from '../../access/visibleProject.js';
import { compareSides, type Comparison } from '../../evals/compare/compare.js';
import { modelChoices, type ModelChoice } from '../../evals/compare/modelChoices.js';
import { notFound, refused } from '../../failures.js';
import type { ModelFilter, RunStore } from '../../ports/runStore.js';
import type { Principal } from '../../principal.js';
import type { Run } from '../../evals/run.js';
import { runDrift, verdictWithDrift, type Drift } from '../../evals/compare/drift.js';
import type { DriftReads } from '../../ports/surfaceStore.js';

/** How many of the most frequent confusions (expected A, called B) each side reports. */
const CONFUSIONS = 10;
/** by=model compares every model against the base one; a run names few, and each costs four grouped queries. */
export const MAX_MODELS = 20;

/** One side of a comparison: a run, or one model of it. */
export interface ComparedSide {
  runId: string;
  runNumber: number;
  suiteId: string;
  status: Run['status'];
  source: string;
  model?: string | null;
}

export type RunComparison = { by: 'run'; base: ComparedSide; current: ComparedSide; drift?: Drift } & Omit<
  Comparison,
  'cases'
> & { cases: (Comparison['cases'][number] & { toolDrift?: string[] })[] };

export interface ModelComparison {
  by: 'model';
  runId: string;
  baseModel: string | null;
  models: (string | null)[];
  comparisons: ({ by: 'model'; base: ComparedSide; current: ComparedSide } & Comparison)[];
  /** with a margin: every model, the base first, and which one to pick (modelChoices.ts) */
  margin?: number;
  choices?: ModelChoice[];
  cheapestNonInferior?: string | null;
  cheapestBy?: 'cost' | 'tokens';
}

export interface CompareInput {
  principal: Principal;
  projectId: string;
  runId: string;
  by?: 'run' | 'model';
  baseRunId?: string;
  baseModel?: string;
  /** non-inferiority margin (a rate in 0..1) */
  margin?: number;
}

/**
 * A run against a base run (by default the suite's previous completed run), or its models against one another
 * (by=model): per case, Fisher's exact test on the pass/fail counts, significance after Benjamini-Hochberg
 * (domain/evals/compare). Every side is counted in storage (RunStore.sideAggregates).
 */
export function compareRuns(deps: { runs: RunStore; surfaces?: DriftReads }) {
  const { runs } = deps;
  const side = (run: Run, model?: ModelFilter): ComparedSide => ({
    runId: run.id,
    runNumber: run.runNumber,
    suiteId: run.suiteId,
    status: run.status,
    source: run.source,
    ...(model !== undefined && { model }),
  });
  const aggregates = (run: Run, model: ModelFilter) => runs.sideAggregates(run.id, model, { confusions: CONFUSIONS });

  return async function compareRuns(input: CompareInput): Promise<RunComparison | ModelComparison> {
    const project = await requireVisibleProject(runs, input.principal, input.projectId);
    const run = await runs.find(project.id, input.runId);
    if (!run) throw notFound('eval run', { runId: input.runId });

    if (input.by === 'model') {
      if (input.baseRunId !== undefined) {
        throw refused('by=model compares the models of one run; leave out baseRunId', { field: 'baseRunId' });
      }
      const models = await runs.models(run.id);
      if (models.length > MAX_MODELS) {
        throw refused(`the run has ${models.length} models; by=model compares at most ${MAX_MODELS}`, {
          limit: MAX_MODELS,
        });
      }
      const baseModel = input.baseModel ?? models[0] ?? null;
      if (input.baseModel !== undefined && !models.includes(input.baseModel)) {
        throw refused(`no iteration of this run used the model \`${input.baseModel}\``, {
          field: 'baseModel',
          models,
        });
      }
      const others = models.filter((m) => m !== baseModel);
      const [base, ...rest] = await Promise.all([aggregates(run, baseModel), ...others.map((m) => aggregates(run, m))]);
      const comparisons = others.map((model, i) => ({
        by: 'model' as const,
        base: side(run, baseModel),
        current: side(run, model),
        ...compareSides(base, rest[i], { margin: input.margin }),
      }));
      return {
        by: 'model',
        runId: run.id,
        baseModel,
        models,
        comparisons,
        ...(input.margin !== undefined && {
          margin: input.margin,
          ...modelChoices(
            { model: baseModel, performance: base.performance },
            comparisons.map((c, i) => ({
              model: others[i],
              performance: rest[i].performance,
              nonInferiority: c.nonInferiority!,
            })),
          ),
        }),
      };
    }

    if (input.baseModel !== undefined) {
      throw refused('baseModel goes with by=model', { field: 'baseModel' });
    }
    const baseRun = input.baseRunId ? await runs.find(project.id, input.baseRunId) : await runs.previousCompleted(run);
    if (!baseRun) {
      throw input.baseRunId
        ? notFound('base run', { baseRunId: input.baseRunId })
        : notFound('base run', { reason: 'NO_PREVIOUS_RUN', suiteId: run.suiteId, runNumber: run.runNumber });
    }
    const [base, current, drifted] = await Promise.all([
      aggregates(baseRun, undefined),
      aggregates(run, undefined),
      deps.surfaces ? runDrift(deps.surfaces, baseRun.id, run.id) : Promise.resolve(undefined),
    ]);
    const compared = compareSides(base, current, { margin: input.margin });
    if (!drifted) return { by: 'run', base: side(baseRun), current: side(run), ...compared };
    const { drift, caseDrift } = drifted;
    return {
      by: 'run',
      base: side(baseRun),
      current: side(run),
      ...compared,
      suite: { ...compared.suite, verdictReason: verdictWithDrift(compared.suite.verdictReason, drift) },
      cases: compared.cases.map((c) => {
        const toolDrift = caseDrift(c);
        return toolDrift.length > 0 ? { ...c, toolDrift } : c;
      }),
      drift,
    };
  };
}

export type CompareRuns = ReturnType<typeof compareRuns>;
