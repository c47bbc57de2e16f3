import type { z } from 'zod';
import type { McpOperations, Page } from '../../domain/mcp/index.js';
import type { Principal } from '../../domain/principal.js';
import type { RunServerOperation } from '../../domain/useCases/catalog/runServerOperation.js';
import type { RecordExportSurface } from '../../domain/useCases/surfaces/recordExportSurface.js';
import type { CursorCodec } from '../cursor.js';
import { ApiError, validationError, type ErrorCode } from '../errors.js';
import { defineRoute } from '../route.js';
import {
  callToolResultSchema,
  doctorReportSchema,
  getPromptResultSchema,
  importTokensBody,
  importTokensResultSchema,
  listBody,
  oauthRequirementSchema,
  promptGetBody,
  promptListSchema,
  resourceContentsSchema,
  resourceListSchema,
  resourceReadBody,
  serverParams,
  snapshotSchema,
  toolCallBody,
  toolListSchema,
  validateResultSchema,
} from '../schemas/serverOperations.js';

const BASE = '/projects/:projectId/servers/:serverId';
const TAG = 'Server operations';
/** What an operation that talks to the server can answer besides 401/429/500. */
const OPERATION_ERRORS: ErrorCode[] = [
  'VALIDATION_ERROR',
  'NOT_FOUND',
  'OAUTH_REQUIRED',
  'FEATURE_NOT_SUPPORTED',
  'SERVER_UNREACHABLE',
  'TIMEOUT',
];

type ServerParams = z.output<typeof serverParams>;
/** A saved server with its secrets opened, as the operations take it. */
type Server = Parameters<McpOperations['validate']>[0];

/**
 * The MCP operations on a saved server: the use case finds the server (404 outside the key's reach, 400
 * SERVER_DISABLED for what would connect to a disabled one) and runs the operation; this is the HTTP edge.
 */
export function serverOperationRoutes(deps: {
  runServerOperation: RunServerOperation;
  /** every export records the tool surface it saw (GET .../surfaces) */
  recordExportSurface: RecordExportSurface;
  /** seals the servers' own list cursors into ours */
  cursors: Pick<CursorCodec, 'encode' | 'decode'>;
}) {
  const { runServerOperation, cursors } = deps;
  /** An operation that connects to the server (refused while it is disabled). */
  const connected = <T>(
    principal: Principal,
    params: ServerParams,
    operation: (mcp: McpOperations, server: Server) => Promise<T>,
  ) => runServerOperation({ principal, ...params, connects: true }, operation);
  /** An operation on what Runway keeps for the server, without connecting to it (works while it is disabled). */
  const offline = <T>(
    principal: Principal,
    params: ServerParams,
    operation: (mcp: McpOperations, server: Server) => Promise<T>,
  ) => runServerOperation({ principal, ...params, connects: false }, operation);

  /** Our cursor wraps the server's, bound to this server and list so it cannot be replayed elsewhere. */
  function listRoute<T>(
    list: 'tools' | 'prompts' | 'resources',
    response: z.ZodType<unknown, Page<T>>,
    fetchPage: (mcp: McpOperations, server: Server, cursor?: string) => Promise<Page<T>>,
  ) {
    return defineRoute({
      method: 'post',
      path: `${BASE}/${list}`,
      tag: TAG,
      summary: `One page of the server's ${list}`,
      params: serverParams,
      body: listBody,
      response,
      errors: OPERATION_ERRORS,
      handler: async ({ principal, params, body }) =>
        await connected(principal, params, async (mcp, server) => {
          const scope = `${server.id}:${list}`;
          const cursor = body.cursor === undefined ? undefined : cursors.decode<unknown>(scope, body.cursor);
          if (cursor !== undefined && typeof cursor !== 'string')
            throw validationError('cursor is invalid', { reason: 'INVALID_CURSOR' });
          const page = await fetchPage(mcp, server, cursor);
          return {
            items: page.items,
            ...(page.nextCursor !== undefined ? { nextCursor: cursors.encode(scope, page.nextCursor) } : {}),
            ...(page.truncated && { truncated: page.truncated }),
          };
        }),
    });
  }

  return [
    defineRoute({
      method: 'post',
      path: `${BASE}/validate`,
      tag: TAG,
      summary: 'Connect, initialize and report the capability snapshot',
      params: serverParams,
      response: validateResultSchema,
      errors: OPERATION_ERRORS,
      handler: async ({ principal, params }) =>
        await connected(principal, params, (mcp, server) => mcp.validate(server)),
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/doctor`,
      tag: TAG,
      summary: 'Probe, connect, initialize, capabilities and every list, each step timed',
      description: 'Always 200 once the server is found: failures are reported in the checks, status and error.',
      params: serverParams,
      response: doctorReportSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      handler: async ({ principal, params }) => await connected(principal, params, (mcp, server) => mcp.doctor(server)),
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/check-oauth`,
      tag: TAG,
      summary: 'Whether the server needs an OAuth grant, and the health of the imported one (no MCP connection)',
      params: serverParams,
      response: oauthRequirementSchema,
      errors: ['NOT_FOUND'],
      handler: async ({ principal, params }) =>
        await offline(principal, params, (mcp, server) => mcp.checkOAuth(server)),
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/oauth/import-tokens`,
      tag: TAG,
      summary: 'Store OAuth tokens the caller obtained; later calls inject and refresh them',
      params: serverParams,
      body: importTokensBody,
      response: importTokensResultSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      handler: async ({ principal, params, body }) =>
        await offline(principal, params, (mcp, server) => mcp.importTokens(server, body)),
    }),
    listRoute('tools', toolListSchema, (mcp, server, cursor) => mcp.listTools(server, { cursor })),
    defineRoute({
      method: 'post',
      path: `${BASE}/tools/call`,
      tag: TAG,
      summary: 'Call a tool; the MCP result comes back unchanged (a tool-level failure is still 200)',
      params: serverParams,
      body: toolCallBody,
      response: callToolResultSchema,
      errors: OPERATION_ERRORS,
      description:
        "A server that asks for input during the call (elicitation) is answered with `elicitation` when given, else by the server's " +
        'client profile (decline by default); sampling requests are declined.',
      handler: async ({ principal, params, body }) =>
        await connected(principal, params, async (mcp, server) => {
          // A task-augmented call answers with a task to poll (tasks/get, tasks/result), which this API has no
          // route for: running it as a plain call instead would ignore what the caller asked for.
          if (body.taskOptions !== undefined) {
            throw new ApiError(
              'FEATURE_NOT_SUPPORTED',
              'task-augmented tool calls (taskOptions) are not supported: call the tool without taskOptions to get its result directly',
              {
                reason: 'TASKS_NOT_SUPPORTED',
                toolName: body.toolName,
              },
            );
          }
          return await mcp.callTool(
            server,
            body.toolName,
            body.parameters,
            body.elicitation ? { answers: { elicitation: body.elicitation } } : {},
          );
        }),
    }),
    listRoute('prompts', promptListSchema, (mcp, server, cursor) => mcp.listPrompts(server, { cursor })),
    defineRoute({
      method: 'post',
      path: `${BASE}/prompts/get`,
      tag: TAG,
      summary: 'Render a prompt; the MCP GetPromptResult comes back unchanged',
      params: serverParams,
      body: promptGetBody,
      response: getPromptResultSchema,
      errors: OPERATION_ERRORS,
      handler: async ({ principal, params, body }) =>
        await connected(principal, params, async (mcp, server) => {
          // MCP prompt arguments are strings.
          const args = Object.fromEntries(Object.entries(body.arguments ?? {}).map(([k, v]) => [k, String(v)]));
          return await mcp.getPrompt(server, body.promptName, args);
        }),
    }),
    listRoute('resources', resourceListSchema, (mcp, server, cursor) => mcp.listResources(server, { cursor })),
    defineRoute({
      method: 'post',
      path: `${BASE}/resources/read`,
      tag: TAG,
      summary: 'Read a resource; the contents come back unchanged',
      params: serverParams,
      body: resourceReadBody,
      response: resourceContentsSchema,
      errors: OPERATION_ERRORS,
      handler: async ({ principal, params, body }) =>
        await connected(principal, params, (mcp, server) => mcp.readResource(server, body.uri)),
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/export`,
      tag: TAG,
      summary: 'One snapshot of every tool, resource and prompt (all pages)',
      params: serverParams,
      response: snapshotSchema,
      errors: OPERATION_ERRORS,
      handler: async ({ principal, params }) =>
        await connected(principal, params, async (mcp, server) => {
          const snapshot = await mcp.exportSnapshot(server);
          await deps.recordExportSurface(
            server.id,
            snapshot.tools,
            snapshot.truncated?.lists?.includes('tools') ?? false,
          );
          return snapshot;
        }),
    }),
  ];
}
