import { z } from 'zod';
import type { CompareRuns } from '../../domain/useCases/runs/compareRuns.js';
import { defineRoute } from '../route.js';
import { compareQuery, comparisonSchema, modelComparisonSchema } from '../schemas/compare.js';
import { runParams } from '../schemas/evals.js';

export function evalRunCompareRoutes({ compareRuns }: { compareRuns: CompareRuns }) {
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
        return await compareRuns({ principal, ...params, ...query });
      },
    }),
  ];
}
