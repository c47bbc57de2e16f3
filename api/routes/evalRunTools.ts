import { sideAggregates } from '../../db/evalCompare.js';
import { findRun } from '../../db/evalRuns.js';
import { analyzeTools } from '../../domain/evals/compare/tools.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { notFound } from '../errors.js';
import { defineRoute } from '../route.js';
import { runParams } from '../schemas/evals.js';
import { toolAnalysisSchema } from '../schemas/toolAnalysis.js';

/** How many of the most frequent confusions the analysis reports (as a comparison's side does). */
const CONFUSIONS = 10;

export function evalRunToolRoutes({ sql }: RouteDeps) {
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
        const project = await requireProject(sql, principal, params.projectId);
        const run = await findRun(sql, project.id, params.runId);
        if (!run) throw notFound('eval run', { runId: params.runId });
        return analyzeTools(await sideAggregates(sql, run.id, undefined, { confusions: CONFUSIONS }));
      },
    }),
  ];
}
