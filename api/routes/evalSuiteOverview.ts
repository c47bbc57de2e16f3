import { listSuiteRuns, runsProgress } from '../../db/evalRuns.js';
import { caseRunTallies, listCaseHeadings } from '../../db/evalSuites.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { toEvalRun } from '../evalViews.js';
import { defineRoute } from '../route.js';
import { suiteParams } from '../schemas/evals.js';
import { suiteOverviewQuery, suiteOverviewSchema } from '../schemas/suiteOverview.js';
import { loadSuiteDetail } from '../suiteViews.js';

export function evalSuiteOverviewRoutes({ sql, cursors }: RouteDeps) {
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
        const project = await requireProject(sql, principal, params.projectId);
        // The detail is read first: it is the 404 for a suite that is not the project's (or deleted).
        const suite = await loadSuiteDetail(sql, project.id, params.suiteId);
        const scope = `overview-cases:${suite.id}`;
        const after = query.casesCursor === undefined ? undefined : cursors.decode<string>(scope, query.casesCursor);
        const [runs, headings] = await Promise.all([
          listSuiteRuns(sql, suite.id, query.limit),
          listCaseHeadings(sql, suite.id, after, query.casesLimit + 1),
        ]);
        const cases = headings.slice(0, query.casesLimit);
        const runIds = runs.map((r) => r.id);
        const [progress, tallies] = await Promise.all([
          runsProgress(sql, runIds),
          caseRunTallies(
            sql,
            runIds,
            cases.map((c) => c.id),
          ),
        ]);
        const tally = new Map(tallies.map((t) => [`${t.caseId}\u0000${t.runId}`, t]));
        const oldestFirst = runIds.toReversed();
        return {
          suite,
          runs: runs.map((run) => toEvalRun(run, progress.get(run.id)!)),
          cases: cases.map((c) => ({
            id: c.id,
            title: c.title,
            history: oldestFirst.map((runId) => {
              const t = tally.get(`${c.id}\u0000${runId}`);
              return { runId, passRate: t && t.finished > 0 ? t.passed / t.finished : null };
            }),
          })),
          ...(headings.length > query.casesLimit ? { casesNextCursor: cursors.encode(scope, cases.at(-1)!.id) } : {}),
        };
      },
    }),
  ];
}
