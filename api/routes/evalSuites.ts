import type { CreateSuite } from '../../domain/useCases/suites/createSuite.js';
import type { DeleteSuite } from '../../domain/useCases/suites/deleteSuite.js';
import type { EditSuite } from '../../domain/useCases/suites/editSuite.js';
import type { GetSuite } from '../../domain/useCases/suites/getSuite.js';
import type { ListSuiteRuns } from '../../domain/useCases/suites/listSuiteRuns.js';
import type { ListSuites } from '../../domain/useCases/suites/listSuites.js';
import { runVerdict, toEvalRun } from '../evalViews.js';
import { scheduleSummary } from '../scheduleView.js';
import { defineRoute } from '../route.js';
import { collection, projectParams } from '../schemas/common.js';
import {
  createSuiteBody,
  evalRunSchema,
  suiteCreatedSchema,
  suiteListItem,
  suiteParams,
  suiteRunsQuery,
} from '../schemas/evals.js';
import { suiteDeletedSchema, suiteDetailSchema, updateSuiteBody } from '../schemas/suites.js';
import { suiteDetailView } from '../suiteViews.js';

export function evalSuiteRoutes(deps: {
  createSuite: CreateSuite;
  listSuites: ListSuites;
  getSuite: GetSuite;
  editSuite: EditSuite;
  deleteSuite: DeleteSuite;
  listSuiteRuns: ListSuiteRuns;
  /** how long a schedule's minute is (SCHEDULE_MINUTE_MS): the list's next due times follow from it */
  scheduleMinuteMs: number;
}) {
  return [
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/eval-suites',
      tag: 'Evals',
      summary: 'Author an eval suite (nothing is run)',
      description: 'Suite names need not be unique: a name in use makes another suite.',
      params: projectParams,
      body: createSuiteBody,
      status: 201,
      idempotent: true,
      response: suiteCreatedSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const { warnings, ...created } = await deps.createSuite({
          principal,
          projectId: params.projectId,
          suite: body,
        });
        return { ...created, ...(warnings.length > 0 && { warnings }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-suites',
      tag: 'Evals',
      summary: 'Eval suites with their latest run, totals and pass-rate trend',
      params: projectParams,
      response: collection(suiteListItem),
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        const rows = await deps.listSuites({ principal, projectId: params.projectId });
        return {
          items: rows.map((s) => ({
            id: s.id,
            name: s.name,
            description: s.description,
            projectId: s.projectId,
            serverIds: s.serverIds,
            hostId: s.hostId,
            createdAt: s.createdAt.getTime(),
            updatedAt: s.updatedAt.getTime(),
            latestRun: s.latestRun && {
              id: s.latestRun.id,
              status: s.latestRun.status,
              result: runVerdict(s.latestRun.result),
              passRate: s.latestRun.summary?.passRate ?? null,
              passed: s.latestRun.summary?.passed ?? 0,
              failed: s.latestRun.summary?.failed ?? 0,
              errored: s.latestRun.summary?.errored ?? 0,
              createdAt: Date.parse(s.latestRun.createdAt),
            },
            totals: { runs: s.runs, passed: s.runsPassed, failed: s.runsFailed },
            passRateTrend: s.trend,
            sources: s.sources,
            schedule: scheduleSummary(s, deps.scheduleMinuteMs),
          })),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-suites/:suiteId',
      tag: 'Evals',
      summary: 'One suite: servers, default model, pass criteria, host and schedule',
      params: suiteParams,
      response: suiteDetailSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        return suiteDetailView(await deps.getSuite({ principal, ...params }));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/projects/:projectId/eval-suites/:suiteId',
      tag: 'Evals',
      summary:
        'Edit a suite: name, description, servers, default model, judge model, pass criteria, host (runs started later use them)',
      params: suiteParams,
      body: updateSuiteBody,
      response: suiteDetailSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        return suiteDetailView(await deps.editSuite({ principal, ...params, changes: body }));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/projects/:projectId/eval-suites/:suiteId',
      tag: 'Evals',
      summary: 'Delete a suite; its past runs stay readable',
      description:
        'The suite and its cases leave every suite read (404 from then on) and it can no longer be run; its runs, iterations and traces stay readable by run id. ' +
        'A suite with a running run is refused (400, details.reason SUITE_HAS_RUNNING_RUNS): cancel or finalize the run first.',
      params: suiteParams,
      response: suiteDeletedSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params }) {
        const { id } = await deps.deleteSuite({ principal, ...params });
        return { id, deleted: true as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-suites/:suiteId/runs',
      tag: 'Evals',
      summary: 'Recent runs of a suite, newest first',
      params: suiteParams,
      query: suiteRunsQuery,
      response: collection(evalRunSchema),
      errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
      async handler({ principal, params, query }) {
        const runs = await deps.listSuiteRuns({ principal, ...params, limit: query.limit });
        return { items: runs.map(({ run, progress }) => toEvalRun(run, progress)) };
      },
    }),
  ];
}
