import type { z } from 'zod';
import type { Page } from '../../domain/mcp/index.js';
import type { Principal } from '../../db/accounts.js';
import { findServerInVisibleProject, toSavedServer, type SavedServer } from '../../db/servers.js';
import { unknownServers } from '../../domain/evals/serverSelection.js';
import type { RouteDeps } from '../app.js';
import { ApiError, notFound, validationError, type ErrorCode } from '../errors.js';
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

/**
 * The MCP operations on a saved server (domain/mcp does the work; this is the HTTP edge). Every route first
 * finds the server through the project access rule: a server outside the key's reach is 404, whether it exists
 * or not. A disabled server is a 400 VALIDATION_ERROR with details.reason SERVER_DISABLED for every operation that
 * would connect to it; check-oauth and import-tokens still work, so tokens can be set up before enabling it.
 */
export function serverOperationRoutes({ sql, box, mcp, cursors }: RouteDeps) {
  async function findServer(
    principal: Principal,
    params: ServerParams,
    options: { enabledOnly: boolean },
  ): Promise<SavedServer> {
    // The project's access rule and the server in one statement: this is on every tools/call. Its secrets are
    // opened once it passed the checks: a refused request opens none.
    const { projectVisible, projectId, server } = await findServerInVisibleProject(
      sql,
      principal,
      params.projectId,
      params.serverId,
    );
    if (!projectVisible) throw notFound('project', { projectId: params.projectId });
    if (!server) throw await unknownServers(sql, projectId!, [params.serverId], { serverId: params.serverId });
    if (options.enabledOnly && !server.enabled) {
      throw validationError(`server '${server.name}' is disabled; enable it to run operations on it`, {
        reason: 'SERVER_DISABLED',
        serverId: server.id,
      });
    }
    return toSavedServer(box, server);
  }
  const connectable = (principal: Principal, params: ServerParams) =>
    findServer(principal, params, { enabledOnly: true });

  /** Our cursor wraps the server's, bound to this server and list so it cannot be replayed elsewhere. */
  function listRoute<T>(
    list: 'tools' | 'prompts' | 'resources',
    response: z.ZodType<unknown, Page<T>>,
    fetchPage: (server: SavedServer, cursor?: string) => Promise<Page<T>>,
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
      async handler({ principal, params, body }) {
        const server = await connectable(principal, params);
        const scope = `${server.id}:${list}`;
        const cursor = body.cursor === undefined ? undefined : cursors.decode<unknown>(scope, body.cursor);
        if (cursor !== undefined && typeof cursor !== 'string')
          throw validationError('cursor is invalid', { reason: 'INVALID_CURSOR' });
        const page = await fetchPage(server, cursor);
        return {
          items: page.items,
          ...(page.nextCursor !== undefined ? { nextCursor: cursors.encode(scope, page.nextCursor) } : {}),
          ...(page.truncated && { truncated: page.truncated }),
        };
      },
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
      handler: async ({ principal, params }) => await mcp.validate(await connectable(principal, params)),
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
      handler: async ({ principal, params }) => await mcp.doctor(await connectable(principal, params)),
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
        await mcp.checkOAuth(await findServer(principal, params, { enabledOnly: false })),
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
        await mcp.importTokens(await findServer(principal, params, { enabledOnly: false }), body),
    }),
    listRoute('tools', toolListSchema, (server, cursor) => mcp.listTools(server, { cursor })),
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
      async handler({ principal, params, body }) {
        const server = await connectable(principal, params);
        // A task-augmented call answers with a task to poll (tasks/get, tasks/result), which this API has no route
        // for: running it as a plain call instead would ignore what the caller asked for.
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
      },
    }),
    listRoute('prompts', promptListSchema, (server, cursor) => mcp.listPrompts(server, { cursor })),
    defineRoute({
      method: 'post',
      path: `${BASE}/prompts/get`,
      tag: TAG,
      summary: 'Render a prompt; the MCP GetPromptResult comes back unchanged',
      params: serverParams,
      body: promptGetBody,
      response: getPromptResultSchema,
      errors: OPERATION_ERRORS,
      async handler({ principal, params, body }) {
        const server = await connectable(principal, params);
        // MCP prompt arguments are strings.
        const args = Object.fromEntries(Object.entries(body.arguments ?? {}).map(([k, v]) => [k, String(v)]));
        return await mcp.getPrompt(server, body.promptName, args);
      },
    }),
    listRoute('resources', resourceListSchema, (server, cursor) => mcp.listResources(server, { cursor })),
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
        await mcp.readResource(await connectable(principal, params), body.uri),
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/export`,
      tag: TAG,
      summary: 'One snapshot of every tool, resource and prompt (all pages)',
      params: serverParams,
      response: snapshotSchema,
      errors: OPERATION_ERRORS,
      handler: async ({ principal, params }) => await mcp.exportSnapshot(await connectable(principal, params)),
    }),
  ];
}
