import type { Principal } from '../../db/accounts.js';
import type { Sql } from '../../db/connection.js';
import { findIteration, findTrace, listIterationPage } from '../../db/evalIterations.js';
import { failRunToStart, findRun, insertRun, lockOrganizationRuns, runProgress, type RunRow } from '../../db/evalRuns.js';
import { createSuite, findSuite, listCases, lockLiveSuite, lockSuiteCases, upsertCases, type SuiteRow } from '../../db/evalSuites.js';
import { findHost } from '../../db/hosts.js';
import { getProviderKeys } from '../../db/providerKeys.js';
import { hostClientProfile } from '../../activities/mcp/index.js';
import { checkExpectedTools } from '../../activities/evals/expectedTools.js';
import { checkPlannedIterations, checkSuiteCases, formatCount, limits } from '../../activities/limits.js';
import { validateRunModels } from '../../activities/models/catalog.js';
import { requireProject } from '../access.js';
import type { RouteDeps } from '../app.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { toEvalRun, toIteration, toTrace } from '../evalViews.js';
import { defineRoute } from '../route.js';
import { requireServers } from '../serverSelection.js';
import { projectParams } from '../schemas/common.js';
import { createRunBody, evalRunSchema, iterationPage, iterationParams, iterationsQuery, runCreatedSchema, runParams, traceSchema } from '../schemas/evals.js';

/** Seconds a client is told to wait when the organization's run cap is reached. */
const CAP_RETRY_AFTER_SECONDS = 10;

/** The cap refused inside the transaction; the handler may first end runs whose workflow already closed. */
class RunCapReached extends Error {
  constructor(readonly active: number) {
    super('concurrent run limit reached');
  }
}

export function evalRunRoutes({ sql, box, config, catalog, runs, reconciler, cursors, mcp }: RouteDeps) {
  // Progress comes from the iteration rows: exact, and one indexed query. Asking the workflow instead (its
  // progress query, still there for operators) measured 34 ms median while a large run was active and slowed the
  // run itself by ~15% (bench/eval-run.ts; docs/PERFORMANCE.md).
  const view = async (run: RunRow) => toEvalRun(run, await runProgress(sql, run.id));
  /** The run a request names, in a project the key may see; 404 otherwise. */
  const requireRun = async (principal: Principal, params: { projectId: string; runId: string }) => {
    const project = await requireProject(sql, principal, params.projectId);
    const run = await findRun(sql, project.id, params.runId);
    if (!run) throw notFound('eval run', { runId: params.runId });
    return run;
  };

  return [
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/eval-runs',
      tag: 'Evals',
      summary: 'Start an eval run (answers 202 at once; poll the run)',
      description:
        'Rerun a suite by suiteId (optionally upserting inline tests first), or create a suite from suiteName + tests + serverIds and run it. ' +
        `A run plans at most ${formatCount(limits.iterationsPerRun)} iterations (each case's runs, or iterationOverride, summed over the suite's cases) and a suite holds at most ${formatCount(limits.casesPerSuite)} cases: ` +
        'past either, 400 VALIDATION_ERROR with details.reason TOO_MANY_ITERATIONS or TOO_MANY_CASES and details.limit, and nothing is written.',
      params: projectParams,
      body: createRunBody,
      status: 202,
      response: runCreatedSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'RATE_LIMITED'],
      async handler({ principal, params, body }) {
        const project = await requireProject(sql, principal, params.projectId);
        let existing: SuiteRow | undefined;
        if (body.suiteId) {
          existing = await findSuite(sql, project.id, body.suiteId);
          if (!existing) throw notFound('eval suite', { suiteId: body.suiteId });
        }
        const serverIds = body.serverIds ?? existing?.server_ids ?? [];
        if (serverIds.length === 0) {
          throw validationError('this suite has no saved server selection; pass serverIds', { suiteId: body.suiteId, reason: 'NO_SAVED_SERVER_SELECTION' });
        }
        const servers = await requireServers(sql, box, project.id, serverIds);
        // The run declares what its host declares, as the host is now (a later edit does not change a running run).
        const hostId = body.hostId ?? existing?.host_id ?? null;
        const host = hostId === null ? undefined : await findHost(sql, project.id, hostId);
        if (hostId !== null && !host) throw notFound('host', { hostId });
        const modelApiKeys = body.modelApiKeys ?? {};
        const orgProviderKeys = await getProviderKeys(sql, box, principal.organizationId);

        const create = () => (sql as Sql).begin(async (tx) => {
          const active = await lockOrganizationRuns(tx, principal.organizationId);
          if (active >= config.MAX_CONCURRENT_RUNS) throw new RunCapReached(active);
          // A rerun holds its suite's row lock from here: a suite deleted meanwhile gets no run. A suiteName makes a
          // new suite every time (names are not unique, as in the real product).
          if (existing && !(await lockLiveSuite(tx, existing.id))) throw notFound('eval suite', { suiteId: existing.id });
          const suite = existing ?? (await createSuite(tx, {
            projectId: project.id,
            name: body.suiteName!,
            description: body.suiteDescription,
            serverIds: servers.map((s) => s.id),
            defaultModel: body.model,
            passCriteria: body.passCriteria,
            source: 'api',
            hostId,
          }));
          const tests = body.tests ?? [];
          if (tests.length > 0) {
            const { cases, adding } = await lockSuiteCases(tx, suite.id, tests);
            checkSuiteCases(suite.id, cases, adding);
          }
          const caseUpsert = await upsertCases(tx, suite.id, tests.map((t) => ({ ...t, model: t.model ?? body.model })));
          const cases = await listCases(tx, suite.id);
          if (cases.length === 0) throw validationError('the suite has no tests to run', { suiteId: suite.id });
          // Refused here, the transaction takes back the inline tests (and a suite it created) with it.
          checkPlannedIterations(suite.id, cases.reduce((planned, c) => planned + (body.iterationOverride ?? c.runs), 0));
          const rejected = validateRunModels(
            cases.map((c) => ({ model: c.model ?? suite.default_model ?? '', provider: c.provider })),
            { catalog, orgProviderKeys, modelApiKeys },
          );
          if (rejected) throw rejected;
          const run = await insertRun(tx, {
            suiteId: suite.id,
            projectId: project.id,
            organizationId: principal.organizationId,
            source: 'api',
            notes: body.notes,
            passCriteria: body.passCriteria ?? suite.pass_criteria,
            serverIds: servers.map((s) => s.id),
            iterationOverride: body.iterationOverride,
            modelKeysEnc: Object.keys(modelApiKeys).length > 0 ? box.encryptJson(modelApiKeys) : null,
            createdByKeyId: principal.keyId,
            hostId,
            clientProfile: host ? hostClientProfile(host.config) : null,
          });
          return { run, caseUpsert, cases };
        });
        // At the cap, the counted runs are checked against Temporal (outside the transaction: no network call holds
        // the lock): a run whose workflow was terminated in Web UI frees its slot here, not only when someone reads it.
        const capped = (error: unknown) => {
          if (error instanceof RunCapReached) return error;
          throw error;
        };
        let created = await create().catch(capped);
        if (created instanceof RunCapReached && (await reconciler.reconcileOrganization(principal.organizationId)) > 0) created = await create().catch(capped);
        if (created instanceof RunCapReached) {
          throw new ApiError(
            'RATE_LIMITED',
            `this organization already has ${created.active} running eval runs (limit ${config.MAX_CONCURRENT_RUNS}); wait for one to finish`,
            { reason: 'CONCURRENT_RUN_LIMIT', maxConcurrentRuns: config.MAX_CONCURRENT_RUNS, activeRuns: created.active },
            { 'Retry-After': String(CAP_RETRY_AFTER_SECONDS) },
          );
        }
        const { run, caseUpsert, cases } = created;

        // Expected tools no server has are worth a warning, never a refusal; checked while the workflow starts.
        const checked = checkExpectedTools(mcp, servers, cases.map((c) => ({ title: c.title, expectedToolCalls: c.expected_tool_calls as { toolName: string }[] })));
        try {
          await runs.start({ id: run.id, organizationId: run.organization_id, projectId: run.project_id, suiteId: run.suite_id, source: run.source });
        } catch (error) {
          await failRunToStart(sql, run.id, 'the run could not be started on Temporal');
          throw error;
        }
        const warnings = await checked;
        return {
          runId: run.id, suiteId: run.suite_id, status: 'running' as const, caseUpsert, servers: servers.map((s) => ({ id: s.id, name: s.name })),
          ...(warnings.length > 0 && { warnings }),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-runs/:runId',
      tag: 'Evals',
      summary: 'Poll a run: status, result, summary and live progress',
      params: runParams,
      response: evalRunSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        // A row that says running is checked against its workflow now and then (RunReconciler.onRead): one
        // terminated in Temporal Web UI reads as failed, not running for good.
        const run = await reconciler.onRead(await requireRun(principal, params));
        return await view(run);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/eval-runs/:runId/cancel',
      tag: 'Evals',
      summary: 'Cancel a running run; what finished is kept',
      params: runParams,
      status: 202,
      response: evalRunSchema,
      errors: ['NOT_FOUND', 'CONFLICT'],
      async handler({ principal, params }) {
        // A run whose workflow already closed in Temporal cannot be cancelled there: it is ended, and 409 says how.
        const run = await reconciler.reconcile(await requireRun(principal, params), 'cancel');
        if (run.status !== 'running' || run.source !== 'api') {
          throw new ApiError('CONFLICT', `the run is ${run.status === 'running' ? 'ingested, not executed here' : `already ${run.status}`}; only a running run can be cancelled`, { status: run.status });
        }
        await runs.cancel(run.id);
        return await view(run);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-runs/:runId/iterations',
      tag: 'Evals',
      summary: "A run's iterations, in plan order (paginated)",
      params: runParams,
      query: iterationsQuery,
      response: iterationPage,
      errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
      async handler({ principal, params, query }) {
        const run = await requireRun(principal, params);
        const scope = `iterations:${run.id}`;
        const after = query.cursor ? cursors.decode<number>(scope, query.cursor) : 0;
        const rows = await listIterationPage(sql, run.id, after, query.limit + 1);
        const page = rows.slice(0, query.limit);
        return {
          items: page.map(toIteration),
          ...(rows.length > query.limit ? { nextCursor: cursors.encode(scope, page.at(-1)!.seq) } : {}),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-runs/:runId/iterations/:iterationId/trace',
      tag: 'Evals',
      summary: "An iteration's full trace: messages, spans, expected vs actual",
      params: iterationParams,
      response: traceSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        const run = await requireRun(principal, params);
        const iteration = await findIteration(sql, run.id, params.iterationId);
        if (!iteration) throw notFound('iteration', { iterationId: params.iterationId });
        const trace = await findTrace(sql, iteration.id);
        if (!trace) throw notFound('trace', { iterationId: iteration.id, reason: 'TRACE_NOT_AVAILABLE' });
        return toTrace(trace);
      },
    }),
  ];
}
