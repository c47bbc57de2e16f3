import { checkExpectedTools } from '../../activities/evals/expectedTools.js';
import type { Sql } from '../../db/connection.js';
import { listSuiteRuns, runProgress } from '../../db/evalRuns.js';
import { findOrCreateSuite, findSuite, listSuitesWithStats, upsertCases } from '../../db/evalSuites.js';
import { findHost } from '../../db/hosts.js';
import { requireProject } from '../access.js';
import type { RouteDeps } from '../app.js';
import { ApiError, notFound } from '../errors.js';
import { toEvalRun } from '../evalViews.js';
import { defineRoute } from '../route.js';
import { requireServers } from '../serverSelection.js';
import { collection, projectParams } from '../schemas/common.js';
import { createSuiteBody, evalRunSchema, suiteCreatedSchema, suiteListItem, suiteParams, suiteRunsQuery } from '../schemas/evals.js';

export function evalSuiteRoutes({ sql, box, mcp }: RouteDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/eval-suites',
      tag: 'Evals',
      summary: 'Author an eval suite (nothing is run)',
      params: projectParams,
      body: createSuiteBody,
      status: 201,
      response: suiteCreatedSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT'],
      async handler({ principal, params, body }) {
        const project = await requireProject(sql, principal, params.projectId);
        const servers = body.serverIds ? await requireServers(sql, box, project.id, body.serverIds) : [];
        if (body.hostId && !(await findHost(sql, project.id, body.hostId))) throw notFound('host', { hostId: body.hostId });
        // Expected tools no server has are worth a warning, never a refusal; checked while the suite is written.
        const checked = checkExpectedTools(mcp, servers, body.tests.map((t) => ({ title: t.title, expectedToolCalls: t.expectedToolCalls })));
        const created = await (sql as Sql).begin(async (tx) => {
          const { suite, created } = await findOrCreateSuite(tx, {
            projectId: project.id,
            name: body.name,
            description: body.description,
            serverIds: servers.map((s) => s.id),
            defaultModel: body.model,
            passCriteria: body.passCriteria,
            source: 'api',
            hostId: body.hostId,
          });
          if (!created) throw new ApiError('CONFLICT', `a suite named "${body.name}" already exists in this project`, { suiteId: suite.id });
          const caseUpsert = await upsertCases(tx, suite.id, body.tests.map((t) => ({ ...t, provider: t.provider ?? body.provider })));
          return { suiteId: suite.id, name: suite.name, servers: servers.map((s) => ({ id: s.id, name: s.name })), caseUpsert };
        });
        const warnings = await checked;
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
        const project = await requireProject(sql, principal, params.projectId);
        const rows = await listSuitesWithStats(sql, project.id);
        return {
          items: rows.map((s) => ({
            id: s.id,
            name: s.name,
            description: s.description,
            projectId: s.project_id,
            serverIds: s.server_ids,
            hostId: s.host_id,
            createdAt: s.created_at.getTime(),
            updatedAt: s.updated_at.getTime(),
            latestRun: s.latest_run && {
              id: s.latest_run.id,
              status: s.latest_run.status,
              result: s.latest_run.result,
              passRate: s.latest_run.summary?.passRate ?? null,
              passed: s.latest_run.summary?.passed ?? 0,
              failed: s.latest_run.summary?.failed ?? 0,
              createdAt: Date.parse(s.latest_run.created_at),
            },
            totals: { runs: s.runs, passed: s.runs_passed, failed: s.runs_failed },
            passRateTrend: s.trend,
          })),
        };
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
        const project = await requireProject(sql, principal, params.projectId);
        if (!(await findSuite(sql, project.id, params.suiteId))) throw notFound('eval suite', { suiteId: params.suiteId });
        const runs = await listSuiteRuns(sql, params.suiteId, query.limit);
        return { items: await Promise.all(runs.map(async (run) => toEvalRun(run, await runProgress(sql, run.id)))) };
      },
    }),
  ];
}
