import { compileErrors, validate } from '@readme/openapi-parser';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../runtime/logger.js';
import { createApp } from '../../api/app.js';
import { errorEnvelopeSchema, errorStatus } from '../../api/errors.js';
import {
  answerableErrors,
  buildOpenApiDocument,
  mountedRoutes,
  toOpenApiPath,
  type MountedRoute,
  type OpenApiDocument,
} from '../../api/openapi.js';
import { defineRoute } from '../../api/route.js';
import { apiClient } from '../helpers/http.js';
import { OpenApiReplies } from '../helpers/openApiReplies.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * Endpoints outside the versioned API, which the document (based at /api/v1) does not describe, each with the
 * reason. Anything else the app serves must be in the document.
 */
const OUTSIDE_THE_API: Record<string, string> = {
  'GET /': 'redirects to the API reference page, /docs',
  'GET /healthz': 'liveness probe (docs/OPERATIONS.md, Production)',
  'GET /readyz': 'readiness probe (docs/OPERATIONS.md, Production)',
  'GET /metrics': 'Prometheus scrape endpoint (docs/OPERATIONS.md, Metrics)',
  'ALL /docs': 'the API reference page: Swagger UI assets',
  'GET /docs/swagger-initializer.js': 'the API reference page: points Swagger UI at this document',
  'GET /sdk/v1/info': 'the MCPJam SDK reporter probe (contract-notes, Eval ingest)',
  'ALL /console': "the eval console: its page's security headers, and its built assets (docs/CONSOLE.md)",
  'GET /console': 'the eval console: redirects to /console/',
  'GET /console/': "the eval console's page",
  'GET /console/index.html': "the eval console's page",
};

/** `/projects/:projectId/x` and `/projects/{id}/x` have the same shape: `/projects/{}/x`. */
const shape = (path: string) => path.replace(/\{[^}]+\}|[:*][A-Za-z_]\w*/g, '{}');

interface Drift {
  undocumented: string[];
  notServed: string[];
}

/** Compares what the Express app serves (from its router, not the registry) with the document's operations. */
function drift(
  served: MountedRoute[],
  document: OpenApiDocument,
  sdkAlias: (path: string) => string | undefined,
): Drift {
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) if (item?.[method]) documented.add(`${method.toUpperCase()} ${shape(path)}`);
  }
  const documentedPaths = new Set([...documented].map((op) => op.split(' ')[1]));
  const covered = new Set<string>();
  const undocumented: string[] = [];
  for (const route of served) {
    const name = `${route.method} ${route.path}`;
    if (route.path.startsWith('/api/v1/')) {
      const path = shape(route.path.slice('/api/v1'.length));
      if (route.method === 'ALL') {
        // `router.all`: documented when its path is; it then serves every documented method of that path.
        if (!documentedPaths.has(path)) undocumented.push(name);
        for (const op of documented) if (op.endsWith(` ${path}`)) covered.add(op);
      } else if (documented.has(`${route.method} ${path}`)) {
        covered.add(`${route.method} ${path}`);
      } else {
        undocumented.push(name);
      }
    } else if (route.path.startsWith('/sdk/v1/') && OUTSIDE_THE_API[name] === undefined) {
      // The SDK alias serves documented ingest operations under other paths.
      const target = sdkAlias(route.path.slice('/sdk/v1'.length));
      if (!target || !documented.has(`${route.method} ${shape(target)}`)) undocumented.push(name);
    } else if (OUTSIDE_THE_API[name] === undefined) {
      undocumented.push(name);
    }
  }
  return { undocumented, notServed: [...documented].filter((op) => !covered.has(op)) };
}

/** `/evals/runs/start` -> `/projects/{projectId}/eval-ingest/runs/start` */
const sdkTarget = (path: string) =>
  path.startsWith('/evals/') ? `/projects/{projectId}/eval-ingest/${path.slice('/evals/'.length)}` : undefined;

describe('the OpenAPI document', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let document: OpenApiDocument;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '100000', RATE_LIMIT_PER_MINUTE: '6000000' },
    });
    org = await seedOrganization(stack.sql);
    const reply = await fetch(`${stack.baseUrl}/openapi.json`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/application\/json/);
    document = (await reply.json()) as OpenApiDocument;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is served without a key and is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([expect.objectContaining({ url: '/api/v1' })]);
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it('its reply schemas are JSON Schema 2020-12 that a validator compiles, every one', () => {
    const replies = new OpenApiReplies(document as never, { id: 'https://runway.invalid/openapi.json' });
    expect(replies.compileAll()).toBeGreaterThan(stack.app.routes.length);
    // Each one checks: an iteration without its `id` is refused.
    const iterations = replies.operations().find((op) => op.operationId === 'getEvalRunIterations')!;
    expect(replies.replyProblems(iterations, 200, { items: [{ title: 'no id' }] })).toEqual(
      expect.arrayContaining([expect.stringContaining("must have required property 'id'")]),
    );
  });

  it("describes the fields replies carry beyond the contract, e.g. an ingested iteration's metadata and externalIterationId", () => {
    const schemas = document.components?.schemas as Record<
      string,
      { properties?: Record<string, { properties?: Record<string, unknown> }> }
    >;
    expect(Object.keys(schemas.EvalIteration.properties!)).toEqual(
      expect.arrayContaining(['metadata', 'externalIterationId', 'errorDetails', 'usage']),
    );
    expect(Object.keys(schemas.DoctorReport.properties!.timeouts.properties!)).toContain('resumption');
  });

  it('documents exactly the routes the app serves (drift)', () => {
    const result = drift(mountedRoutes(stack.app.express), document, sdkTarget);
    expect(result.undocumented, 'routes the app serves that the document lacks').toEqual([]);
    expect(result.notServed, 'operations the document lists that the app does not serve').toEqual([]);
  });

  it('the drift check sees a route mounted by hand and an operation nobody serves', () => {
    const app = createApp({
      ...stack.services,
      temporal: stack.temporal,
      config: stack.config,
      log: createLogger('silent'),
    });
    const rogue = express.Router();
    rogue.get('/debug/state', (_req, res) => void res.json({}));
    app.express.use('/api/v1', rogue);
    app.express.get('/admin', (_req, res) => void res.json({}));
    const phantom = defineRoute({
      method: 'get',
      path: '/phantom',
      tag: 'Meta',
      summary: 'not mounted',
      response: z.object({}),
      errors: [],
      handler: async () => ({}),
    });
    const result = drift(
      mountedRoutes(app.express),
      buildOpenApiDocument([...app.routes, phantom], { perMinute: 60, burst: 10, anonPerMinute: 60, anonBurst: 20 }),
      sdkTarget,
    );
    expect(result.undocumented).toEqual(['GET /api/v1/debug/state', 'GET /admin']);
    expect(result.notServed).toEqual(['GET /phantom']);
  });

  it('describes every route: operation, parameters, body, success reply, every error reply and the auth scheme', () => {
    expect(document.components?.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'sk_...' }),
    });
    expect(document.security).toEqual([{ apiKey: [] }]);
    expect(document.components?.schemas?.Error).toMatchObject({ type: 'object', required: ['code', 'message'] });
    const operationIds = new Set<string>();
    for (const route of stack.app.routes) {
      const where = `${route.method.toUpperCase()} ${route.path}`;
      const op = document.paths?.[toOpenApiPath(route.path)]?.[route.method];
      expect(op, where).toBeDefined();
      if (!op) continue;
      expect(op.summary, where).toBe(route.summary);
      expect(op.tags, where).toEqual([route.tag]);
      expect(operationIds.has(op.operationId!), `${where}: operationId ${op.operationId} is unique`).toBe(false);
      operationIds.add(op.operationId!);
      // Path parameters, query parameters: the same names as the zod schemas.
      const params = (op.parameters ?? []) as { in: string; name: string; required?: boolean }[];
      const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      expect(
        params
          .filter((p) => p.in === 'path')
          .map((p) => p.name)
          .sort(),
        where,
      ).toEqual(pathNames.sort());
      const queryNames = route.query instanceof z.ZodObject ? Object.keys(route.query.shape) : [];
      expect(
        params
          .filter((p) => p.in === 'query')
          .map((p) => p.name)
          .sort(),
        where,
      ).toEqual(queryNames.sort());
      // A body on every route that reads one.
      if (route.method !== 'get') expect(op.requestBody, where).toBeDefined();
      if (route.body instanceof z.ZodObject) {
        const content = (op.requestBody as { content: Record<string, unknown> }).content;
        expect(Object.keys(content), where).toEqual(['application/json']);
      }
      // The success reply with its schema (JSON unless the route streams something else, e.g. server-sent events).
      const status = String(route.status ?? 200);
      expect(op.responses?.[status], where).toMatchObject({
        content: { [route.responseType ?? 'application/json']: { schema: expect.any(Object) } },
      });
      // Every declared error, and 401/429/500 on every route that needs a key, in the envelope.
      const codes = answerableErrors(route);
      for (const code of route.errors) expect(codes).toContain(code);
      if (route.auth !== false)
        expect(codes).toEqual(expect.arrayContaining(['UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL_ERROR']));
      for (const code of codes) {
        const reply = op.responses?.[String(errorStatus[code])] as
          { description: string; content: unknown; headers?: Record<string, unknown> } | undefined;
        expect(reply, `${where} answers ${code}`).toBeDefined();
        expect(reply!.description, where).toContain(code);
        expect(reply!.content, where).toEqual({
          'application/json': { schema: { $ref: '#/components/schemas/Error' } },
        });
        if (code === 'RATE_LIMITED') expect(reply!.headers, where).toHaveProperty('Retry-After');
      }
      // Auth: the global bearer scheme, or none for the routes without a key.
      if (route.auth === false) expect(op.security, where).toEqual([]);
      else expect(op.security, where).toBeUndefined();
    }
  });

  it('every documented operation is answered by the app: 401 in the envelope without a key, a real route with one', async () => {
    const call = apiClient(stack.baseUrl, org.apiKey);
    const anonymous = apiClient(stack.baseUrl);
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      const concrete = path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === 'projectId' ? org.projectId : `unknown_${name}`,
      );
      for (const method of METHODS) {
        const op = item?.[method];
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        const secured = op.security === undefined;
        if (secured) {
          const reply = await anonymous(method.toUpperCase(), concrete, method === 'get' ? undefined : {});
          expect(reply.status, where).toBe(401);
          expect(errorEnvelopeSchema.safeParse(reply.body).success, where).toBe(true);
        }
        const reply = await call(method.toUpperCase(), concrete, method === 'get' ? undefined : {});
        // Whatever the answer (400, 403, 404 for the unknown ids, 200), it comes from the route, not the fallback.
        expect(reply.body?.message ?? '', where).not.toMatch(/^no route for/);
        expect(reply.status, where).toBeLessThan(500);
        const documentedStatuses = Object.keys(op.responses ?? {});
        expect(documentedStatuses, `${where} answered ${reply.status}: ${JSON.stringify(reply.body)}`).toContain(
          String(reply.status),
        );
      }
    }
  });
});
