import type { ConformanceCheck } from '../../domain/catalog/conformanceCheck.js';
import type { CancelConformanceCheck } from '../../domain/useCases/servers/cancelConformanceCheck.js';
import type { GetConformanceCheck } from '../../domain/useCases/servers/getConformanceCheck.js';
import type { ListConformanceChecks } from '../../domain/useCases/servers/listConformanceChecks.js';
import type { StartConformanceCheck } from '../../domain/useCases/servers/startConformanceCheck.js';
import { defineRoute } from '../route.js';
import { serverPathParams } from '../schemas/common.js';
import {
  conformanceCheckParams,
  conformanceCheckSchema,
  conformanceCheckSummarySchema,
  conformanceHistoryQuery,
  conformanceHistorySchema,
  startConformanceBody,
} from '../schemas/conformance.js';
import type { z } from 'zod';

const BASE = '/projects/:projectId/servers/:serverId/conformance';
const TAG = 'Server checks';

type Summary = z.input<typeof conformanceCheckSummarySchema>;

function fields(check: ConformanceCheck) {
  return {
    checkId: check.id,
    projectId: check.projectId,
    serverId: check.serverId,
    specVersion: check.specVersion,
    status: check.status,
    score: check.score,
    error: check.errorCode === null ? null : { code: check.errorCode, message: check.errorMessage ?? '' },
    timeoutMs: check.timeoutMs,
    createdAt: check.createdAt.getTime(),
    startedAt: check.startedAt?.getTime() ?? null,
    finishedAt: check.finishedAt?.getTime() ?? null,
  };
}

const toCheck = (check: ConformanceCheck) => ({ ...fields(check), report: check.report });
const toSummary = (check: ConformanceCheck): Summary => ({
  ...fields(check),
  scoreDetails: check.report?.score ?? null,
  suiteVersion: check.report?.suiteVersion ?? null,
});

/**
 * Conformance checks of a saved server (issue 32; a Runway extension): start one (202, the worker runs the official
 * suite), read it with its report, list the server's history, cancel one. Found as every server operation finds its
 * server (404 outside the key's reach).
 */
export function serverConformanceRoutes(deps: {
  startConformanceCheck: StartConformanceCheck;
  getConformanceCheck: GetConformanceCheck;
  listConformanceChecks: ListConformanceChecks;
  cancelConformanceCheck: CancelConformanceCheck;
}) {
  return [
    defineRoute({
      method: 'post',
      path: BASE,
      tag: TAG,
      summary: 'Start a conformance check of the server with the official MCP conformance suite (202; poll the check)',
      description:
        "Runs the suite's server scenarios (`@modelcontextprotocol/conformance`) against the saved server in the worker, with the server's saved headers and OAuth tokens, and keeps the report: per scenario and per check passed, failed (with the suite's message) or not applicable, and a 0-100 score with how it is computed. " +
        'The reply is the queued check; its Location header is the check. ' +
        'Only Streamable HTTP servers can be checked: a stdio or legacy SSE server is 422 FEATURE_NOT_SUPPORTED (details.reason TRANSPORT_NOT_SUPPORTED, the message says why). ' +
        'One check per server at a time: 409 CONFLICT (details.reason CHECK_RUNNING, details.checkId the open check). ' +
        "An open check counts against the organization's concurrent run cap: past it 429 RATE_LIMITED (CONCURRENT_RUN_LIMIT) with Retry-After. " +
        'A disabled server is 400 (SERVER_DISABLED). The check ends failed (TIMEOUT) past its time limit (CONFORMANCE_TIMEOUT_MS).',
      params: serverPathParams,
      body: startConformanceBody,
      status: 202,
      idempotent: true,
      response: conformanceCheckSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT', 'FEATURE_NOT_SUPPORTED', 'RATE_LIMITED'],
      async handler({ principal, params, body, req, res }) {
        const check = await deps.startConformanceCheck({
          principal,
          projectId: params.projectId,
          serverId: params.serverId,
          specVersion: body.specVersion,
        });
        res.set(
          'Location',
          `${req.baseUrl}/projects/${params.projectId}/servers/${check.serverId}/conformance/${check.id}`,
        );
        return toCheck(check);
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      tag: TAG,
      summary: "The server's conformance checks, newest first (paginated; no reports: GET a check for its report)",
      params: serverPathParams,
      query: conformanceHistoryQuery,
      response: conformanceHistorySchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, query }) {
        const { checks, nextCursor } = await deps.listConformanceChecks({
          principal,
          projectId: params.projectId,
          serverId: params.serverId,
          cursor: query.cursor,
          limit: query.limit,
        });
        return { items: checks.map(toSummary), ...(nextCursor !== undefined && { nextCursor }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:checkId`,
      // The derived id (getServerConformance) is the history's.
      operationId: 'getServerConformanceCheck',
      tag: TAG,
      summary: 'A conformance check: its status, and once completed its report and score',
      params: conformanceCheckParams,
      response: conformanceCheckSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        return toCheck(await deps.getConformanceCheck({ principal, ...params }));
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/:checkId/cancel`,
      operationId: 'postServerConformanceCheckCancel',
      tag: TAG,
      summary: 'Cancel a queued or running conformance check (the suite is stopped; the server is free at once)',
      params: conformanceCheckParams,
      response: conformanceCheckSchema,
      errors: ['NOT_FOUND', 'CONFLICT'],
      async handler({ principal, params }) {
        return toCheck(await deps.cancelConformanceCheck({ principal, ...params }));
      },
    }),
  ];
}
