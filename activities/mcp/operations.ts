import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolResultSchema,
  ErrorCode,
  GetPromptResultSchema,
  McpError,
  ListToolsResultSchema,
  ReadResourceResultSchema,
  type CallToolResult,
  type GetPromptResult,
  type ReadResourceResult,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Sql } from '../../db/connection.js';
import type { SecretBox } from '../../db/secretBox.js';
import type { SavedServer } from '../../db/servers.js';
import type { Config } from '../config.js';
import { OperationFailure } from '../errors.js';
import type { Logger } from '../logger.js';
import { openConnection, type InitInfo, type McpConnection } from './connection.js';
import { runDoctor, type DoctorReport } from './doctor.js';
import { endsSession, featureNotSupported, toOperationFailure } from './failures.js';
import { OAuthGrants, type OAuthRequirement, type TokenImport } from './oauth.js';
import type { ConnectionPool } from './pool.js';
import {
  toPromptEntry,
  toResourceEntry,
  toResourceTemplateEntry,
  toToolEntry,
  type Page,
  type PromptEntry,
  type ResourceEntry,
  type ResourceTemplateEntry,
  type ToolEntry,
} from './primitives.js';
import { requestOptions, resolveTimeouts, type McpTimeouts } from './timeouts.js';
import type { Credentials } from './transports.js';

export interface McpDeps {
  sql: Sql;
  box: SecretBox;
  config: Config;
  log: Logger;
  pool: ConnectionPool;
}

export interface CallOptions {
  /** aborting cancels the request on the server (notifications/cancelled) and rejects with the signal's reason */
  signal?: AbortSignal;
  onprogress?: RequestOptions['onprogress'];
}

export interface ListOptions {
  /** the server's own cursor from the previous page */
  cursor?: string;
  signal?: AbortSignal;
}

export interface ValidateResult {
  success: true;
  status: 'connected';
  initInfo: InitInfo | null;
}

export interface ServerSnapshot {
  serverId: string;
  exportedAt: string;
  tools: ToolEntry[];
  resources: ResourceEntry[];
  prompts: PromptEntry[];
}

/**
 * Everything Runway does to a saved MCP server, for the API and the eval worker alike. Every method takes the saved
 * server (decrypted), uses the process's pooled session, and fails only with OperationFailure (or, when the
 * caller aborts, with the signal's reason).
 */
export interface McpOperations {
  validate(server: SavedServer): Promise<ValidateResult>;
  doctor(server: SavedServer): Promise<DoctorReport>;
  checkOAuth(server: SavedServer): Promise<OAuthRequirement>;
  importTokens(server: SavedServer, input: TokenImport): Promise<{ imported: true; expiresAt: number | null }>;
  listTools(server: SavedServer, options?: ListOptions): Promise<Page<ToolEntry>>;
  /** every page; what an eval iteration hands to the model */
  listAllTools(server: SavedServer, options?: Pick<CallOptions, 'signal'>): Promise<ToolEntry[]>;
  /** the MCP result unchanged; a tool-level failure is a result with isError, not an exception */
  callTool(server: SavedServer, name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
  listPrompts(server: SavedServer, options?: ListOptions): Promise<Page<PromptEntry>>;
  getPrompt(server: SavedServer, name: string, args: Record<string, string>, options?: CallOptions): Promise<GetPromptResult>;
  listResources(server: SavedServer, options?: ListOptions): Promise<Page<ResourceEntry>>;
  readResource(server: SavedServer, uri: string, options?: CallOptions): Promise<ReadResourceResult>;
  exportSnapshot(server: SavedServer, options?: Pick<CallOptions, 'signal'>): Promise<ServerSnapshot>;
}

type Work<T> = (connection: McpConnection, timeouts: McpTimeouts) => Promise<T>;

/** A server repeating a cursor must not keep an "all pages" loop going forever. */
const MAX_PAGES = 1000;

export function createMcpOperations(deps: McpDeps): McpOperations {
  const { config, pool } = deps;
  const grants = new OAuthGrants({ sql: deps.sql, box: deps.box, log: deps.log, requestTimeoutMs: config.MCP_REQUEST_TIMEOUT_MS });

  /**
   * Runs `attempt` with the server's OAuth credentials. A refused token (401) gets one refresh and one retry;
   * so does a session the server forgot (404), on a fresh session.
   */
  async function authorized<T>(server: SavedServer, signal: AbortSignal | undefined, attempt: (credentials?: Credentials) => Promise<T>): Promise<T> {
    let credentials = await grants.credentialsFor(server);
    for (let retried = false; ; retried = true) {
      try {
        return await attempt(credentials);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (retried || !(error instanceof OperationFailure)) throw error;
        if (error.code === 'OAUTH_REQUIRED') {
          const next = await grants.afterUnauthorized(server, credentials?.generation);
          if (!next) throw error;
          credentials = next;
        } else if (error.details?.reason !== 'SESSION_EXPIRED') {
          throw error;
        }
      }
    }
  }

  /** One request on the pooled session; a session that failed at the connection level is not reused. */
  function run<T>(server: SavedServer, signal: AbortSignal | undefined, work: Work<T>): Promise<T> {
    const timeouts = resolveTimeouts(config, server.timeouts);
    return authorized(server, signal, (credentials) =>
      pool.use({ server, credentials, timeouts }, async (connection) => {
        const startedAt = Date.now();
        try {
          return await work(connection, timeouts);
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          const failure = toOperationFailure(error, { phase: 'request', startedAt, server });
          if (endsSession(failure)) pool.discard(connection);
          throw failure;
        }
      }),
    );
  }

  function requireCapability(server: SavedServer, connection: McpConnection, capability: keyof ServerCapabilities): void {
    if (!connection.initInfo.capabilities[capability]) throw featureNotSupported(server, capability);
  }

  // The list requests, shared by the single-page operations, the export and the doctor.
  const lists = {
    tools: async (server: SavedServer, c: McpConnection, t: McpTimeouts, cursor?: string, signal?: AbortSignal): Promise<Page<ToolEntry>> => {
      requireCapability(server, c, 'tools');
      // client.request rather than client.listTools: that one compiles a JSON Schema validator for every tool's
      // output schema on each listing, for client.callTool, which is never used here (see callTool below).
      const page = await c.client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsResultSchema, requestOptions(t, signal));
      return { items: page.tools.map(toToolEntry), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
    prompts: async (server: SavedServer, c: McpConnection, t: McpTimeouts, cursor?: string, signal?: AbortSignal): Promise<Page<PromptEntry>> => {
      requireCapability(server, c, 'prompts');
      const page = await c.client.listPrompts(cursor ? { cursor } : {}, requestOptions(t, signal));
      return { items: page.prompts.map(toPromptEntry), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
    resources: async (server: SavedServer, c: McpConnection, t: McpTimeouts, cursor?: string, signal?: AbortSignal): Promise<Page<ResourceEntry>> => {
      requireCapability(server, c, 'resources');
      const page = await c.client.listResources(cursor ? { cursor } : {}, requestOptions(t, signal));
      return { items: page.resources.map(toResourceEntry), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
    resourceTemplates: async (server: SavedServer, c: McpConnection, t: McpTimeouts, cursor?: string, signal?: AbortSignal): Promise<Page<ResourceTemplateEntry>> => {
      requireCapability(server, c, 'resources');
      const page = await c.client.listResourceTemplates(cursor ? { cursor } : {}, requestOptions(t, signal));
      return { items: page.resourceTemplates.map(toResourceTemplateEntry), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
  };
  type ListName = keyof typeof lists;
  type Item<L extends ListName> = Awaited<ReturnType<(typeof lists)[L]>>['items'][number];

  async function allPages<L extends ListName>(list: L, server: SavedServer, c: McpConnection, t: McpTimeouts, signal?: AbortSignal): Promise<Item<L>[]> {
    const items: Item<L>[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const page: Page<Item<L>> = await lists[list](server, c, t, cursor, signal);
      items.push(...page.items);
      if (!page.nextCursor || page.nextCursor === cursor) return items;
      cursor = page.nextCursor;
    }
    return items;
  }

  /** A capability the server does not declare is an empty list in the export, not a failure. */
  const ifDeclared = <T>(c: McpConnection, capability: keyof ServerCapabilities, list: () => Promise<T[]>) =>
    c.initInfo.capabilities[capability] ? list() : Promise.resolve([]);

  return {
    validate: (server) =>
      run(server, undefined, async (connection, timeouts) => {
        // A pooled session may be stale: a ping proves the server still answers. Ping is optional for old servers.
        await connection.client.ping(requestOptions(timeouts)).catch((error: unknown) => {
          if (!(error instanceof McpError && error.code === ErrorCode.MethodNotFound)) throw error;
        });
        return { success: true, status: 'connected', initInfo: connection.initInfo };
      }),

    doctor: async (server) => {
      const timeouts = resolveTimeouts(config, server.timeouts);
      const listed =
        <L extends ListName>(list: L) =>
        async (connection: McpConnection) => {
          const startedAt = Date.now();
          try {
            return await allPages(list, server, connection, timeouts);
          } catch (error) {
            throw toOperationFailure(error, { phase: 'request', startedAt, server });
          }
        };
      return await runDoctor(server, timeouts, {
        connect: (timings) => authorized(server, undefined, (credentials) => openConnection({ server, credentials, timeouts }, timings)),
        hasGrant: () => grants.hasGrant(server),
        listTools: listed('tools'),
        listResources: listed('resources'),
        listResourceTemplates: listed('resourceTemplates'),
        listPrompts: listed('prompts'),
      });
    },

    checkOAuth: (server) => grants.requirement(server),

    importTokens: (server, input) => grants.importTokens(server, input),

    listTools: (server, options = {}) => run(server, options.signal, (c, t) => lists.tools(server, c, t, options.cursor, options.signal)),

    listAllTools: (server, options = {}) => run(server, options.signal, (c, t) => allPages('tools', server, c, t, options.signal)),

    callTool: (server, name, args, options = {}) =>
      run(server, options.signal, (c, t) => {
        requireCapability(server, c, 'tools');
        // client.request rather than client.callTool: the result goes back unchanged, without the SDK's
        // client-side output-schema checks turning a server's answer into an exception.
        return c.client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, requestOptions(t, options.signal, options.onprogress));
      }),

    listPrompts: (server, options = {}) => run(server, options.signal, (c, t) => lists.prompts(server, c, t, options.cursor, options.signal)),

    getPrompt: (server, name, args, options = {}) =>
      run(server, options.signal, (c, t) => {
        requireCapability(server, c, 'prompts');
        return c.client.request({ method: 'prompts/get', params: { name, arguments: args } }, GetPromptResultSchema, requestOptions(t, options.signal, options.onprogress));
      }),

    listResources: (server, options = {}) => run(server, options.signal, (c, t) => lists.resources(server, c, t, options.cursor, options.signal)),

    readResource: (server, uri, options = {}) =>
      run(server, options.signal, (c, t) => {
        requireCapability(server, c, 'resources');
        return c.client.request({ method: 'resources/read', params: { uri } }, ReadResourceResultSchema, requestOptions(t, options.signal, options.onprogress));
      }),

    exportSnapshot: (server, options = {}) =>
      run(server, options.signal, async (c, t) => {
        const [tools, resources, prompts] = await Promise.all([
          ifDeclared(c, 'tools', () => allPages('tools', server, c, t, options.signal)),
          ifDeclared(c, 'resources', () => allPages('resources', server, c, t, options.signal)),
          ifDeclared(c, 'prompts', () => allPages('prompts', server, c, t, options.signal)),
        ]);
        return { serverId: server.id, exportedAt: new Date().toISOString(), tools, resources, prompts };
      }),
  };
}
