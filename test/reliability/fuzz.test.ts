import { mkdirSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RouteSpec } from '../../api/route.js';
import { templateConfig } from '../../api/hostTemplates.js';
import { createChatbox } from '../../db/catalog.js';
import { createHost } from '../../db/hosts.js';
import { createServer } from '../../db/servers.js';
import { snapshotDatabase } from '../helpers/dbSnapshot.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const REQUESTS = 10_000;
const CONCURRENCY = 8;
const TIMEOUT_MS = 10_000;

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** the route it aims at, for the figures */
  route: string;
  /** a request that must be rejected (and so write nothing) */
  mustReject: boolean;
}

/** JSON types a schema property does not accept, so a value of one of them makes the body invalid. */
const jsonTypes = ['string', 'number', 'boolean', 'object', 'array', 'null'] as const;
const valueOfType: Record<(typeof jsonTypes)[number], fc.Arbitrary<unknown>> = {
  string: fc.string({ maxLength: 50 }),
  number: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  boolean: fc.boolean(),
  object: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  array: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  null: fc.constant(null),
};

/** For each typed property of a route's body schema, a value of a type the property rejects. */
function wrongTypedBodies(schema: z.ZodType): fc.Arbitrary<Record<string, unknown>> | undefined {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: string | string[] }> };
  const typed = Object.entries(json.properties ?? {}).filter(([, p]) => typeof p.type === 'string' || Array.isArray(p.type));
  if (typed.length === 0) return undefined;
  return fc.constantFrom(...typed).chain(([name, property]) => {
    const accepted = new Set([property.type].flat().map((t) => (t === 'integer' ? 'number' : t)));
    const wrong = jsonTypes.filter((t) => !accepted.has(t));
    return fc.constantFrom(...wrong).chain((t) => valueOfType[t]).map((value) => ({ [name]: value }));
  });
}

const deepNesting = fc.integer({ min: 1_000, max: 100_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth));
const deepObject = fc.integer({ min: 500, max: 5_000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
/** Bodies no route accepts: not JSON, not an object, too deep to matter, or over the size limit. */
const malformedBody = fc.oneof(
  // (an empty body counts as {}, so it is not malformed)
  fc.string({ minLength: 1, maxLength: 200 }).filter((s) => {
    if (s.trim() === '') return false;
    try {
      const v = JSON.parse(s);
      return typeof v !== 'object' || v === null || Array.isArray(v);
    } catch {
      return true;
    }
  }),
  fc.constantFrom('{', '{"a":', '[1,2', 'null', 'true', '42', '"text"', '[]', '{"a":1}}', '\u0000', 'NaN', "{'single': 1}"),
  deepNesting,
  fc.constant('x'.repeat(1024 * 1024 + 10)),
  fc.constant(JSON.stringify({ pad: 'y'.repeat(7 * 1024 * 1024) })),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }).map((a) => JSON.stringify(a)),
);
const contentType = fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '');
const garbageSegment = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  fc.constant('x'.repeat(5000)),
  fc.constantFrom('%00', '..%2F..%2Fetc', '%E2%80%AE', 'null', '-1', '%ZZ', "1'%20OR%20'1'%3D'1"),
);
const garbageQuery = fc
  .dictionary(fc.constantFrom('limit', 'cursor', 'status', 'before', 'projectId', 'organizationId', 'x'), fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('-1', '0', '201', '1e309', 'abc', 'x'.repeat(3000), '[]')), { maxKeys: 4 })
  .map((q) => new URLSearchParams(q as Record<string, string>).toString());

function requestsFor(route: RouteSpec, validIds: Record<string, string>, key: string): fc.Arbitrary<FuzzRequest> {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  const writes = route.method !== 'get';
  // Writes only ever target ids that do not exist or bodies that cannot validate, so every one must be rejected.
  const validPath = route.path.replace(/:(\w+)/g, (_m, name: string) => validIds[name] ?? 'missing');
  const randomPath = fc.tuple(...names.map(() => garbageSegment)).map((segments) => {
    let i = 0;
    return route.path.replace(/:(\w+)/g, () => segments[i++] ?? 'x');
  });
  const wrongTyped = route.body ? wrongTypedBodies(route.body) : undefined;
  const bodies: fc.Arbitrary<{ path: string; body?: string }>[] = [
    // ids that do not exist, with any body at all (deeply nested objects included)
    fc.tuple(randomPath, fc.option(fc.oneof(fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), deepObject), { nil: undefined })).map(([path, body]) => ({ path, body })),
  ];
  if (writes) {
    bodies.push(malformedBody.map((body) => ({ path: validPath, body })));
    if (wrongTyped) bodies.push(wrongTyped.map((b) => ({ path: validPath, body: JSON.stringify(b) })));
  } else {
    bodies.push(garbageQuery.map((q) => ({ path: `${validPath}${q ? `?${q}` : ''}` })));
  }
  const auth = fc.constantFrom(`Bearer ${key}`, `Bearer ${key}`, `Bearer ${key}`, '', 'Bearer sk_forged', `Basic ${key}`, `Bearer ${key}x`);
  return fc.tuple(fc.oneof(...bodies), contentType, auth).map(([{ path, body }, type, authorization]) => ({
    method: route.method.toUpperCase(),
    path,
    body: writes ? body : undefined,
    headers: { ...(type ? { 'content-type': type } : {}), ...(authorization ? { authorization } : {}) },
    route: `${route.method.toUpperCase()} ${route.path}`,
    // With a valid key, a GET may legitimately succeed; a write aimed at a missing id or with a bad body may not.
    mustReject: writes,
  }));
}

describe('fuzzing every route with malformed requests', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  const validIds: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startTestStack({ worker: false, config: { RATE_LIMIT_BURST: '1000000', RATE_LIMIT_PER_MINUTE: '60000000' } });
    org = await seedOrganization(stack.sql);
    // a disabled server: no fuzzed request can make Runway connect anywhere
    const server = await createServer(stack.sql, stack.box, { projectId: org.projectId, name: 'fuzz', transportType: 'http', url: 'http://127.0.0.1:9/mcp', enabled: false });
    const host = await createHost(stack.sql, stack.box, { projectId: org.projectId, name: 'h', template: 'claude', config: templateConfig('claude') });
    const chatbox = await createChatbox(stack.sql, { projectId: org.projectId, name: 'c', modelId: 'openai/gpt-4.1', serverIds: [server.id] });
    await stack.sql`INSERT INTO eval_suites (id, project_id, name, server_ids) VALUES ('sui_fuzz', ${org.projectId}, 'fuzz', ${[server.id]})`;
    await stack.sql`INSERT INTO eval_runs (id, suite_id, project_id, organization_id, run_number, status, result) VALUES ('run_fuzz', 'sui_fuzz', ${org.projectId}, ${org.organizationId}, 1, 'completed', 'passed')`;
    await stack.sql`INSERT INTO eval_iterations (id, run_id, title, iteration_number, status) VALUES ('itr_fuzz', 'run_fuzz', 'case', 1, 'completed')`;
    Object.assign(validIds, { projectId: org.projectId, serverId: server.id, hostId: host.id, chatboxId: chatbox.id, suiteId: 'sui_fuzz', runId: 'run_fuzz', iterationId: 'itr_fuzz' });
  });
  afterAll(async () => stack?.stop());

  it(`answers ${REQUESTS} malformed requests with well-formed 4xx errors, never a 5xx or a hang, and writes nothing`, async () => {
    const routes = stack.app.routes;
    const unknownRoutes = fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), fc.string({ maxLength: 60 })).map(([method, p]) => ({
      method, path: `/${encodeURIComponent(p)}`, headers: { authorization: `Bearer ${org.apiKey}` }, route: 'unknown route', mustReject: true,
    } as FuzzRequest));
    const requests = fc.sample(fc.oneof(...routes.map((r) => requestsFor(r, validIds, org.apiKey)), unknownRoutes), { numRuns: REQUESTS, seed: 20261121 });
    const before = await snapshotDatabase(stack.sql);

    const statuses: Record<string, number> = {};
    const perRoute: Record<string, number> = {};
    const failures: string[] = [];
    let next = 0;
    const lane = async () => {
      while (next < requests.length) {
        const request = requests[next++];
        perRoute[request.route] = (perRoute[request.route] ?? 0) + 1;
        const describeIt = () => `${request.method} ${request.path.slice(0, 200)} (${request.body === undefined ? 'no body' : `${request.body.length} bytes`})`;
        try {
          const response = await fetch(stack.baseUrl + request.path, { method: request.method, headers: request.headers, body: request.body, signal: AbortSignal.timeout(TIMEOUT_MS) });
          const text = await response.text();
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          if (response.status >= 500) failures.push(`${response.status} for ${describeIt()}: ${text.slice(0, 200)}`);
          if (request.mustReject && response.status < 400) failures.push(`accepted ${describeIt()}`);
          if (response.status >= 400) {
            const body = JSON.parse(text) as { code?: unknown; message?: unknown; details?: unknown };
            if (typeof body.code !== 'string' || typeof body.message !== 'string' || (body.details !== undefined && (typeof body.details !== 'object' || body.details === null))) {
              failures.push(`malformed error envelope for ${describeIt()}: ${text.slice(0, 200)}`);
            }
          }
        } catch (error) {
          failures.push(`${String(error)} for ${describeIt()}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));

    expect(failures.slice(0, 10)).toEqual([]);
    expect(await snapshotDatabase(stack.sql)).toEqual(before);
    expect(Object.keys(perRoute).length).toBe(routes.length + 1);

    mkdirSync('test-results/reliability', { recursive: true });
    writeFileSync('test-results/reliability/fuzz.json', JSON.stringify({ requests: requests.length, routes: routes.length, statuses, perRoute }, null, 2));
  }, 300_000);
});
