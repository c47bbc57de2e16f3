import { checkExpectedTools } from '../../domain/evals/expectedTools.js';
import type { Sql } from '../../db/connection.js';
import { listSuiteRuns, runsProgress, type Run } from '../../db/evalRuns.js';
import { createSuite, deleteSuite, listSuitesWithStats, updateSuite, upsertCases } from '../../db/evalSuites.js';
import { findHost } from '../../db/hosts.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { notFound, validationError } from '../errors.js';
import { runVerdict, toEvalRun } from '../evalViews.js';
import { scheduleSummary } from '../scheduleView.js';
import { defineRoute } from '../route.js';
import { requireServers, requireServerSelection } from '../../domain/evals/serverSelection.js';
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
import { requireSuite } from '../../domain/access/suite.js';
import { loadSuiteDetail } from '../suiteViews.js';

/** What a user has to do about a run that keeps its suite from being deleted. */
const howToEnd = (run: Run) =>
  run.source === 'api'
    ? `cancel it (POST /eval-runs/${run.id}/cancel) or wait for it to finish`
    : `finalize it (eval-ingest/runs/finalize with runId ${run.id})`;

export function evalSuiteRoutes({ sql, box, mcp, reconciler, schedules, log, config }: RouteDeps) {
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
      response: suiteCreatedSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const project = await requireProject(sql, principal, params.projectId);
        const servers = await requireServers(sql, box, project.id, body.serverIds);
        if (body.hostId && !(await findHost(sql, project.id, body.hostId)))
          throw notFound('host', { hostId: body.hostId });
        // Expected tools no server has are worth a warning, never a refusal; checked while the suite is written.
        const checked = checkExpectedTools(
          mcp,
          servers,
          body.tests.map((t) => ({ title: t.title, expectedToolCalls: t.expectedToolCalls })),
        );
        const created = await (sql as Sql).begin(async (tx) => {
          const suite = await createSuite(tx, {
            projectId: project.id,
            name: body.name,
            description: body.description,
            serverIds: servers.map((s) => s.id),
            defaultModel: body.model,
            defaultModels: body.models,
            defaultBudget: body.budget,
            passCriteria: body.passCriteria,
            source: 'api',
            hostId: body.hostId,
            iterationIsolation: body.isolation,
            judgeModel: body.judgeModel,
          });
          const caseUpsert = await upsertCases(
            tx,
            suite.id,
            body.tests.map((t) => ({ ...t, provider: t.provider ?? body.provider })),
          );
          // As in the real product: a new suite none of whose cases could be saved is not kept.
          if (caseUpsert.committed.length === 0)
            throw validationError('none of the tests could be saved, so no suite was created: see details.failed', {
              failed: caseUpsert.failed,
            });
          return {
            suiteId: suite.id,
            name: suite.name,
            servers: servers.map((s) => ({ id: s.id, name: s.name })),
            caseUpsert,
          };
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
            schedule: scheduleSummary(s, config.SCHEDULE_MINUTE_MS),
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
        // The suite is read once, with its schedule state (requireSuite and then the detail would read it twice).
        const project = await requireProject(sql, principal, params.projectId);
        return await loadSuiteDetail(sql, project.id, params.suiteId);
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
        const suite = await requireSuite(sql, principal, params);
        const servers = body.serverIds ? await requireServerSelection(sql, suite.projectId, body.serverIds) : undefined;
        if (body.hostId && !(await findHost(sql, suite.projectId, body.hostId)))
          throw notFound('host', { hostId: body.hostId });
        const updated = await updateSuite(sql, suite.projectId, suite.id, {
          name: body.name,
          description: body.description === null ? '' : body.description,
          serverIds: servers?.map((s) => s.id),
          defaultModel: body.model,
          defaultModels: body.models,
          defaultBudget: body.budget,
          passCriteria: body.passCriteria,
          hostId: body.hostId,
          iterationIsolation: body.isolation,
          judgeModel: body.judgeModel,
        });
        if (!updated) throw notFound('eval suite', { suiteId: params.suiteId });
        const detail = await loadSuiteDetail(sql, updated.projectId, updated.id);
        // A renamed suite's schedule is told its new name (its note and memo in Temporal Web UI); cosmetic, so a
        // Temporal that cannot be reached now leaves the old name there rather than failing the edit.
        if (body.name !== undefined && body.name !== suite.name && detail.schedule.intervalMinutes !== null) {
          await schedules
            .apply({
              suiteId: suite.id,
              suiteName: updated.name,
              projectId: suite.projectId,
              organizationId: principal.organizationId,
              enabled: detail.schedule.enabled,
              intervalMinutes: detail.schedule.intervalMinutes,
            })
            .catch((error: unknown) =>
              log.warn({ err: error, suiteId: suite.id }, 'could not rename the suite in its Temporal Schedule'),
            );
        }
        return detail;
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
        const suite = await requireSuite(sql, principal, params);
        const remove = () =>
          (sql as Sql).begin(async (tx) => {
            const outcome = await deleteSuite(tx, suite.projectId, suite.id);
            // Its Temporal Schedule goes before the deletion commits: a deleted suite never keeps a schedule firing.
            if (outcome?.deleted) await schedules.remove(suite.id);
            return outcome;
          });
        let outcome = await remove();
        if (outcome && !outcome.deleted) {
          // A run whose workflow already closed in Temporal (terminated in Web UI) is ended now rather than refusing.
          const runs = await Promise.all(outcome.running.map((run) => reconciler.reconcile(run, 'delete')));
          if (runs.some((run) => run.status !== 'running')) outcome = await remove();
        }
        if (!outcome) throw notFound('eval suite', { suiteId: params.suiteId });
        if (!outcome.deleted) {
          const [first] = outcome.running;
          throw validationError(
            `suite ${suite.id} has ${outcome.running.length === 1 ? 'a running run' : `${outcome.running.length} running runs`} (${outcome.running.map((r) => r.id).join(', ')}): ${howToEnd(first)}, then delete the suite`,
            { reason: 'SUITE_HAS_RUNNING_RUNS', suiteId: suite.id, runIds: outcome.running.map((r) => r.id) },
          );
        }
        return { id: suite.id, deleted: true as const };
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
        const suite = await requireSuite(sql, principal, params);
        const runs = await listSuiteRuns(sql, suite.id, query.limit);
        // Every run's progress in one query, not one per run.
        const progress = await runsProgress(
          sql,
          runs.map((run) => run.id),
        );
        return { items: runs.map((run) => toEvalRun(run, progress.get(run.id)!)) };
      },
    }),
  ];
}
