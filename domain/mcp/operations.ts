import { setImmediate } from 'node:timers/promises';
import {
  ProtocolErrorCode,
  ProtocolError,
  type RequestOptions,
  type CallToolResult,
  type GetPromptResult,
  type ReadResourceResult,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/client';
import { CallToolResultSchema, GetPromptResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/core';
import { z } from 'zod';
import { OperationFailure } from '../failures.js';
import type { Logger } from '../ports/logger.js';
import type { OAuthTokenStore } from '../ports/oauthTokenStore.js';
import type { ServerStore } from '../ports/serverStore.js';
import { profileFor } from './clientProfile.js';
import type { ClientAnswers } from './clientRequests.js';
import { openConnection, STALE_ERA, type InitInfo, type McpConnection } from './connection.js';
import { eraKey } from './protocolEras.js';
import { awaitTask, taskOf } from './tasks.js';
import { withTraceparent, type TraceContext } from './traceContext.js';
import { headerDeclarationProblem } from './paramHeaders.js';
import { runDoctor, type DoctorReport } from './doctor.js';
import { endsSession, featureNotSupported, oauthRequired, toOperationFailure } from './failures.js';
import { OAuthGrants, type OAuthRequirement, type TokenImport } from './oauth.js';
import type { ConnectionPool } from './pool.js';
import type { IsolatedSession, SessionSource } from './isolatedSessions.js';
import {
  listResultSchemas,
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
import { boundResult, ReplyBudget, type Truncation } from './replyBudget.js';
import { requestOptions, resolveTimeouts, type McpTimeouts, type McpTimeoutSettings } from './timeouts.js';
import type { Credentials } from './transports.js';
import type { SavedServer } from '../catalog/server.js';

/**
 * A result as Runway returns it: unchanged, except that on the 2026 wire the `resultType` the SDK takes off is put
 * back (only complete results come this far: questions are answered and tasks followed before).
 */
const asReturned = <T extends object>(c: McpConnection, result: T): T =>
  c.initInfo.era === 'modern' ? { ...result, resultType: 'complete' } : result;

/** Whether a session sends a tool's x-mcp-header arguments as headers: the 2026 wire over streamable HTTP. */
const mirrorsHeaders = (c: McpConnection) => c.initInfo.era === 'modern' && c.initInfo.transport === 'streamable-http';

function invalidToolDefinition(server: SavedServer, name: string, problem: string): OperationFailure {
  return new OperationFailure(
    'SERVER_UNREACHABLE',
    `server '${server.name}' defines tool '${name}' in a way no client may call it: ${problem}`,
    { reason: 'INVALID_TOOL_DEFINITION', phase: 'request', toolName: name, retryable: false },
  );
}

/** What a tasks/* request answers: read by tasks.ts, which checks what it needs. */
const taskReplySchema = z.looseObject({});

export interface McpDeps {
  /** the saved servers' OAuth grants (db/oauthTokenStore.ts) */
  tokens: OAuthTokenStore;
  /** where the protocol each server speaks is recorded (db/serverStore.ts) */
  servers: Pick<ServerStore, 'recordProtocol'>;
  /** the deployment's MCP timeouts, and the data folder stdio servers run below */
  config: McpTimeoutSettings & { DATA_DIR: string };
  log: Logger;
  pool: ConnectionPool;
}

export interface CallOptions {
  /** aborting cancels the request on the server (notifications/cancelled) and rejects with the signal's reason */
  signal?: AbortSignal;
  onprogress?: RequestOptions['onprogress'];
  /**
   * How this call answers the server's requests while it runs (elicitation, sampling), instead of the server's
   * client profile. An elicitation answer also declares elicitation for the call.
   */
  answers?: ClientAnswers;
  /** the caller's own sessions (ConnectionPool.isolated, an eval iteration's) instead of the process's pooled ones */
  session?: SessionSource;
  /**
   * the trace the call belongs to (an eval iteration's): its tools/call, and the task requests that follow a task it
   * answered with, each carry a `traceparent` of that trace, with a span of its own, in their `_meta` (SEP-414)
   */
  trace?: TraceContext;
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
  resourceTemplates: ResourceTemplateEntry[];
  prompts: PromptEntry[];
  /** the lists held more than a reply may (limits.serverReplyBytes): those named stop where the budget ran out */
  truncated?: Truncation;
}

/**
 * A tool's result as Runway returns it. The 2026 revision lets structuredContent be any JSON value; the contract's
 * CallToolResult (and every server of the 2025 revision) has an object there, so that is what the type says.
 */
export type ToolCallResult = CallToolResult & { structuredContent?: Record<string, unknown> };

/** A server's result as an operation answers it: cut to limits.serverReplyBytes when larger, and then marked. */
export type Bounded<T> = T & { truncated?: Truncation };

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
  /** every page, as far as limits.serverReplyBytes goes; what an eval iteration hands to the model */
  listAllTools(server: SavedServer, options?: Pick<CallOptions, 'signal'>): Promise<ToolEntry[]>;
  /** the MCP result unchanged; a tool-level failure is a result with isError, not an exception */
  callTool(
    server: SavedServer,
    name: string,
    args: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<Bounded<ToolCallResult>>;
  listPrompts(server: SavedServer, options?: ListOptions): Promise<Page<PromptEntry>>;
  getPrompt(
    server: SavedServer,
    name: string,
    args: Record<string, string>,
    options?: CallOptions,
  ): Promise<Bounded<GetPromptResult>>;
  listResources(server: SavedServer, options?: ListOptions): Promise<Page<ResourceEntry>>;
  readResource(server: SavedServer, uri: string, options?: CallOptions): Promise<Bounded<ReadResourceResult>>;
  exportSnapshot(server: SavedServer, options?: Pick<CallOptions, 'signal'>): Promise<ServerSnapshot>;
  /** fresh sessions for one caller alone, used through CallOptions.session and closed by it */
  isolatedSession(): IsolatedSession;
}

type Work<T> = (connection: McpConnection, timeouts: McpTimeouts) => Promise<T>;

/** A 401 from the server, however it was classified (an OAuth challenge, or credentials it refused). */
const refusedToken = (failure: OperationFailure) =>
  (failure.code === 'OAUTH_REQUIRED' && failure.details?.reason === undefined) ||
  (failure.details?.reason === 'SERVER_REFUSED_CREDENTIALS' && failure.details?.status === 401);

/** The server refused the grant's token (and no refresh helped): whatever it said, the remedy is new tokens. */
const asOAuthRequired = (server: SavedServer, failure: OperationFailure) =>
  failure.code === 'OAUTH_REQUIRED'
    ? failure
    : oauthRequired(
        server,
        `server '${server.name}' refused the OAuth grant's token: import new tokens with /oauth/import-tokens`,
      );

/** The server refused the request's parameters (-32602, failures.ts). */
const rejectedParams = (error: unknown): error is OperationFailure =>
  error instanceof OperationFailure && error.details?.reason === 'INVALID_PARAMS';

/**
 * A prompt or resource the server does not have: 404 NOT_FOUND (api.md, "unknown ... resource"), the server's own
 * words in the message, as for its -32002 (failures.ts).
 */
function unknownPrimitive(
  server: SavedServer,
  refusal: OperationFailure,
  reason: 'PROMPT_NOT_FOUND' | 'RESOURCE_NOT_FOUND',
  what: Record<string, string>,
): OperationFailure {
  const mcpError = refusal.details?.mcpError as { code: number; message: string } | undefined;
  const words =
    mcpError?.message || `no ${reason === 'PROMPT_NOT_FOUND' ? 'prompt' : 'resource'} ${Object.values(what)[0]}`;
  return new OperationFailure('NOT_FOUND', `server '${server.name}': ${words}`, { reason, ...what, mcpError });
}

/** A server repeating a cursor must not keep an "all pages" loop going forever. */
const MAX_PAGES = 1000;

export function createMcpOperations(deps: McpDeps): McpOperations {
  const { config, pool, servers, log } = deps;
  const grants = new OAuthGrants({
    tokens: deps.tokens,
    log: deps.log,
    requestTimeoutMs: config.MCP_REQUEST_TIMEOUT_MS,
  });

  /**
   * Runs `attempt` with the server's OAuth credentials. A refused token (401) gets one refresh and one retry;
   * so does a session the server forgot (404), on a fresh session. A 401 is OAUTH_REQUIRED only for a server that
   * uses OAuth (a grant was sent, it is configured so, or it advertises it); otherwise the server wants other
   * credentials and the failure says what it said (failures.ts, refusedCredentials).
   */
  async function authorized<T>(
    server: SavedServer,
    signal: AbortSignal | undefined,
    attempt: (credentials?: Credentials) => Promise<T>,
  ): Promise<T> {
    let credentials = await grants.credentialsFor(server);
    for (let retried = false; ; retried = true) {
      try {
        return await attempt(credentials);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (!(error instanceof OperationFailure)) throw error;
        const unauthorized = refusedToken(error);
        // More scope needs new tokens from the caller: a refresh cannot widen a grant.
        if (error.details?.reason === 'INSUFFICIENT_SCOPE') throw error;
        if (
          unauthorized &&
          !credentials &&
          error.code !== 'OAUTH_REQUIRED' &&
          (server.useOAuth || (await grants.advertisesOAuth(server)))
        ) {
          throw oauthRequired(
            server,
            `server '${server.name}' needs an OAuth grant: import tokens with /oauth/import-tokens`,
          );
        }
        if (retried) throw unauthorized && credentials ? asOAuthRequired(server, error) : error;
        if (unauthorized && credentials) {
          const next = await grants.afterUnauthorized(server, credentials.generation);
          if (!next) throw asOAuthRequired(server, error);
          credentials = next;
        } else if (error.details?.reason !== 'SESSION_EXPIRED') {
          throw error;
        }
      }
    }
  }

  /**
   * One request on a pooled session of the server's client profile; a session that failed at the connection level
   * is not reused. A call with answers of its own is lent a session for itself when the profile lets the server ask.
   */
  function run<T>(
    server: SavedServer,
    signal: AbortSignal | undefined,
    work: Work<T>,
    answers?: ClientAnswers,
    sessions: SessionSource = pool,
  ): Promise<T> {
    const timeouts = resolveTimeouts(config, server.timeouts);
    const profile = profileFor(server.clientProfile, answers);
    const answersQuestions = answers?.elicitation !== undefined || answers?.elicit !== undefined;
    const lease =
      (answersQuestions && profile.elicitation) || (answers?.sample && profile.sampling) ? answers : undefined;
    return authorized(server, signal, (credentials) =>
      sessions.use(
        { server, credentials, timeouts, dataDir: config.DATA_DIR, profile, eras: pool.eras },
        async (connection) => {
          const startedAt = Date.now();
          noteProtocol(server, connection.initInfo);
          try {
            return await work(connection, timeouts);
          } catch (error) {
            if (signal?.aborted) throw signal.reason;
            const failure = toOperationFailure(error, {
              phase: 'request',
              startedAt,
              server,
              child: connection.child(),
            });
            if (endsSession(failure)) sessions.discard(connection);
            if (endsSession(failure) || STALE_ERA.has(failure.details?.reason as string))
              pool.eras.forget(eraKey(server));
            throw failure;
          }
        },
        lease,
      ),
    );
  }

  /**
   * One tools/call. client.request rather than client.callTool: the result goes back unchanged, without the SDK's
   * client-side output-schema checks turning a server's answer into an exception. Except on the 2026 wire over HTTP,
   * where the arguments a tool marks `x-mcp-header` travel as Mcp-Param headers too (SEP-2243): there the SDK's
   * callTool sends them, given the tool as listed (listed first on this session if need be) without its output
   * schema, so it checks nothing; a tool whose declarations break the rules is not called (paramHeaders.ts).
   */
  async function sendToolCall(
    server: SavedServer,
    c: McpConnection,
    t: McpTimeouts,
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const sent = requestOptions(t, options.signal, options.onprogress);
    const params = withTraceparent({ name, arguments: args }, options.trace);
    if (!mirrorsHeaders(c)) return await c.client.request({ method: 'tools/call', params }, CallToolResultSchema, sent);
    if (!c.toolDefinition(name)) await allPages('tools', server, c, t, options.signal);
    const tool = c.toolDefinition(name);
    const problem = tool && headerDeclarationProblem(tool.inputSchema);
    if (problem) throw invalidToolDefinition(server, name, problem);
    const toolDefinition = tool && ({ ...tool, outputSchema: undefined } as Tool);
    return await c.client.callTool(params, { ...sent, ...(toolDefinition ? { toolDefinition } : {}) });
  }

  /**
   * A tool that answered with a task (Tasks extension, 2026-07-28) is followed to its end (tasks.ts), within the
   * call's longest time (maxTotalMs); the result is the task's. Any other result is returned as it came.
   */
  async function untilTaskEnds(
    server: SavedServer,
    c: McpConnection,
    t: McpTimeouts,
    result: CallToolResult,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const task = taskOf(result as { _meta?: Record<string, unknown> });
    if (!task) return result;
    const { signal } = options;
    return await awaitTask(task, {
      request: (method, params, requestSignal) =>
        c.client.request({ method, params: withTraceparent(params, options.trace) }, taskReplySchema, {
          timeout: t.requestMs,
          signal: requestSignal,
        }),
      answer: (key, inputRequest, answerSignal) => c.answerInput(inputRequest, answerSignal, key),
      signal,
      deadlineMs: t.maxTotalMs,
      serverName: server.name,
    });
  }

  /** What each server last spoke, as recorded from this process (so it is written once, not per call). */
  const noted = new Map<string, string>();

  /** Records the era and revision a server's session speaks (the server list shows it), when it changed. */
  function noteProtocol(server: SavedServer, { era, protocolVersion }: InitInfo): void {
    if (!era || !protocolVersion) return;
    const spoken = `${era} ${protocolVersion}`;
    const saved = server.protocol ? `${server.protocol.era} ${server.protocol.version}` : undefined;
    if ((noted.get(server.id) ?? saved) === spoken) return;
    if (noted.size >= 10_000) noted.clear();
    noted.set(server.id, spoken);
    servers
      .recordProtocol(server.id, { era, version: protocolVersion })
      .catch((error: unknown) =>
        log.warn({ err: error, serverId: server.id }, 'could not record the protocol a server speaks'),
      );
  }

  function requireCapability(
    server: SavedServer,
    connection: McpConnection,
    capability: keyof ServerCapabilities,
  ): void {
    if (!connection.initInfo.capabilities[capability]) throw featureNotSupported(server, capability);
  }

  // The list requests, shared by the single-page operations, the export and the doctor. client.request with our
  // schemas rather than client.listTools and the like: the SDK's schemas drop what they do not know (primitives.ts),
  // and client.listTools compiles a validator for every tool's output schema, for client.callTool, never used here.
  const listParams = (cursor?: string) => (cursor ? { cursor } : {});
  const lists = {
    tools: async (
      server: SavedServer,
      c: McpConnection,
      t: McpTimeouts,
      cursor?: string,
      signal?: AbortSignal,
    ): Promise<Page<ToolEntry>> => {
      requireCapability(server, c, 'tools');
      const page = await c.client.request(
        { method: 'tools/list', params: listParams(cursor) },
        listResultSchemas.tools,
        requestOptions(t, signal),
      );
      for (const tool of page.tools) c.rememberTool(tool);
      return { items: page.tools.map(toToolEntry), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
    prompts: async (
      server: SavedServer,
      c: McpConnection,
      t: McpTimeouts,
      cursor?: string,
      signal?: AbortSignal,
    ): Promise<Page<PromptEntry>> => {
      requireCapability(server, c, 'prompts');
      const page = await c.client.request(
        { method: 'prompts/list', params: listParams(cursor) },
        listResultSchemas.prompts,
        requestOptions(t, signal),
      );
      return { items: page.prompts.map(toPromptEntry), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
    resources: async (
      server: SavedServer,
      c: McpConnection,
      t: McpTimeouts,
      cursor?: string,
      signal?: AbortSignal,
    ): Promise<Page<ResourceEntry>> => {
      requireCapability(server, c, 'resources');
      const page = await c.client.request(
        { method: 'resources/list', params: listParams(cursor) },
        listResultSchemas.resources,
        requestOptions(t, signal),
      );
      return {
        items: page.resources.map(toResourceEntry),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    },
    resourceTemplates: async (
      server: SavedServer,
      c: McpConnection,
      t: McpTimeouts,
      cursor?: string,
      signal?: AbortSignal,
    ): Promise<Page<ResourceTemplateEntry>> => {
      requireCapability(server, c, 'resources');
      const page = await c.client.request(
        { method: 'resources/templates/list', params: listParams(cursor) },
        listResultSchemas.resourceTemplates,
        requestOptions(t, signal),
      );
      return {
        items: page.resourceTemplates.map(toResourceTemplateEntry),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    },
  };
  type ListName = keyof typeof lists;
  type Item<L extends ListName> = Awaited<ReturnType<(typeof lists)[L]>>['items'][number];

  /**
   * Every page of a list, until the budget is spent: the item that does not fit ends the list (budget.cut), and no
   * further page is asked for. What one page can hold is bounded by the transports (limits.serverMessageBytes).
   */
  async function allPages<L extends ListName>(
    list: L,
    server: SavedServer,
    c: McpConnection,
    t: McpTimeouts,
    signal?: AbortSignal,
    budget = new ReplyBudget(),
  ): Promise<Item<L>[]> {
    const items: Item<L>[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const page: Page<Item<L>> = await lists[list](server, c, t, cursor, signal);
      // A page takes its own turn of the event loop: reading a large one must not hold up everything else.
      await setImmediate();
      for (const item of page.items) {
        if (!budget.take(item)) {
          budget.cut(list);
          return items;
        }
        items.push(item);
      }
      await setImmediate();
      if (!page.nextCursor || page.nextCursor === cursor) return items;
      cursor = page.nextCursor;
    }
    return items;
  }

  /** One page as a reply may hold it: the items past the budget left out, and the page marked. */
  const boundPage = <T>(page: Page<T>): Page<T> => {
    const budget = new ReplyBudget();
    const fitting = page.items.findIndex((item) => !budget.take(item));
    if (fitting === -1) return page;
    const truncation: Truncation = {
      reason: 'REPLY_TOO_LARGE',
      limitBytes: budget.limitBytes,
      omittedItems: page.items.length - fitting,
    };
    return { ...page, items: page.items.slice(0, fitting), truncated: truncation };
  };

  /** A capability the server does not declare is an empty list in the export, not a failure. */
  const ifDeclared = <T>(c: McpConnection, capability: keyof ServerCapabilities, list: () => Promise<T[]>) =>
    c.initInfo.capabilities[capability] ? list() : Promise.resolve([]);

  /** Resource templates are part of the resources capability, yet some servers never answer for them (-32601). */
  const unlessUnanswered = <T>(list: Promise<T[]>) =>
    list.catch((error: unknown) => {
      if (error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound) return [];
      throw error;
    });

  /** Whether the server lists a prompt of that name; when the list cannot be had, assume it does (nothing is claimed). */
  const promptListed = (server: SavedServer, name: string, signal?: AbortSignal) =>
    run(server, signal, (c, t) => allPages('prompts', server, c, t, signal)).then(
      (prompts) => prompts.some((prompt) => prompt.name === name),
      () => true,
    );

  return {
    validate: (server) =>
      run(server, undefined, async (connection, timeouts) => {
        // A pooled session may be stale: a ping proves the server still answers (optional for old servers). The 2026
        // revision has no ping: asking for the server's advertisement again (server/discover) is its liveness check.
        if (connection.initInfo.era === 'modern') await connection.client.discover(requestOptions(timeouts));
        else
          await connection.client.ping(requestOptions(timeouts)).catch((error: unknown) => {
            if (!(error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound)) throw error;
          });
        return { success: true, status: 'connected', initInfo: connection.initInfo };
      }),

    doctor: async (server) => {
      const timeouts = resolveTimeouts(config, server.timeouts);
      // The report's lists together hold what one reply may.
      const budget = new ReplyBudget();
      const listed =
        <L extends ListName>(list: L) =>
        async (connection: McpConnection) => {
          const startedAt = Date.now();
          try {
            return await allPages(list, server, connection, timeouts, undefined, budget);
          } catch (error) {
            throw toOperationFailure(error, { phase: 'request', startedAt, server });
          }
        };
      const report = await runDoctor(
        server,
        { timeouts, dataDir: config.DATA_DIR },
        {
          connect: (timings) =>
            authorized(server, undefined, (credentials) =>
              openConnection({ server, credentials, timeouts, dataDir: config.DATA_DIR }, timings),
            ),
          hasGrant: () => grants.hasGrant(server),
          listTools: listed('tools'),
          listResources: listed('resources'),
          listResourceTemplates: listed('resourceTemplates'),
          listPrompts: listed('prompts'),
        },
      );
      const truncated = budget.truncation();
      return truncated ? { ...report, truncated } : report;
    },

    checkOAuth: (server) => grants.requirement(server),

    importTokens: (server, input) => grants.importTokens(server, input),

    listTools: (server, options = {}) =>
      run(server, options.signal, (c, t) => lists.tools(server, c, t, options.cursor, options.signal)).then(boundPage),

    listAllTools: (server, options = {}) =>
      run(server, options.signal, async (c, t) => {
        const tools = await allPages('tools', server, c, t, options.signal);
        // What a model may call: not a tool Runway would refuse to call (its x-mcp-header declarations are invalid).
        return mirrorsHeaders(c) ? tools.filter((tool) => !headerDeclarationProblem(tool.inputSchema)) : tools;
      }),

    callTool: (server, name, args, options = {}) =>
      run(
        server,
        options.signal,
        (c, t) => {
          requireCapability(server, c, 'tools');
          return sendToolCall(server, c, t, name, args, options)
            .then((result) => untilTaskEnds(server, c, t, result, options))
            .then((result) => boundResult(asReturned(c, result) as ToolCallResult));
        },
        options.answers,
        options.session,
      ),

    isolatedSession: () => pool.isolated(),

    listPrompts: (server, options = {}) =>
      run(server, options.signal, (c, t) => lists.prompts(server, c, t, options.cursor, options.signal)).then(
        boundPage,
      ),

    getPrompt: async (server, name, args, options = {}) => {
      try {
        return await run(
          server,
          options.signal,
          (c, t) => {
            requireCapability(server, c, 'prompts');
            return c.client
              .request(
                { method: 'prompts/get', params: { name, arguments: args } },
                GetPromptResultSchema,
                requestOptions(t, options.signal, options.onprogress),
              )
              .then((result) => boundResult(asReturned(c, result)));
          },
          options.answers,
        );
      } catch (error) {
        // MCP answers an unknown prompt and a bad argument alike (-32602): the server's own list tells them apart.
        if (!rejectedParams(error) || (await promptListed(server, name, options.signal))) throw error;
        throw unknownPrimitive(server, error, 'PROMPT_NOT_FOUND', { promptName: name });
      }
    },

    listResources: (server, options = {}) =>
      run(server, options.signal, (c, t) => lists.resources(server, c, t, options.cursor, options.signal)).then(
        boundPage,
      ),

    readResource: async (server, uri, options = {}) => {
      try {
        return await run(
          server,
          options.signal,
          (c, t) => {
            requireCapability(server, c, 'resources');
            return c.client
              .request(
                { method: 'resources/read', params: { uri } },
                ReadResourceResultSchema,
                requestOptions(t, options.signal, options.onprogress),
              )
              .then((result) => boundResult(asReturned(c, result)));
          },
          options.answers,
        );
      } catch (error) {
        // The uri is the request's only parameter: a server refusing it (-32602, what the 2025-11-25 revision and
        // the reference server answer for a resource it does not have) has no such resource.
        if (!rejectedParams(error)) throw error;
        throw unknownPrimitive(server, error, 'RESOURCE_NOT_FOUND', { uri });
      }
    },

    exportSnapshot: (server, options = {}) =>
      run(server, options.signal, async (c, t) => {
        // The four lists together hold what one reply may; the first to reach the limit stops there.
        const budget = new ReplyBudget();
        const [tools, resources, resourceTemplates, prompts] = await Promise.all([
          ifDeclared(c, 'tools', () => allPages('tools', server, c, t, options.signal, budget)),
          ifDeclared(c, 'resources', () => allPages('resources', server, c, t, options.signal, budget)),
          ifDeclared(c, 'resources', () =>
            unlessUnanswered(allPages('resourceTemplates', server, c, t, options.signal, budget)),
          ),
          ifDeclared(c, 'prompts', () => allPages('prompts', server, c, t, options.signal, budget)),
        ]);
        const truncated = budget.truncation();
        return {
          serverId: server.id,
          exportedAt: new Date().toISOString(),
          tools,
          resources,
          resourceTemplates,
          prompts,
          ...(truncated && { truncated }),
        };
      }),
  };
}
