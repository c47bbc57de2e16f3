import type { AnalyzeRunTools } from '../../domain/useCases/runs/analyzeRunTools.js';
import { defineRoute } from '../route.js';
import { runParams } from '../schemas/evals.js';
import { toolAnalysisSchema } from '../schemas/toolAnalysis.js';

export function evalRunToolRoutes({ analyzeRunTools }: { analyzeRunTools: AnalyzeRunTools }) {
  return [
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-runs/:runId/tools',
      tag: 'Evals',
      summary: "A run's tool analysis: precision, recall and F1 per tool, confusions, coverage",
      description:
        "Over the run's finished iterations (a running run's so far), from their expected and actual tool calls, scored as GET /eval-runs/{runId}/compare scores each side. " +
        'A call counts as a true positive when an expected call of the same tool in the same iteration accounts for it; a negative test expects no call.',
      params: runParams,
      response: toolAnalysisSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        return await analyzeRunTools({ principal, ...params });
      },
    }),
  ];
}
