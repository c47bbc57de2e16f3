import { previousCompletedRun, runModels, sideAggregates, type ModelFilter } from '../../db/evalCompare.js';
import { findRun, type Run } from '../../db/evalRuns.js';
import { compareSides } from '../../domain/evals/compare/compare.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { ApiError, notFound } from '../errors.js';
import { defineRoute } from '../route.js';
import { compareQuery, comparisonSchema, modelComparisonSchema } from '../schemas/compare.js';
import { runParams } from '../schemas/evals.js';
import { z } from 'zod';

/** How many of the most frequent confusions (expected A, called B) each side reports. */
const CONFUSIONS = 10;
/** by=model compares every model against the base one; a run names few, and each costs four grouped queries. */
const MAX_MODELS = 20;

export function evalRunCompareRoutes({ sql }: RouteDeps) {
  const side = (run: Run, model?: ModelFilter) => ({
    runId: run.id,
    runNumber: run.runNumber,
    suiteId: run.suiteId,
    status: run.status,
    source: run.source,
    ...(model !== undefined && { model }),
  });
  const aggregates = (run: Run, model: ModelFilter) => sideAggregates(sql, run.id, model, { confusions: CONFUSIONS });

  return [
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-runs/:runId/compare',
      tag: 'Evals',
      summary: 'Compare a run with a base run (or its models with one another): regressions vs noise',
      description:
        "Cases are matched by case id, then by title + query. Per case, Fisher's exact test on the pass/fail counts; " +
        'significant = Benjamini-Hochberg adjusted p-value <= 0.05 across the matched cases. ' +
        "The base defaults to the suite's previous completed run (404 NOT_FOUND with details.reason NO_PREVIOUS_RUN when there is none); " +
        'a base run of another suite of the project is allowed (cases then match by title + query). A run still running is compared on its finished iterations (its status says so). ' +
        'by=model compares the models of this run, each against the first one or baseModel; baseRunId is then refused (400).',
      params: runParams,
      query: compareQuery,
      response: z.union([comparisonSchema, modelComparisonSchema]),
      errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
      async handler({ principal, params, query }) {
        const project = await requireProject(sql, principal, params.projectId);
        const run = await findRun(sql, project.id, params.runId);
        if (!run) throw notFound('eval run', { runId: params.runId });

        if (query.by === 'model') {
          if (query.baseRunId !== undefined) {
            throw new ApiError('VALIDATION_ERROR', 'by=model compares the models of one run; leave out baseRunId', {
              field: 'baseRunId',
            });
          }
          const models = await runModels(sql, run.id);
          if (models.length > MAX_MODELS) {
            throw new ApiError(
              'VALIDATION_ERROR',
              `the run has ${models.length} models; by=model compares at most ${MAX_MODELS}`,
              {
                limit: MAX_MODELS,
              },
            );
          }
          const baseModel = query.baseModel ?? models[0] ?? null;
          if (query.baseModel !== undefined && !models.includes(query.baseModel)) {
            throw new ApiError('VALIDATION_ERROR', `no iteration of this run used the model \`${query.baseModel}\``, {
              field: 'baseModel',
              models,
            });
          }
          const others = models.filter((m) => m !== baseModel);
          const [base, ...rest] = await Promise.all([
            aggregates(run, baseModel),
            ...others.map((m) => aggregates(run, m)),
          ]);
          return {
            by: 'model' as const,
            runId: run.id,
            baseModel,
            models,
            comparisons: others.map((model, i) => ({
              by: 'model' as const,
              base: side(run, baseModel),
              current: side(run, model),
              ...compareSides(base, rest[i]),
            })),
          };
        }

        if (query.baseModel !== undefined) {
          throw new ApiError('VALIDATION_ERROR', 'baseModel goes with by=model', { field: 'baseModel' });
        }
        const baseRun = query.baseRunId
          ? await findRun(sql, project.id, query.baseRunId)
          : await previousCompletedRun(sql, run);
        if (!baseRun) {
          throw query.baseRunId
            ? notFound('base run', { baseRunId: query.baseRunId })
            : notFound('base run', { reason: 'NO_PREVIOUS_RUN', suiteId: run.suiteId, runNumber: run.runNumber });
        }
        const [base, current] = await Promise.all([aggregates(baseRun, undefined), aggregates(run, undefined)]);
        return { by: 'run' as const, base: side(baseRun), current: side(run), ...compareSides(base, current) };
      },
    }),
  ];
}
