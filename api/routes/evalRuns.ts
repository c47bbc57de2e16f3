import type { Principal } from '../../db/accounts.js';
import { findIteration, findTrace, listIterationPage } from '../../db/evalIterations.js';
import { findRun, isExecuted, runProgress, type Run } from '../../db/evalRuns.js';
import { checkExpectedTools } from '../../domain/evals/expectedTools.js';
import { formatCount, limits } from '../../domain/limits.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { ApiError, notFound } from '../errors.js';
import { toEvalRun, toIteration, toTrace } from '../evalViews.js';
import { defineRoute } from '../route.js';
import { createEvalRun, launchEvalRun, type RunCreationDeps } from '../../domain/evals/startEvalRun.js';
import type { RunPlan } from '../../domain/evals/plan.js';
import type { RunDescription } from '../../workflows/definitions.js';
import { projectParams } from '../schemas/common.js';
import {
  createRunBody,
  evalRunSchema,
  iterationPage,
  iterationParams,
  iterationsQuery,
  runCreatedSchema,
  runParams,
  traceSchema,
} from '../schemas/evals.js';

export function evalRunRoutes({ sql, box, config, catalog, runs, reconciler, cursors, mcp }: RouteDeps) {
  // Run creation is shared with suites' schedules (runs/startEvalRun.ts): the same cap, checks and keys.
  const creation: RunCreationDeps = {
    sql,
    box,
    catalog,
    maxConcurrentRuns: config.MAX_CONCURRENT_RUNS,
    reconcileAtCap: (organizationId) => reconciler.reconcileOrganization(organizationId),
    defaultConcurrency: config.EVAL_ITERATION_CONCURRENCY,
  };
  const startWorkflow = (about: RunDescription, plan: RunPlan) => (run: Run) =>
    runs.start(
      {
        id: run.id,
        organizationId: run.organizationId,
        projectId: run.projectId,
        suiteId: run.suiteId,
        source: run.source,
      },
      about,
      plan,
    );
  // Progress comes from the iteration rows: exact, and one indexed query. Asking the workflow instead (its
  // progress query, still there for operators) measured 34 ms median while a large run was active and slowed the
  // run itself by ~15% (bench/eval-run.ts; docs/PERFORMANCE.md).
  const view = async (run: Run) => toEvalRun(run, await runProgress(sql, run.id));
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
        const { run, caseUpsert, cases, servers, suiteName, iterations, plan, leftOut } = await createEvalRun(
          creation,
          {
            organizationId: principal.organizationId,
            projectId: project.id,
            source: 'api',
            createdByKeyId: principal.keyId,
          },
          body,
        );
        // Expected tools no server has are worth a warning, never a refusal; checked while the workflow starts.
        const checked = checkExpectedTools(
          mcp,
          servers,
          cases.map((c) => ({ title: c.title, expectedToolCalls: c.expectedToolCalls as { toolName: string }[] })),
        );
        await launchEvalRun(sql, startWorkflow({ suiteName, projectName: project.name, iterations }, plan), run);
        const warnings = await checked;
        return {
          runId: run.id,
          suiteId: run.suiteId,
          status: 'running' as const,
          caseUpsert,
          servers: servers.map((s) => ({ id: s.id, name: s.name })),
          ...(warnings.length > 0 && { warnings }),
          ...(leftOut && { leftOut }),
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
        if (run.status !== 'running' || !isExecuted(run)) {
          throw new ApiError(
            'CONFLICT',
            `the run is ${run.status === 'running' ? 'ingested, not executed here' : `already ${run.status}`}; only a running run can be cancelled`,
            { status: run.status },
          );
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
