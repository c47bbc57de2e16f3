import type { z } from 'zod';
import type { accountSchema } from './schemas/account.js';
import type {
  chatboxDetailSchema,
  chatboxSummarySchema,
  chatSessionSchema,
  chatSessionsQuery,
  projectSchema,
  serverSchema,
} from './schemas/catalog.js';
import type { pageQuery } from './schemas/common.js';
import type {
  createRunBody,
  createSuiteBody,
  evalRunSchema,
  iterationSchema,
  regradeCreatedSchema,
  runCreatedSchema,
  runEstimateSchema,
  suiteCreatedSchema,
  suiteListItem,
  suiteRunsQuery,
  traceSchema,
} from './schemas/evals.js';
import type {
  callToolResultSchema,
  doctorReportSchema,
  getPromptResultSchema,
  importTokensBody,
  importTokensResultSchema,
  oauthRequirementSchema,
  promptGetBody,
  promptSchema,
  resourceContentsSchema,
  resourceEntrySchema,
  snapshotSchema,
  toolCallBody,
  toolSchema,
  validateResultSchema,
} from './schemas/serverOperations.js';
import type { ErrorEnvelope } from './errors.js';
import type { comparisonSchema, modelComparisonSchema } from './schemas/compare.js';
import type { surfaceDiffSchema, surfaceSchema, surfaceSummarySchema } from './schemas/surfaces.js';
import type { uploadReply, uploadUrlBody, uploadUrlReply } from './schemas/ingest.js';
import { parseRetryAfter } from '../domain/retryAfter.js';

/*
 * A typed client of /api/v1. Every request and reply type is inferred from the zod schema the server validates
 * with (request bodies: the schema's input; replies: its output), so the client cannot drift from the routes.
 * Type-only imports but one: nothing of the server is loaded at run time except the pure Retry-After parser the
 * server and the console share (domain/retryAfter.ts, itself without imports).
 */

export type Collection<T> = { items: T[]; nextCursor?: string };
export type ToolSurfaceSummary = z.output<typeof surfaceSummarySchema>;
export type ToolSurface = z.output<typeof surfaceSchema>;
export type ToolSurfaceDiff = z.output<typeof surfaceDiffSchema>;

export type Account = z.output<typeof accountSchema>;
export type Project = z.output<typeof projectSchema>;
export type Server = z.output<typeof serverSchema>;
export type ChatSession = z.output<typeof chatSessionSchema>;
export type ChatboxSummary = z.output<typeof chatboxSummarySchema>;
export type Chatbox = z.output<typeof chatboxDetailSchema>;
export type Tool = z.output<typeof toolSchema>;
export type Prompt = z.output<typeof promptSchema>;
export type ResourceEntry = z.output<typeof resourceEntrySchema>;
export type ValidateResult = z.output<typeof validateResultSchema>;
export type DoctorReport = z.output<typeof doctorReportSchema>;
export type OAuthRequirement = z.output<typeof oauthRequirementSchema>;
export type ImportTokens = z.input<typeof importTokensBody>;
export type ImportTokensResult = z.output<typeof importTokensResultSchema>;
export type CallTool = z.input<typeof toolCallBody>;
export type CallToolResult = z.output<typeof callToolResultSchema>;
export type GetPrompt = z.input<typeof promptGetBody>;
export type GetPromptResult = z.output<typeof getPromptResultSchema>;
export type ResourceContents = z.output<typeof resourceContentsSchema>;
export type ServerSnapshot = z.output<typeof snapshotSchema>;
export type CreateEvalSuite = z.input<typeof createSuiteBody>;
export type EvalSuiteCreated = z.output<typeof suiteCreatedSchema>;
export type EvalSuite = z.output<typeof suiteListItem>;
export type CreateEvalRun = z.input<typeof createRunBody>;
export type EvalRunCreated = z.output<typeof runCreatedSchema>;
export type EvalRunEstimate = z.output<typeof runEstimateSchema>;
export type EvalRunRegradeCreated = z.output<typeof regradeCreatedSchema>;
export type EvalRun = z.output<typeof evalRunSchema>;
export type EvalIteration = z.output<typeof iterationSchema>;
export type EvalTrace = z.output<typeof traceSchema>;
export type EvalRunComparison = z.output<typeof comparisonSchema>;
export type EvalModelComparison = z.output<typeof modelComparisonSchema>;
/** `limit` is coerced from the query string on the server, so its input type is open; a number is what to send. */
export type PageQuery = { cursor?: z.input<typeof pageQuery>['cursor']; limit?: number };

export type UploadUrlRequest = z.input<typeof uploadUrlBody>;
export type IngestFormat = NonNullable<UploadUrlRequest['format']>;
export type UploadUrl = z.output<typeof uploadUrlReply>;
export type UploadResult = z.output<typeof uploadReply>;

/** A reply in the error envelope: `code` is stable, `message` is for people. */
export class RunwayApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly requestId?: string,
    /** the reply's Retry-After, in milliseconds */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RunwayApiError';
  }
}

export interface RetryEvent {
  attempt: number;
  delayMs: number;
  status?: number;
  reason: string;
}

/** The error envelope of a reply, when it has one. */
function envelopeOf(text: string): Partial<ErrorEnvelope> | undefined {
  try {
    const body: unknown = text ? JSON.parse(text) : undefined;
    return body !== null && typeof body === 'object' ? (body as Partial<ErrorEnvelope>) : undefined;
  } catch {
    return undefined;
  }
}

/** Host names that do not resolve: a DNS answer, not an outage, so asking again seconds later changes nothing. */
const UNRESOLVABLE = new Set(['ENOTFOUND']);

/**
 * Whether a 502/503/504 says the same request will fail the same way: the server marked it `retryable: false`
 * (a server's own JSON-RPC error, refused credentials), the host name does not resolve, or a stdio server's
 * command cannot be started. Anything else (a server restarting, a connection reset) is worth another try.
 */
export function cannotRecover(envelope: Partial<ErrorEnvelope> | undefined): boolean {
  const details = envelope?.details;
  if (!details) return false;
  if (details.retryable === false) return true;
  if (details.reason === 'SPAWN_FAILED') return true;
  return details.reason === 'NETWORK_ERROR' && UNRESOLVABLE.has(String(details.errno));
}

/**
 * A 429 that is not about the request rate: the organization's cap on concurrent eval runs. Retrying on a
 * schedule meant for rate limits gives up after a minute; how long to wait for a slot is the caller's to decide.
 */
export const isRunCapReached = (envelope: Partial<ErrorEnvelope> | undefined) =>
  envelope?.details?.reason === 'CONCURRENT_RUN_LIMIT';

export interface RunwayClientOptions {
  /** `http://host:port` or `http://host:port/api/v1` */
  baseUrl: string;
  /** an `sk_` key */
  apiKey?: string;
  /** attempts after a 429 (default 6); each waits at least Retry-After */
  rateLimitRetries?: number;
  /** attempts after a 502/503/504 or a network failure, for requests safe to repeat (default 3) */
  gatewayRetries?: number;
  /** per request (default 150 s: a server operation may take up to MCP_MAX_TOTAL_TIMEOUT_MS) */
  timeoutMs?: number;
  onRetry?: (event: RetryEvent) => void;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  userAgent?: string;
}

interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /** safe to send again after a gateway error: reads, and operations that change nothing */
  idempotent?: boolean;
  auth?: boolean;
}

const GATEWAY_STATUSES = new Set([502, 503, 504]);

export function apiBaseUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/api/v1') ? trimmed : `${trimmed}/api/v1`;
}

/** A reply's Retry-After in milliseconds (domain/retryAfter.ts: delta-seconds or an HTTP date). */
const retryAfterMs = (response: Response): number | undefined =>
  parseRetryAfter(response.headers.get('retry-after'), Date.now());

export function createRunwayClient(options: RunwayClientOptions) {
  const base = apiBaseUrl(options.baseUrl);
  const fetchImpl = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = options.random ?? Math.random;
  const rateLimitRetries = options.rateLimitRetries ?? 6;
  const gatewayRetries = options.gatewayRetries ?? 3;
  const timeoutMs = options.timeoutMs ?? 150_000;

  /** At least what the server asked for, plus up to 20% (min 250 ms) so that many clients do not return at once. */
  const rateLimitDelay = (asked: number | undefined, attempt: number) => {
    const base = asked ?? Math.min(30_000, 1000 * 2 ** attempt);
    return Math.round(base + random() * Math.max(250, base * 0.2));
  };
  /** Exponential backoff with equal jitter: 0.5-1 s, 1-2 s, 2-4 s, ... */
  const gatewayDelay = (attempt: number) => {
    const cap = Math.min(8000, 1000 * 2 ** attempt);
    return Math.round(cap / 2 + random() * (cap / 2));
  };

  /** A reply whose body was read to decide on a retry, whole again for readReply. */
  const replay = (response: Response, text: string) =>
    new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });

  async function send(url: string, init: RequestInit, idempotent: boolean): Promise<Response> {
    let rateLimited = 0;
    let gateway = 0;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        if (!idempotent || gateway >= gatewayRetries) throw error;
        const delayMs = gatewayDelay(gateway++);
        options.onRetry?.({ attempt, delayMs, reason: `network error: ${(error as Error).message}` });
        await sleep(delayMs);
        continue;
      }
      const retryable429 = response.status === 429 && rateLimited < rateLimitRetries;
      const retryableGateway = GATEWAY_STATUSES.has(response.status) && idempotent && gateway < gatewayRetries;
      if (!retryable429 && !retryableGateway) return response;
      // Error replies are small: the envelope says whether another try can help.
      const text = await response.text();
      const envelope = envelopeOf(text);
      if (retryable429) {
        if (isRunCapReached(envelope)) return replay(response, text);
        const delayMs = rateLimitDelay(retryAfterMs(response), rateLimited++);
        options.onRetry?.({ attempt, delayMs, status: 429, reason: 'rate limited' });
        await sleep(delayMs);
        continue;
      }
      if (cannotRecover(envelope)) return replay(response, text);
      const delayMs = gatewayDelay(gateway++);
      const said =
        typeof envelope?.code === 'string'
          ? ` ${envelope.code}${typeof envelope.message === 'string' ? `: ${envelope.message}` : ''}`
          : '';
      options.onRetry?.({ attempt, delayMs, status: response.status, reason: `HTTP ${response.status}${said}` });
      await sleep(delayMs);
    }
  }

  async function readReply<T>(response: Response): Promise<T> {
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (response.ok) return body as T;
    const envelope = body as Partial<ErrorEnvelope> | undefined;
    throw new RunwayApiError(
      response.status,
      typeof envelope?.code === 'string' ? envelope.code : `HTTP_${response.status}`,
      typeof envelope?.message === 'string' ? envelope.message : text.slice(0, 500) || response.statusText,
      envelope?.details,
      response.headers.get('x-request-id') ?? undefined,
      retryAfterMs(response),
    );
  }

  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const query = Object.entries(opts.query ?? {}).filter(
      (e): e is [string, string | number | boolean] => e[1] !== undefined,
    );
    const url = `${base}${path}${query.length ? `?${new URLSearchParams(query.map(([k, v]): [string, string] => [k, String(v)]))}` : ''}`;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': options.userAgent ?? 'runway-client',
    };
    if (opts.auth !== false && options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const response = await send(
      url,
      { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) },
      opts.idempotent ?? method === 'GET',
    );
    return await readReply<T>(response);
  }

  const enc = encodeURIComponent;
  const project = (projectId: string) => `/projects/${enc(projectId)}`;
  const server = (projectId: string, serverId: string) => `${project(projectId)}/servers/${enc(serverId)}`;
  const run = (projectId: string, runId: string) => `${project(projectId)}/eval-runs/${enc(runId)}`;
  const read = { idempotent: true } as const;

  /** Every page of a cursor-paginated list. */
  async function all<T>(page: (cursor?: string) => Promise<Collection<T>>): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const reply = await page(cursor);
      items.push(...reply.items);
      cursor = reply.nextCursor;
    } while (cursor);
    return items;
  }

  const servers = {
    list: (projectId: string) => request<Collection<Server>>('GET', `${project(projectId)}/servers`),
    validate: (projectId: string, serverId: string) =>
      request<ValidateResult>('POST', `${server(projectId, serverId)}/validate`, { body: {}, ...read }),
    doctor: (projectId: string, serverId: string) =>
      request<DoctorReport>('POST', `${server(projectId, serverId)}/doctor`, { body: {}, ...read }),
    checkOAuth: (projectId: string, serverId: string) =>
      request<OAuthRequirement>('POST', `${server(projectId, serverId)}/check-oauth`, { body: {}, ...read }),
    importTokens: (projectId: string, serverId: string, body: ImportTokens) =>
      request<ImportTokensResult>('POST', `${server(projectId, serverId)}/oauth/import-tokens`, { body, ...read }),
    tools: (projectId: string, serverId: string, cursor?: string) =>
      request<Collection<Tool>>('POST', `${server(projectId, serverId)}/tools`, { body: { cursor }, ...read }),
    allTools: (projectId: string, serverId: string) => all((cursor) => servers.tools(projectId, serverId, cursor)),
    /** not repeated after a gateway error: a tool call may have effects */
    callTool: (
      projectId: string,
      serverId: string,
      toolName: string,
      parameters: Record<string, unknown> = {},
      options: Pick<CallTool, 'elicitation'> = {},
    ) =>
      request<CallToolResult>('POST', `${server(projectId, serverId)}/tools/call`, {
        body: { toolName, parameters, ...options },
      }),
    prompts: (projectId: string, serverId: string, cursor?: string) =>
      request<Collection<Prompt>>('POST', `${server(projectId, serverId)}/prompts`, { body: { cursor }, ...read }),
    getPrompt: (projectId: string, serverId: string, body: GetPrompt) =>
      request<GetPromptResult>('POST', `${server(projectId, serverId)}/prompts/get`, { body, ...read }),
    resources: (projectId: string, serverId: string, cursor?: string) =>
      request<Collection<ResourceEntry>>('POST', `${server(projectId, serverId)}/resources`, {
        body: { cursor },
        ...read,
      }),
    readResource: (projectId: string, serverId: string, uri: string) =>
      request<ResourceContents>('POST', `${server(projectId, serverId)}/resources/read`, { body: { uri }, ...read }),
    export: (projectId: string, serverId: string) =>
      request<ServerSnapshot>('POST', `${server(projectId, serverId)}/export`, { body: {}, ...read }),
  };

  const evalRuns = {
    /** not repeated after a gateway error: it would start a second run */
    create: (projectId: string, body: CreateEvalRun) =>
      request<EvalRunCreated>('POST', `${project(projectId)}/eval-runs`, { body }),
    /** POST /eval-runs with dryRun: the plan and its expected cost; nothing is written or started */
    estimate: (projectId: string, body: CreateEvalRun) =>
      request<EvalRunEstimate>('POST', `${project(projectId)}/eval-runs`, { body: { ...body, dryRun: true } }),
    get: (projectId: string, runId: string) => request<EvalRun>('GET', run(projectId, runId)),
    /** grades a finished run's recorded conversations again with the suite's current expectations (a new run) */
    regrade: (projectId: string, runId: string) =>
      request<EvalRunRegradeCreated>('POST', `${run(projectId, runId)}/regrade`, { body: {} }),
    cancel: (projectId: string, runId: string) =>
      request<EvalRun>('POST', `${run(projectId, runId)}/cancel`, { body: {} }),
    iterations: (projectId: string, runId: string, query: PageQuery = {}) =>
      request<Collection<EvalIteration>>('GET', `${run(projectId, runId)}/iterations`, { query }),
    allIterations: (projectId: string, runId: string) =>
      all((cursor) => evalRuns.iterations(projectId, runId, { cursor, limit: 200 })),
    trace: (projectId: string, runId: string, iterationId: string) =>
      request<EvalTrace>('GET', `${run(projectId, runId)}/iterations/${enc(iterationId)}/trace`),
    /** the run against a base run (default: the suite's previous completed run) */
    compare: (projectId: string, runId: string, query: { baseRunId?: string; margin?: number } = {}) =>
      request<EvalRunComparison>('GET', `${run(projectId, runId)}/compare`, { query }),
    /** the run's models against one another (each against the first, or baseModel) */
    compareModels: (projectId: string, runId: string, query: { baseModel?: string; margin?: number } = {}) =>
      request<EvalModelComparison>('GET', `${run(projectId, runId)}/compare`, { query: { ...query, by: 'model' } }),
  };

  return {
    baseUrl: base,
    request,
    openapi: () => request<Record<string, unknown>>('GET', '/openapi.json', { auth: false }),
    me: () => request<Account>('GET', '/me'),
    projects: {
      list: (query: { organizationId?: string } = {}) => request<Collection<Project>>('GET', '/projects', { query }),
    },
    chatSessions: {
      list: (query: Partial<z.input<typeof chatSessionsQuery>> = {}) =>
        request<Collection<ChatSession>>('GET', '/chat-sessions', { query: query as RequestOptions['query'] }),
    },
    chatboxes: {
      list: (projectId: string) => request<Collection<ChatboxSummary>>('GET', `${project(projectId)}/chatboxes`),
      get: (projectId: string, chatboxId: string) =>
        request<Chatbox>('GET', `${project(projectId)}/chatboxes/${enc(chatboxId)}`),
    },
    servers,
    /** a server's tool surfaces (Runway extension): what runs and exports saw, and the diff of two */
    surfaces: {
      list: (projectId: string, serverId: string, query: { limit?: number; cursor?: string } = {}) =>
        request<Collection<ToolSurfaceSummary>>('GET', `${server(projectId, serverId)}/surfaces`, { query }),
      get: (projectId: string, serverId: string, hash: string) =>
        request<ToolSurface>('GET', `${server(projectId, serverId)}/surfaces/${enc(hash)}`),
      diff: (projectId: string, serverId: string, from: string, to: string) =>
        request<ToolSurfaceDiff>('GET', `${server(projectId, serverId)}/surfaces/diff`, { query: { from, to } }),
    },
    evalSuites: {
      create: (projectId: string, body: CreateEvalSuite) =>
        request<EvalSuiteCreated>('POST', `${project(projectId)}/eval-suites`, { body }),
      list: (projectId: string) => request<Collection<EvalSuite>>('GET', `${project(projectId)}/eval-suites`),
      runs: (projectId: string, suiteId: string, query: Partial<z.input<typeof suiteRunsQuery>> = {}) =>
        request<Collection<EvalRun>>('GET', `${project(projectId)}/eval-suites/${enc(suiteId)}/runs`, {
          query: query as RequestOptions['query'],
        }),
    },
    evalRuns,
    ingest: {
      uploadUrl: (projectId: string, body: UploadUrlRequest) =>
        request<UploadUrl>('POST', `${project(projectId)}/eval-ingest/artifacts/upload-url`, { body, ...read }),
      /** PUT the raw artifact to a minted URL (single use, so never repeated; no key: the URL is the capability) */
      async upload(uploadUrl: string, content: string | Uint8Array, contentType: string): Promise<UploadResult> {
        const response = await send(
          new URL(uploadUrl, base).toString(),
          {
            method: 'PUT',
            headers: { 'content-type': contentType, 'user-agent': options.userAgent ?? 'runway-client' },
            body: content,
          },
          false,
        );
        return await readReply<UploadResult>(response);
      },
    },
  };
}

export type RunwayClient = ReturnType<typeof createRunwayClient>;
