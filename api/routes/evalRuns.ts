import type { CancelRun } from '../../domain/useCases/runs/cancelRun.js';
import type { GetRun } from '../../domain/useCases/runs/getRun.js';
import type { GetTrace } from '../../domain/useCases/runs/getTrace.js';
import type { ListIterations } from '../../domain/useCases/runs/listIterations.js';
import type { RegradeRun } from '../../domain/useCases/runs/regradeRun.js';
import type { StartRun } from '../../domain/useCases/runs/startRun.js';
import type { EstimateRun } from '../../domain/useCases/runs/estimateRun.js';
import { HEURISTIC_DESCRIPTION } from '../../domain/evals/estimate.js';
import { formatCount, limits } from '../../domain/limits.js';
import { toEvalRun, toIteration, toTrace } from '../evalViews.js';
import { alternateReply, defineRoute, type AlternateResponse } from '../route.js';
import { projectParams } from '../schemas/common.js';
import {
  createRunBody,
  evalRunSchema,
  iterationPage,
  iterationParams,
  iterationsQuery,
  regradeCreatedSchema,
  runCreatedSchema,
  runEstimateSchema,
  runParams,
  traceSchema,
} from '../schemas/evals.js';

/** POST /eval-runs with dryRun: 200 and the estimate, in place of 202 and the run. */
const estimated: AlternateResponse<typeof runEstimateSchema> = {
  status: 200,
  description: 'OK (dryRun): the plan and its expected cost; nothing was written or started',
  response: runEstimateSchema,
};

/** A run's routes: each calls one use case of domain/useCases/runs and puts its answer in the wire shape. */
export function evalRunRoutes({
  startRun,
  estimateRun,
  getRun,
  cancelRun,
  listIterations,
  getTrace,
  regradeRun,
}: {
  startRun: StartRun;
  estimateRun: EstimateRun;
  regradeRun: RegradeRun;
  getRun: GetRun;
  cancelRun: CancelRun;
  listIterations: ListIterations;
  getTrace: GetTrace;
}) {
  return [
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/eval-runs',
      tag: 'Evals',
      summary: 'Start an eval run (answers 202 at once; poll the run)',
      description:
        'Rerun a suite by suiteId (optionally upserting inline tests first), or create a suite from suiteName + tests + serverIds and run it. ' +
        `A run plans at most ${formatCount(limits.iterationsPerRun)} iterations (each case's runs, or iterationOverride, summed over the suite's cases) and a suite holds at most ${formatCount(limits.casesPerSuite)} cases: ` +
        'past either, 400 VALIDATION_ERROR with details.reason TOO_MANY_ITERATIONS or TOO_MANY_CASES and details.limit, and nothing is written. ' +
        'With dryRun: true, nothing is written or started and the reply is 200 with the plan and its expected cost (EvalRunEstimate).',
      params: projectParams,
      body: createRunBody,
      status: 202,
      idempotent: true,
      response: runCreatedSchema,
      alternates: [estimated],
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'RATE_LIMITED'],
      async handler({ principal, params, body }) {
        if (body.dryRun) {
          const { preview, estimate } = await estimateRun({ principal, projectId: params.projectId, request: body });
          return alternateReply(estimated, {
            dryRun: true,
            suite: preview.suite,
            plan: {
              cases: preview.cases.length,
              models: new Set(preview.cases.flatMap((c) => c.models.map((m) => `${m.provider}\u0000${m.model}`))).size,
              iterations: estimate.iterations,
              entries: estimate.entries,
            },
            tokens: estimate.tokens,
            costUsd: estimate.costUsd,
            unpricedModels: estimate.unpricedModels,
            budget: preview.budget,
            heuristic: HEURISTIC_DESCRIPTION,
            pricesAsOf: estimate.pricesAsOf,
          });
        }
        const { run, caseUpsert, servers, warnings, leftOut, queue } = await startRun({
          principal,
          projectId: params.projectId,
          request: body,
        });
        return {
          runId: run.id,
          suiteId: run.suiteId,
          // queued only when the request (or its organization) asked to queue past the cap
          status: run.status === 'queued' ? ('queued' as const) : ('running' as const),
          ...(queue && { queue }),
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
        const { run, progress, toolSurfaces, queue } = await getRun({ principal, ...params });
        return toEvalRun(run, progress, toolSurfaces, queue);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/eval-runs/:runId/cancel',
      tag: 'Evals',
      summary: 'Cancel a running (or queued) run; what finished is kept',
      params: runParams,
      status: 202,
      response: evalRunSchema,
      errors: ['NOT_FOUND', 'CONFLICT'],
      async handler({ principal, params }) {
        const { run, progress } = await cancelRun({ principal, ...params });
        return toEvalRun(run, progress);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/eval-runs/:runId/regrade',
      tag: 'Evals',
      summary: "Re-grade a finished run's recorded conversations with the suite's current expectations (202)",
      description:
        "Creates a run with source `regrade` that grades the original's recorded conversations again with the suite's current expected tool calls, match options, output checks and judge, calling neither the run's models nor its MCP servers (a judge check calls the judge model). " +
        'Its iterations keep the recorded conversation and tool calls and get new grades; compare it with GET .../eval-runs/{id}/compare?baseRunId=<original>: what changed there changed in the expectations, not in the model or server. ' +
        'Cases deleted since, or whose prompt changed, are left out and listed in `skipped`. Refused: a run still running (409 CONFLICT, RUN_NOT_FINISHED), an ingested run or one without a completed iteration (400, NO_RECORDED_CONVERSATIONS), a run whose suite was deleted (404, SUITE_DELETED).',
      params: runParams,
      status: 202,
      response: regradeCreatedSchema,
      idempotent: true,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED'],
      async handler({ principal, params }) {
        const { run, iterations, skipped } = await regradeRun({ principal, ...params });
        return {
          runId: run.id,
          regradeOf: params.runId,
          suiteId: run.suiteId,
          status: 'running' as const,
          iterations,
          skipped,
        };
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
        const page = await listIterations({ principal, ...params, cursor: query.cursor, limit: query.limit });
        return {
          items: page.items.map(toIteration),
          ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
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
        return toTrace(await getTrace({ principal, ...params }));
      },
    }),
  ];
}
