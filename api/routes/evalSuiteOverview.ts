import type { GetSuiteOverview } from '../../domain/useCases/suites/getSuiteOverview.js';
import { toEvalRun } from '../evalViews.js';
import { defineRoute } from '../route.js';
import { suiteParams } from '../schemas/evals.js';
import { suiteOverviewQuery, suiteOverviewSchema } from '../schemas/suiteOverview.js';
import { suiteDetailView } from '../suiteViews.js';

export function evalSuiteOverviewRoutes(deps: { getSuiteOverview: GetSuiteOverview }) {
  return [
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-suites/:suiteId/overview',
      tag: 'Evals',
      summary: "A suite at a glance: its detail, its recent runs and each case's pass rate across them",
      description:
        'What a suite page shows, in one request: the suite (as GET /eval-suites/{suiteId}), its runs newest first (as GET /eval-suites/{suiteId}/runs, up to `limit`), ' +
        'and a page of its cases (up to `casesLimit`, oldest first) with their pass rate in each of those runs, oldest first; `casesNextCursor` leads to the next page. ' +
        'A fixed number of statements, whatever the number of runs, and a bounded reply, whatever the number of cases.',
      params: suiteParams,
      query: suiteOverviewQuery,
      response: suiteOverviewSchema,
      errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
      async handler({ principal, params, query }) {
        const overview = await deps.getSuiteOverview({
          principal,
          ...params,
          limit: query.limit,
          casesLimit: query.casesLimit,
          casesCursor: query.casesCursor,
        });
        return {
          suite: suiteDetailView(overview.detail),
          runs: overview.runs.map(({ run, progress }) => toEvalRun(run, progress)),
          cases: overview.cases,
          ...(overview.casesNextCursor !== undefined && { casesNextCursor: overview.casesNextCursor }),
        };
      },
    }),
  ];
}
