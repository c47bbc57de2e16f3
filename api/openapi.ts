import { readFileSync } from 'node:fs';
import type { Express } from 'express';
import { z } from 'zod';
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiOverride,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { formatCount, limits } from '../domain/limits.js';
import { errorEnvelopeSchema, errorStatus, type ErrorCode } from './errors.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENT_REPLAYED_HEADER } from './idempotency.js';
import { defineRoute, noBody, type RouteSpec } from './route.js';

export type OpenApiDocument = oas31.OpenAPIObject;

/** Where the document sits; its `servers` entry is this prefix, so paths read exactly as in api.md. */
export const API_PREFIX = '/api/v1';
export const OPENAPI_PATH = '/openapi.json';

const SECURITY_SCHEME = 'apiKey';

/** What each code means, shown in every error reply's description (api.md "Errors"). */
const errorMeaning: Record<ErrorCode, string> = {
  UNAUTHORIZED: 'missing, invalid, revoked or orphaned key (details.reason KEY_REVOKED or ORPHANED_KEY)',
  OAUTH_REQUIRED: 'the target MCP server needs an OAuth grant: import tokens with /oauth/import-tokens',
  FORBIDDEN: 'the key is valid but may never use this surface (an upload URL: expired, or its key was revoked)',
  VALIDATION_ERROR: 'malformed body, query or path parameters (details.issues lists them)',
  NOT_FOUND: "no such resource within the key's reach (other organizations' resources look the same)",
  METHOD_NOT_ALLOWED: 'the path is served, with other methods: the Allow header names them',
  CONFLICT: 'the resource is not in a state that allows this',
  FEATURE_NOT_SUPPORTED: 'the target server lacks the MCP capability',
  RATE_LIMITED:
    "per-key rate limit, the per-address limit on work without a usable key, or the organization's concurrent-run cap; wait Retry-After seconds",
  INTERNAL_ERROR: 'failure on the service side',
  SERVER_UNREACHABLE: 'could not connect to the target MCP server',
  TIMEOUT: 'the target server connected but did not answer in time',
};

const tagDescriptions: Record<string, string> = {
  Catalog: 'The account, projects and saved servers the key can reach.',
  'Server operations': 'MCP operations on a saved server, answered synchronously. MCP results come back unchanged.',
  Evals: 'Eval suites and asynchronous eval runs: create a run (202), then poll it.',
  'Server checks':
    'Runway extension: checks of a saved server that run in the worker, e.g. a conformance check with the official MCP conformance suite (202, then poll the check).',
  Hosts: 'Model plus client-capability profiles.',
  Chat: 'Chat sessions and published chatboxes (read-only).',
  'Eval ingest': 'Save eval results produced elsewhere (CI, the MCPJam SDK reporter); every call is idempotent.',
  Meta: 'This document.',
  'API keys': 'The key-management surface, which API keys can never use.',
};

const retryAfter = {
  'Retry-After': {
    description: 'whole seconds to wait before retrying (at least 1)',
    schema: { type: 'integer', minimum: 1 },
  },
} satisfies Record<string, oas31.HeaderObject>;

const packageVersion = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** `/projects/:projectId/servers` -> `/projects/{projectId}/servers`. Other Express path syntax is refused, not guessed. */
export function toOpenApiPath(expressPath: string): string {
  return expressPath
    .split('/')
    .map((segment) => {
      const param = /^[:*]([A-Za-z_][A-Za-z0-9_]*)$/.exec(segment);
      if (param) return `{${param[1]}}`;
      if (/[:*{}()?+]/.test(segment))
        throw new Error(`cannot document the Express path segment "${segment}" in ${expressPath}`);
      return segment;
    })
    .join('/');
}

function pathParamNames(expressPath: string): string[] {
  return expressPath.split('/').flatMap((s) => (/^[:*]/.test(s) ? [s.slice(1)] : []));
}

const singular = (word: string) =>
  word.endsWith('ies')
    ? `${word.slice(0, -3)}y`
    : /(x|s|ch|sh)es$/.test(word)
      ? word.slice(0, -2)
      : word.endsWith('s')
        ? word.slice(0, -1)
        : word;

/** `post /projects/:projectId/eval-runs/:runId/cancel` -> `postEvalRunCancel`; unique per route, stable across releases. */
export function operationId(route: Pick<RouteSpec, 'method' | 'path'>): string {
  const segments = route.path.split('/').filter(Boolean);
  const words: string[] = [];
  segments.forEach((segment, i) => {
    const isParam = segment.startsWith(':') || segment.startsWith('*');
    if (isParam) {
      // A parameter after a collection names one member of it: `eval-runs/:runId` reads `EvalRun`.
      const previous = words.at(-1);
      if (previous && i > 0) words[words.length - 1] = singular(previous);
      return;
    }
    if (segment === 'projects' && segments[i + 1]?.startsWith(':') && i + 2 < segments.length) return; // every project-scoped route
    words.push(segment);
  });
  const name = words
    .flatMap((w) => w.split(/[-_.]/))
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  return route.method + name;
}

/**
 * Every error code a route can answer: the ones it declares, those of every authenticated route (401, 429), 500
 * always, and 400 wherever something is validated (params, query, a body, or a JSON body on any non-GET route).
 */
export function answerableErrors(route: RouteSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors);
  if (route.auth !== false) {
    codes.add('UNAUTHORIZED');
    codes.add('RATE_LIMITED');
  }
  if (route.params || route.query || route.body || (route.method !== 'get' && route.auth !== false))
    codes.add('VALIDATION_ERROR');
  // Idempotency-Key reused with another request, or still under way (api/idempotency.ts)
  if (route.idempotent) codes.add('CONFLICT');
  codes.add('INTERNAL_ERROR');
  return [...codes];
}

function errorResponses(codes: ErrorCode[]): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status) as `${1 | 2 | 3 | 4 | 5}${string}`] = {
      description: list.map((code) => `\`${code}\`: ${errorMeaning[code]}`).join('. '),
      ...(status === 429 ? { headers: retryAfter } : {}),
      content: { 'application/json': { schema: errorEnvelopeSchema } },
    };
  }
  return responses;
}

const statusText: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

/** The optional header of the routes that take an Idempotency-Key (api/idempotency.ts; docs/API.md "Idempotency-Key"). */
const idempotencyHeader = z.object({
  [IDEMPOTENCY_KEY_HEADER]: z
    .string()
    .min(1)
    .max(IDEMPOTENCY_KEY_MAX_LENGTH)
    .regex(/^[\x20-\x7E]+$/)
    .optional()
    .meta({
      description:
        `1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters (a UUID). A retry with the same key and the same request (path parameters, query, body) within 24 hours ` +
        `gets the first reply, status and body, with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`, and does nothing again, even when retries race. ` +
        'The same key with another request: 409 CONFLICT (details.reason IDEMPOTENCY_KEY_REUSED); while the first request is still under way: ' +
        '409 CONFLICT (IDEMPOTENCY_KEY_IN_PROGRESS) with Retry-After. Kept: 2xx and 4xx replies; a 429 or 5xx gives the key up for a retry. ' +
        'Scoped by API key and operation. Malformed: 400 VALIDATION_ERROR (INVALID_IDEMPOTENCY_KEY).',
    }),
});

const replayedHeader = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description: `\`true\` when this is the kept reply of an earlier request with the same ${IDEMPOTENCY_KEY_HEADER}`,
    schema: { type: 'string', enum: ['true'] },
  },
} satisfies Record<string, oas31.HeaderObject>;

function operation(route: RouteSpec): ZodOpenApiOperationObject {
  const params = route.params;
  const declared = params instanceof z.ZodObject ? Object.keys(params.shape) : [];
  const missing = pathParamNames(route.path).filter((name) => !declared.includes(name));
  if (missing.length > 0)
    throw new Error(
      `${route.method.toUpperCase()} ${route.path}: path parameters without a schema: ${missing.join(', ')}`,
    );
  const status = route.status ?? 200;
  const requestParams: NonNullable<ZodOpenApiOperationObject['requestParams']> = {};
  if (params) requestParams.path = params as never;
  if (route.query) requestParams.query = route.query as never;
  if (route.idempotent) requestParams.header = idempotencyHeader as never;
  const bodySchema = route.body ?? (route.method === 'get' ? undefined : noBody);
  // A body schema that is not JSON-shaped (z.unknown) means raw bytes of any type, read by the handler itself.
  const mediaType = bodySchema instanceof z.ZodUnknown || bodySchema instanceof z.ZodAny ? '*/*' : 'application/json';
  return {
    operationId: route.operationId ?? operationId(route),
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.auth === false ? { security: [] } : {}),
    ...(params || route.query || route.idempotent ? { requestParams } : {}),
    ...(bodySchema
      ? {
          requestBody: {
            // An empty body counts as `{}`, so a body is required only when `{}` would not do.
            required: !bodySchema.safeParse({}).success,
            content: { [mediaType]: { schema: bodySchema } },
          },
        }
      : {}),
    responses: {
      [String(status)]: {
        description: statusText[status] ?? 'Success',
        ...(route.idempotent ? { headers: replayedHeader } : {}),
        content: { [route.responseType ?? 'application/json']: { schema: route.response } },
      },
      ...Object.fromEntries(
        (route.alternates ?? []).map((alternate) => [
          String(alternate.status),
          {
            description: alternate.description,
            ...(route.idempotent ? { headers: replayedHeader } : {}),
            content: { 'application/json': { schema: alternate.response } },
          },
        ]),
      ),
      ...errorResponses(answerableErrors(route)),
    },
  };
}

/**
 * The key-management surface is mounted outside the registry (it has no handler of its own: every request is
 * refused), so it is described here; the drift test holds this description to the router.
 */
function keyManagementPaths(): ZodOpenApiPathsObject {
  const refused = (summary: string, method: string, path: string): ZodOpenApiOperationObject => ({
    operationId: operationId({ method: method as RouteSpec['method'], path }),
    ...(path.includes(':keyId') ? { requestParams: { path: z.object({ keyId: z.string() }) } } : {}),
    tags: ['API keys'],
    summary,
    description:
      'API keys cannot manage API keys: an `sk_` bearer gets 403 FORBIDDEN; keys are created, listed and revoked by an operator with `npm run -s admin -- key create` (`key list`, `key revoke`).',
    responses: errorResponses(['FORBIDDEN', 'UNAUTHORIZED']),
  });
  return {
    '/api-keys': {
      get: refused('List API keys (not available to API keys)', 'get', '/api-keys'),
      post: refused('Create an API key (not available to API keys)', 'post', '/api-keys'),
    },
    '/api-keys/{keyId}': {
      delete: refused('Revoke an API key (not available to API keys)', 'delete', '/api-keys/:keyId'),
    },
  };
}

const bounds = [
  `${formatCount(limits.testsPerRequest)} inline tests per request`,
  `${formatCount(limits.runsPerTest)} runs per test`,
  `${formatCount(limits.iterationsPerRun)} iterations per run (TOO_MANY_ITERATIONS)`,
  `${formatCount(limits.casesPerSuite)} cases per suite (TOO_MANY_CASES)`,
  `${formatCount(limits.resultsPerCall)} results per ingest call`,
  `${formatCount(limits.iterationsPerIngestedRun)} iterations per ingested run (TOO_MANY_ITERATIONS)`,
  `${formatCount(limits.resultsPerArtifact)} tests per artifact (TOO_MANY_RESULTS)`,
].join(', ');

/** The request limits this instance enforces (its configuration), which the overview states. */
export interface RequestLimits {
  perMinute: number;
  burst: number;
  anonPerMinute: number;
  anonBurst: number;
}

const overview = (
  rate: RequestLimits,
) => `Runway operates the MCP servers saved in your projects and runs LLM evals against them.

**Authentication.** Every request carries \`Authorization: Bearer sk_...\`. A key is bound to one organization.

**Errors.** Every error reply is \`{ code, message, details? }\`; the HTTP status follows from the code. Codes are
stable, messages are not. A path this document lists, called with a method it does not list for that path, is
\`405 METHOD_NOT_ALLOWED\` with an \`Allow\` header naming the methods it takes (a path it does not list is \`404\`).

**Requests are strict, replies are open.** A body field or query parameter an operation does not take, at any depth,
is a \`400 VALIDATION_ERROR\` with \`details.reason: "UNKNOWN_FIELD"\` and \`details.issues\` (\`{ path, field, hint }\`,
e.g. "did you mean \`expectedToolCalls\`?"), never ignored. Replies may gain fields: ignore the ones you do not know.

**Limits.** ${formatCount(rate.perMinute)} requests per minute per key with bursts of ${formatCount(rate.burst)} (\`429 RATE_LIMITED\` with
\`Retry-After\`); retry with jitter. Requests without a usable key (missing, invalid or revoked keys, upload URLs) are
limited per client address: ${formatCount(rate.anonPerMinute)} a minute with bursts of ${formatCount(rate.anonBurst)}.
The work one request can trigger is bounded, each bound a \`400 VALIDATION_ERROR\` with \`details.reason\` and
\`details.limit\`: ${bounds}.

**Pagination.** Collections are \`{ items, nextCursor? }\`; pass \`nextCursor\` back as \`cursor\`.

**MCPJam SDK.** \`/sdk/v1/evals/...\` (outside this document's base path) serves the eval-ingest operations below for
the key organization's default project, for the MCPJam SDK reporter (\`MCPJAM_BASE_URL\`); its errors also carry an
\`error\` string.`;

/**
 * Replies are open to additive fields (clients ignore the ones they do not know), so no reply object says
 * `additionalProperties: false`, which zod writes for every object it outputs. Request bodies say it exactly where
 * their schemas are strict (the strict-body rule).
 */
const openReplies: ZodOpenApiOverride = ({ jsonSchema, io }) => {
  if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
};

/** The OpenAPI 3.1 document of /api/v1, generated from the zod schemas that validate each route's requests and replies. */
export function buildOpenApiDocument(routes: RouteSpec[], rate: RequestLimits): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = keyManagementPaths();
  for (const route of routes) {
    const path = toOpenApiPath(route.path);
    const item = (paths[path] ??= {});
    if (item[route.method]) throw new Error(`two routes for ${route.method.toUpperCase()} ${route.path}`);
    item[route.method] = operation(route);
  }
  const tags = [...new Set([...routes.map((r) => r.tag), 'API keys'])].map((name) => ({
    name,
    ...(tagDescriptions[name] ? { description: tagDescriptions[name] } : {}),
  }));
  return createDocument(
    {
      openapi: '3.1.0',
      info: { title: 'Runway API', version: packageVersion, description: overview(rate) },
      servers: [{ url: API_PREFIX, description: 'this Runway instance' }],
      security: [{ [SECURITY_SCHEME]: [] }],
      tags,
      paths,
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'sk_...',
            description:
              'An API key (`sk_...`) created by an operator with `npm run -s admin -- key create`, sent as `Authorization: Bearer sk_...`.',
          },
        },
      },
    },
    { override: openReplies },
  );
}

/**
 * `GET /openapi.json` (no key): a route of the registry like any other, so the document describes itself. It is
 * built once, on first request, from the app's complete route list.
 */
export function openApiRoute(allRoutes: () => RouteSpec[], rate: RequestLimits): RouteSpec {
  let document: OpenApiDocument | undefined;
  const documentSchema = z
    .looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) })
    .meta({ id: 'OpenApiDocument' });
  return defineRoute({
    method: 'get',
    path: OPENAPI_PATH,
    tag: 'Meta',
    summary: 'This OpenAPI 3.1 document',
    auth: false,
    response: documentSchema,
    errors: [],
    // zod-openapi's types are interfaces without index signatures; the document is plain JSON, open at every level.
    handler: async () =>
      (document ??= buildOpenApiDocument(allRoutes(), rate)) as unknown as z.input<typeof documentSchema>,
  });
}

export interface MountedRoute {
  /** GET, POST, ... or ALL */
  method: string;
  /** the full Express path, e.g. `/api/v1/projects/:projectId/servers` */
  path: string;
  /** a route answers its path; a mount (static files, a handler without a route) answers everything below it */
  kind: 'route' | 'mount';
}

interface RouterLayer {
  rawPath?: string | string[] | RegExp;
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
}

/**
 * What the Express app really serves, read from its router stack (not from the route registry), so that a route
 * mounted by hand anywhere is seen: the drift test compares this with the document, and the HTTP metrics label
 * requests with these patterns.
 */
export function mountedRoutes(app: Express): MountedRoute[] {
  const found: MountedRoute[] = [];
  const paths = (p: string | string[] | RegExp | undefined) =>
    p === undefined ? ['/'] : Array.isArray(p) ? p : [p instanceof RegExp ? String(p) : p];
  const join = (prefix: string, path: string) => (path === '/' ? prefix || '/' : prefix + path);
  const walk = (stack: RouterLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const methods = Object.keys(layer.route.methods)
          .filter((m) => layer.route!.methods[m])
          .map((m) => (m === '_all' ? 'ALL' : m.toUpperCase()));
        for (const path of paths(layer.route.path))
          for (const method of methods) found.push({ method, path: join(prefix, path), kind: 'route' });
      } else if (layer.handle.stack) {
        for (const path of paths(layer.rawPath))
          walk(layer.handle.stack, join(prefix, path) === '/' ? '' : join(prefix, path));
      } else {
        // Middleware mounted at the root (logging, auth, the error handler) serves nothing of its own.
        for (const path of paths(layer.rawPath))
          if (path !== '/') found.push({ method: 'ALL', path: join(prefix, path), kind: 'mount' });
      }
    }
  };
  walk((app.router as unknown as { stack: RouterLayer[] }).stack, '');
  return found;
}
