import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '../../api/route.js';
import { templateConfig } from '../../api/hostTemplates.js';
import { createChatbox } from '../../db/catalog.js';
import { createHost } from '../../db/hosts.js';
import { hashUploadToken } from '../../domain/ingest/uploads.js';
import type { ArtifactFormat } from '../../db/ingestArtifacts.js';
import { createServer } from '../../db/servers.js';
import { snapshotDatabase } from '../helpers/dbSnapshot.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';
import {
  hostileCursor,
  hostileFor,
  hostileNumberText,
  hostileQueryText,
  schemaFields,
  serialize,
  withValueAt,
  wrongTypeFor,
  type Field,
  type PathStep,
} from './hostileValues.js';

const REQUESTS = 10_000;
const CONCURRENCY = 8;
const TIMEOUT_MS = 10_000;

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** rendered when sent: a deep body is never held in memory */
  body?: string | (() => string);
  /** the route it aims at, for the figures */
  route: string;
  /** the class of input, for the figures */
  kind: string;
  /** a request that must be rejected (and so write nothing) */
  mustReject: boolean;
  /** an artifact upload: sent to an upload URL of its own, minted with this format */
  artifact?: ArtifactFormat;
}

/**
 * Where a request goes. `main` holds the ids the fuzz aims its must-reject requests at: any write reaching a
 * handler there would show in the database. `sandbox` is an organization of its own that takes the requests which
 * may legitimately succeed (a boundary number, multi-byte text), so that hostile-but-valid values reach the
 * handlers and the database, as the int4 overflow of `tokens` once did; what they write is checked to belong to a
 * 2xx reply. Elsewhere such requests aim at ids that do not exist (answered after validation).
 */
type Target = 'main' | 'sandbox' | 'missing';

/** Routes whose writes stay inside their project and call nothing outside (no Temporal run, no MCP server). */
const sandboxRoutes = new Set([
  'POST /projects/:projectId/hosts',
  'PATCH /projects/:projectId/hosts/:hostId',
  'POST /projects/:projectId/eval-suites',
  'PATCH /projects/:projectId/eval-suites/:suiteId',
  'POST /projects/:projectId/eval-suites/:suiteId/cases',
  'PATCH /projects/:projectId/eval-suites/:suiteId/cases/:caseId',
  'POST /projects/:projectId/eval-ingest/report',
  'POST /projects/:projectId/eval-ingest/runs/start',
  'POST /projects/:projectId/eval-ingest/runs/iterations',
  'POST /projects/:projectId/eval-ingest/runs/finalize',
  'POST /projects/:projectId/eval-ingest/artifacts/upload-url',
  'POST /webhooks',
  'POST /projects/:projectId/webhooks',
  'PATCH /webhooks/:webhookId',
]);

const uploadRoutes = new Set(['POST /eval-ingest/uploads', 'PUT /eval-ingest/uploads']);

// A new tag per example, so that accepted reports create new runs instead of finding the first one.
let tag = 0;

const toolCall = { toolName: 'echo', arguments: { message: 'hi', n: 1 } };
const testCase = () => ({
  title: `case ${++tag}`,
  query: 'what is the weather',
  runs: 1,
  model: 'openai/gpt-4.1',
  provider: 'openai',
  isNegativeTest: false,
  expectedOutput: 'sunny',
  expectedToolCalls: [toolCall],
  advancedConfig: { system: 'be brief', temperature: 0.5, maxSteps: 3, toolChoice: 'auto', failOnToolError: true },
  matchOptions: { toolCallOrder: 'ignore', maxExtraToolCalls: 1, argumentMatching: 'partial' },
});
/** A case in the real product's names, as the case routes take it. */
const publicCase = () => ({
  kind: 'prompt',
  prompt: 'what is the weather',
  iterations: 1,
  models: [{ model: 'openai/gpt-4.1', provider: 'openai' }],
  isNegative: false,
  expectedOutput: 'sunny',
  scenario: 's',
  expectedToolCalls: ['echo', toolCall],
  advancedConfig: { system: 'be brief', temperature: 0.5, maxSteps: 3, toolChoice: 'auto', failOnToolError: true },
  matchOptions: { toolCallOrder: 'in-order', extraToolCalls: 1, arguments: 'partial' },
});
const result = () => ({
  caseTitle: `case ${++tag}`,
  query: 'q',
  passed: true,
  durationMs: 12.5,
  provider: 'openai',
  model: 'gpt-4.1',
  expectedToolCalls: [toolCall],
  actualToolCalls: [{ ...toolCall, isError: false }],
  tokens: { input: 10, output: 5, total: 15 },
  error: 'failed',
  errorDetails: { stack: 'at x' },
  trace: {
    messages: [{ role: 'user', content: 'hi' }],
    spans: [{ id: 's1', name: 'llm', category: 'llm', startMs: 0, endMs: 5, status: 'ok' }],
    prompts: [{ promptIndex: 0 }],
  },
  externalIterationId: `itr-${tag}`,
  externalCaseId: `case-${tag}`,
  metadata: { note: 'n', n: 1, ok: true },
  isNegativeTest: false,
});
const ingestRun = () => ({
  suiteName: 'fuzz ingest',
  suiteDescription: 'd',
  serverNames: ['fuzz'],
  notes: 'n',
  passCriteria: { minimumPassRate: 50 },
  externalRunId: `run-${++tag}`,
  framework: 'vitest',
  ci: {
    provider: 'github',
    pipelineId: 'p',
    jobId: 'j',
    runUrl: 'https://ci.example.test/1',
    branch: 'main',
    commitSha: 'abc',
  },
  expectedIterations: 3,
  tags: ['fuzz'],
});

/** A valid body for each route that takes JSON, given the ids of its target. */
const validBodies: Record<string, (ids: Record<string, string>) => Record<string, unknown>> = {
  'POST /projects/:projectId/hosts': () => ({ name: `host ${++tag}`, config: templateConfig('claude') }),
  'PATCH /projects/:projectId/hosts/:hostId': () => ({ name: `host ${++tag}`, config: templateConfig('cursor') }),
  'POST /projects/:projectId/eval-suites': (ids) => ({
    name: `suite ${++tag}`,
    description: 'd',
    serverIds: [ids.serverId],
    model: 'openai/gpt-4.1',
    provider: 'openai',
    tests: [testCase()],
    passCriteria: { minimumPassRate: 80 },
  }),
  'PATCH /projects/:projectId/eval-suites/:suiteId': (ids) => ({
    name: `suite ${++tag}`,
    description: 'd',
    serverIds: [ids.serverId],
    model: 'openai/gpt-4.1',
    passCriteria: { minimumPassRate: 80 },
    hostId: ids.hostId,
  }),
  'POST /projects/:projectId/eval-suites/:suiteId/cases': () => ({ ...publicCase(), title: `case ${++tag}` }),
  'PATCH /projects/:projectId/eval-suites/:suiteId/cases/:caseId': () => ({ ...publicCase(), title: `case ${++tag}` }),
  'POST /projects/:projectId/eval-runs': (ids) => ({
    suiteName: `suite ${++tag}`,
    suiteDescription: 'd',
    tests: [testCase()],
    serverIds: [ids.serverId],
    model: 'openai/gpt-4.1',
    modelApiKeys: { openai: 'sk-test' },
    notes: 'n',
    passCriteria: { minimumPassRate: 50 },
    iterationOverride: 1,
  }),
  'PATCH /projects/:projectId/eval-suites/:suiteId/schedule': () => ({ enabled: true, intervalMinutes: 60 }),
  'POST /projects/:projectId/eval-suites/:suiteId/cases/generate': () => ({
    count: 3,
    model: 'gpt-4.1',
    provider: 'openai',
  }),
  'POST /projects/:projectId/eval-ingest/report': () => ({ ...ingestRun(), results: [result()] }),
  'POST /projects/:projectId/eval-ingest/runs/start': () => ingestRun(),
  'POST /projects/:projectId/eval-ingest/runs/iterations': (ids) => ({ runId: ids.ingestRunId, results: [result()] }),
  'POST /projects/:projectId/eval-ingest/runs/finalize': (ids) => ({
    runId: ids.ingestRunId,
    externalRunId: ids.ingestExternalRunId,
  }),
  'POST /projects/:projectId/eval-ingest/artifacts/upload-url': () => ({
    format: 'jest-json',
    suiteName: 'fuzz uploads',
  }),
  'POST /projects/:projectId/servers/:serverId/oauth/import-tokens': () => ({
    serverUrl: 'http://127.0.0.1:9/mcp',
    tokens: { access_token: 'a', refresh_token: 'r', expires_in: 3600, token_type: 'Bearer', scope: 's' },
    clientInformation: { clientId: 'c', clientSecret: 's' },
    authorizationServerUrl: 'http://127.0.0.1:9/',
    oauthResourceUrl: 'http://127.0.0.1:9/mcp',
  }),
  'POST /projects/:projectId/servers/:serverId/tools': () => ({ cursor: 'c' }),
  'POST /projects/:projectId/servers/:serverId/conformance': () => ({ specVersion: '2025-11-25' }),
  'POST /projects/:projectId/servers/:serverId/tools/call': () => ({
    toolName: 'echo',
    parameters: { message: 'hi', nested: { list: [1, 'two'] } },
  }),
  'POST /projects/:projectId/servers/:serverId/prompts': () => ({ cursor: 'c' }),
  'POST /projects/:projectId/servers/:serverId/prompts/get': () => ({
    promptName: 'p',
    arguments: { a: 'x', n: 1, b: true },
  }),
  'POST /projects/:projectId/servers/:serverId/resources': () => ({ cursor: 'c' }),
  'POST /projects/:projectId/servers/:serverId/resources/read': () => ({ uri: 'test://static/resource/1' }),
  'POST /projects/:projectId/tunnels': () => ({ name: 'everything' }),
  'POST /webhooks': () => ({
    url: 'https://hooks.example.com/runway',
    events: ['eval_run.completed', 'conformance.completed'],
    description: `hook ${++tag}`,
  }),
  'POST /projects/:projectId/webhooks': () => ({
    url: 'https://hooks.example.com/project',
    events: ['eval_run.failed'],
    description: `hook ${++tag}`,
    enabled: false,
  }),
  'PATCH /webhooks/:webhookId': () => ({
    url: 'https://hooks.example.com/edited',
    events: ['eval_run.cancelled'],
    description: `hook ${++tag}`,
    enabled: true,
  }),
};

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
  fc.constantFrom(
    '{',
    '{"a":',
    '[1,2',
    'null',
    'true',
    '42',
    '"text"',
    '[]',
    '{"a":1}}',
    '\u0000',
    'NaN',
    "{'single': 1}",
  ),
  deepNesting,
  fc.constant('x'.repeat(1024 * 1024 + 10)),
  fc.constant(JSON.stringify({ pad: 'y'.repeat(7 * 1024 * 1024) })),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }).map((a) => JSON.stringify(a)),
);
const contentType = fc.constantFrom(
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
);
const garbageSegment = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  fc.constant('x'.repeat(5000)),
  fc.constantFrom(
    '%00',
    '..%2F..%2Fetc',
    '%E2%80%AE',
    'null',
    '-1',
    '%ZZ',
    "1'%20OR%20'1'%3D'1",
    '%ED%A0%80',
    encodeURIComponent('é'.repeat(43)),
  ),
);
const garbageQuery = fc
  .dictionary(
    fc.constantFrom('limit', 'cursor', 'status', 'before', 'projectId', 'organizationId', 'x'),
    fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('-1', '0', '201', '1e309', 'abc', 'x'.repeat(3000), '[]')),
    { maxKeys: 4 },
  )
  .map((q) => new URLSearchParams(q as Record<string, string>).toString());

/** Artifacts that a test framework might write, broken: wrong types and hostile values inside real reports. */
function artifactRequests(): fc.Arbitrary<{ format: ArtifactFormat; body: () => string; kind: string }> {
  const fixture = (name: string) => readFileSync(new URL(`../fixtures/artifacts/${name}`, import.meta.url), 'utf8');
  const jsonReport = (format: 'jest-json' | 'vitest-json', text: string) => {
    const report = JSON.parse(text) as unknown;
    // Every place in the report, read by the parser or not.
    const paths: PathStep[][] = [];
    const walk = (value: unknown, path: PathStep[]) => {
      paths.push(path);
      if (Array.isArray(value)) value.slice(0, 3).forEach((v, i) => walk(v, [...path, i as 0]));
      else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
    };
    walk(report, []);
    const anywhere = paths.filter((p) => p.length > 0);
    const field = (path: PathStep[]): Field => ({ path, types: ['any'] });
    const wrongTyped = fc.oneof(
      fc.constant(null),
      fc.integer(),
      fc.string({ maxLength: 10 }),
      fc.boolean(),
      fc.constant({}),
      fc.constant([]),
      fc.constant([null]),
    );
    return fc.oneof(
      fc.constantFrom(...anywhere).chain((path) =>
        wrongTyped.map((value) => ({
          format,
          body: () => serialize(withValueAt(report, path, value)),
          kind: 'artifact: wrong type',
        })),
      ),
      fc.constantFrom(...anywhere).chain((path) =>
        hostileFor(field(path)).map((h) => ({
          format,
          body: () => serialize(withValueAt(report, path, h.value)),
          kind: `artifact: ${h.kind}`,
        })),
      ),
      fc
        .constantFrom(
          'null',
          '[]',
          '{}',
          '{"testResults":{}}',
          '{"testResults":[null]}',
          '{"testResults":[{"assertionResults":[null]}]}',
          '{"testResults":[{"name":5}]}',
          text.slice(0, 100),
          `\uFEFF${text}`,
        )
        .map((body) => ({ format, body: () => body, kind: 'artifact: not a report' })),
    );
  };
  const junit = fixture('pytest-junit.xml');
  const attributes = [...junit.matchAll(/ (\w+)="[^"]*"/g)].map((m) => m.index);
  const xmlText = fc.oneof(
    fc.constantFrom(
      '1e12',
      '2147483.648',
      '2147483.647',
      '-1',
      'NaN',
      '1e400',
      '',
      '&#xD800;',
      '&#0;',
      '&#x1F600;',
      '&amp;&lt;',
      '"',
      '&undefined;',
    ),
    fc.constantFrom(...['日本語', 'é'.repeat(43), '😀']),
  );
  const junitReport = fc.oneof(
    fc.tuple(fc.constantFrom(...attributes), xmlText).map(([at, value]) => ({
      format: 'junit-xml' as const,
      body: () => junit.slice(0, at) + junit.slice(at).replace(/ (\w+)="[^"]*"/, ` $1="${value}"`),
      kind: 'artifact: hostile attribute',
    })),
    fc.integer({ min: 1, max: 100_000 }).map((depth) => ({
      format: 'junit-xml' as const,
      body: () =>
        `<testsuites>${'<testsuite name="d">'.repeat(depth)}<testcase name="t" time="1"/>${'</testsuite>'.repeat(depth)}</testsuites>`,
      kind: 'artifact: nesting',
    })),
    fc
      .constantFrom(
        '<testsuites><testcase name="t"/></testsuites>',
        '<testsuite><testsuite>text</testsuite></testsuite>',
        '<testsuites><testsuite><testcase name="a"><failure><failure/></failure></testcase></testsuite></testsuites>',
        '<testsuite><testcase name="a"><__proto__/></testcase></testsuite>',
        '<testsuite><constructor/><testcase name="a"/></testsuite>',
        '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "&#xD800;">]><testsuite><testcase name="&a;"/></testsuite>',
        junit.slice(0, junit.length / 2),
      )
      .map((body) => ({ format: 'junit-xml' as const, body: () => body, kind: 'artifact: not a report' })),
  );
  return fc.oneof(
    jsonReport('jest-json', fixture('jest.json')),
    jsonReport('vitest-json', fixture('vitest.json')),
    junitReport,
  );
}

interface Keys {
  main: string;
  sandbox: string;
}

function requestsFor(
  route: RouteSpec,
  ids: Record<Target, Record<string, string>>,
  keys: Keys,
): fc.Arbitrary<FuzzRequest> {
  const key = `${route.method.toUpperCase()} ${route.path}`;
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  const writes = route.method !== 'get';
  const pathTo = (target: Target) =>
    route.path.replace(/:(\w+)/g, (_m, name: string) => ids[target][name] ?? 'missing');
  const randomPath = fc.tuple(...names.map(() => garbageSegment)).map((segments) => {
    let i = 0;
    return route.path.replace(/:(\w+)/g, () => segments[i++] ?? 'x');
  });
  const auth = fc.constantFrom(
    `Bearer ${keys.main}`,
    `Bearer ${keys.main}`,
    `Bearer ${keys.main}`,
    '',
    'Bearer sk_forged',
    `Basic ${keys.main}`,
    `Bearer ${keys.main}x`,
  );
  const request = (r: Omit<FuzzRequest, 'route' | 'method'>): FuzzRequest => ({
    ...r,
    method: route.method.toUpperCase(),
    route: key,
    body: writes ? r.body : undefined,
  });
  const json = (authorization: string) => ({ 'content-type': 'application/json', authorization });

  // Weighted: the hostile values in valid bodies, queries and artifacts are the classes this test exists for.
  const generators: fc.WeightedArbitrary<FuzzRequest>[] = [
    // ids that do not exist, with any body at all (deeply nested objects included), any content type and key
    fc
      .tuple(
        randomPath,
        fc.option(
          fc.oneof(
            fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
            deepObject,
          ),
          { nil: undefined },
        ),
        contentType,
        auth,
      )
      .map(([path, body, type, authorization]) =>
        request({
          path,
          body,
          headers: { ...(type ? { 'content-type': type } : {}), ...(authorization ? { authorization } : {}) },
          kind: 'garbage path',
          mustReject: writes,
        }),
      ),
  ].map((arbitrary) => ({ arbitrary, weight: 1 }));
  const add = (weight: number, arbitrary: fc.Arbitrary<FuzzRequest>) => generators.push({ arbitrary, weight });

  if (uploadRoutes.has(key)) {
    // Malformed artifacts, each to an upload URL of its own (minted before the run, bound when sent).
    add(
      3,
      artifactRequests().map(({ format, body, kind }) =>
        request({
          path: route.path,
          body,
          headers: { 'content-type': 'application/octet-stream' },
          kind,
          mustReject: false,
          artifact: format,
        }),
      ),
    );
  } else if (writes) {
    const main = pathTo('main');
    add(
      1,
      fc.tuple(malformedBody, contentType).map(([body, type]) =>
        request({
          path: main,
          body,
          headers: { ...json(`Bearer ${keys.main}`), ...(type ? { 'content-type': type } : {}) },
          kind: 'malformed body',
          mustReject: true,
        }),
      ),
    );
    const fields: Field[] = [
      ...(route.body ? schemaFields(route.body) : []),
      { path: ['unknownField'], types: ['any'] },
    ];
    // A wrong type for a top-level field, in an otherwise empty body: never valid.
    const topLevel = fields
      .filter((f) => f.path.length === 1)
      .flatMap((f) => wrongTypeFor(f)?.map((h) => ({ f, h })) ?? []);
    if (topLevel.length > 0) {
      add(
        1,
        fc.oneof(...topLevel).map(({ f, h }) =>
          request({
            path: main,
            body: serialize({ [f.path[0]]: h.value }),
            headers: json(`Bearer ${keys.main}`),
            kind: 'wrong type',
            mustReject: true,
          }),
        ),
      );
    }
    // A hostile value in one field (nested ones too) of an otherwise valid body.
    const example = validBodies[key] ?? (() => ({}));
    add(
      4,
      fc
        .constantFrom(...fields)
        .chain((field) => hostileFor(field).map((hostile) => ({ field, hostile })))
        .map(({ field, hostile }) => {
          const target: Target = hostile.mustReject ? 'main' : sandboxRoutes.has(key) ? 'sandbox' : 'missing';
          const body = withValueAt(example(ids[target]), field.path, hostile.value);
          return request({
            path: pathTo(target),
            body: () => serialize(body),
            headers: json(`Bearer ${target === 'sandbox' ? keys.sandbox : keys.main}`),
            kind: hostile.kind,
            // Nothing may be written outside the sandbox: elsewhere a write either must fail or aims at ids that do not exist.
            mustReject: target !== 'sandbox' || hostile.mustReject,
          });
        }),
    );
    // A malformed Idempotency-Key on a valid body (issue 33): refused before anything is claimed or written.
    if (route.idempotent) {
      add(
        1,
        fc.constantFrom('', 'k'.repeat(256), 'cl\u00e9', 'a\tb', '\u00ff'.repeat(8)).map((value) =>
          request({
            path: main,
            body: () => serialize(example(ids.main)),
            headers: { ...json(`Bearer ${keys.main}`), 'idempotency-key': value },
            kind: 'malformed idempotency key',
            mustReject: true,
          }),
        ),
      );
    }
  } else {
    const main = pathTo('main');
    add(
      1,
      garbageQuery.map((q) =>
        request({
          path: `${main}${q ? `?${q}` : ''}`,
          headers: { authorization: `Bearer ${keys.main}` },
          kind: 'garbage query',
          mustReject: false,
        }),
      ),
    );
    const queryFields = route.query ? schemaFields(route.query).filter((f) => f.path.length === 1) : [];
    if (queryFields.length > 0) {
      const valueFor = (field: Field): fc.Arbitrary<{ text: string; kind: string }> => {
        const options = [hostileQueryText.map((text) => ({ text, kind: 'hostile query text' }))];
        if (field.types.includes('number') || field.types.includes('integer'))
          options.push(hostileNumberText.map((text) => ({ text, kind: 'hostile query number' })));
        if (field.path[0] === 'cursor' || field.path[0] === 'before')
          options.push(hostileCursor.map((c) => ({ text: encodeURIComponent(c), kind: 'hostile cursor' })));
        return fc.oneof(...options);
      };
      add(
        2,
        fc
          .constantFrom(...queryFields)
          .chain((field) => valueFor(field).map((v) => ({ field, ...v })))
          .map(({ field, text, kind }) =>
            request({
              path: `${main}?${String(field.path[0])}=${text}`,
              headers: { authorization: `Bearer ${keys.main}` },
              kind,
              mustReject: false,
            }),
          ),
      );
    }
  }
  return fc.oneof(...generators);
}

/** Ids a 2xx reply names: what a request that succeeded may have written. */
function repliedIds(body: unknown, into: Set<string>) {
  if (!body || typeof body !== 'object') return;
  for (const [k, v] of Object.entries(body))
    if (typeof v === 'string' && /^(id|runId|suiteId|storageId|checkId)$/.test(k)) into.add(v);
}

describe('fuzzing every route with malformed and hostile requests', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let sandbox: SeededOrganization;
  const ids: Record<Target, Record<string, string>> = { main: {}, sandbox: {}, missing: {} };

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '1000000', RATE_LIMIT_PER_MINUTE: '60000000' },
    });
    org = await seedOrganization(stack.sql);
    // a disabled server: no fuzzed request can make Runway connect anywhere
    const server = await createServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'fuzz',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
      enabled: false,
    });
    const host = await createHost(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'h',
      template: 'claude',
      config: templateConfig('claude'),
    });
    const chatbox = await createChatbox(stack.sql, {
      projectId: org.projectId,
      name: 'c',
      modelId: 'openai/gpt-4.1',
      serverIds: [server.id],
    });
    await stack.sql`INSERT INTO eval_suites (id, project_id, name, server_ids) VALUES ('sui_fuzz', ${org.projectId}, 'fuzz', ${[server.id]})`;
    await stack.sql`INSERT INTO eval_runs (id, suite_id, project_id, organization_id, run_number, status, result) VALUES ('run_fuzz', 'sui_fuzz', ${org.projectId}, ${org.organizationId}, 1, 'completed', 'passed')`;
    await stack.sql`INSERT INTO eval_iterations (id, run_id, title, iteration_number, status) VALUES ('itr_fuzz', 'run_fuzz', 'case', 1, 'completed')`;
    await stack.sql`INSERT INTO eval_cases (id, suite_id, title, query) VALUES ('case_fuzz', 'sui_fuzz', 'case', 'q')`;
    // a webhook endpoint (delivering nowhere: no worker runs) and a delivery of it
    await stack.sql`
      INSERT INTO webhook_endpoints (id, organization_id, url, events, secret_enc, enabled)
      VALUES ('whk_fuzz', ${org.organizationId}, 'https://hooks.example.com/', ${['eval_run.completed']}, ${stack.box.encrypt('whsec_x')}, false)`;
    await stack.sql`
      INSERT INTO webhook_deliveries (id, endpoint_id, message_id, event_type, payload)
      VALUES ('whd_fuzz', 'whk_fuzz', 'msg_fuzz', 'eval_run.completed', ${stack.sql.json({ type: 'eval_run.completed', timestamp: '2026-01-01T00:00:00Z', data: {} })})`;
    Object.assign(ids.main, {
      webhookId: 'whk_fuzz',
      deliveryId: 'whd_fuzz',
      projectId: org.projectId,
      serverId: server.id,
      hostId: host.id,
      chatboxId: chatbox.id,
      suiteId: 'sui_fuzz',
      caseId: 'case_fuzz',
      runId: 'run_fuzz',
      iterationId: 'itr_fuzz',
      ingestRunId: 'run_fuzz',
      ingestExternalRunId: 'x',
    });

    // The sandbox: an enabled server that is never called (only suites name it) and a run taking reported results.
    sandbox = await seedOrganization(stack.sql, { name: 'Fuzz sandbox' });
    const sandboxServer = await createServer(stack.sql, stack.box, {
      projectId: sandbox.projectId,
      name: 'fuzz',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
    });
    const sandboxHost = await createHost(stack.sql, stack.box, {
      projectId: sandbox.projectId,
      name: 'h',
      template: 'claude',
      config: templateConfig('claude'),
    });
    const started = await apiClient(stack.baseUrl, sandbox.apiKey)(
      'POST',
      `/projects/${sandbox.projectId}/eval-ingest/runs/start`,
      { suiteName: 'fuzz ingest', externalRunId: 'fuzz-run' },
    );
    expect(started.status).toBe(200);
    const sandboxSuite = await apiClient(stack.baseUrl, sandbox.apiKey)(
      'POST',
      `/projects/${sandbox.projectId}/eval-suites`,
      {
        name: 'fuzz suite',
        serverIds: [sandboxServer.id],
        model: 'openai/gpt-4.1',
        tests: [{ title: 'case', query: 'q' }],
      },
    );
    expect(sandboxSuite.status).toBe(201);
    const sandboxHook = await apiClient(stack.baseUrl, sandbox.apiKey)('POST', '/webhooks', {
      url: 'https://hooks.example.com/sandbox',
      events: ['eval_run.completed'],
    });
    expect(sandboxHook.status).toBe(201);
    Object.assign(ids.sandbox, {
      webhookId: sandboxHook.body.webhookId,
      projectId: sandbox.projectId,
      serverId: sandboxServer.id,
      hostId: sandboxHost.id,
      suiteId: sandboxSuite.body.suiteId,
      caseId: sandboxSuite.body.caseUpsert.committed[0].id,
      ingestRunId: started.body.runId,
      ingestExternalRunId: 'fuzz-run',
    });
  });
  afterAll(async () => stack?.stop());

  it(`answers ${REQUESTS} malformed and hostile requests with well-formed errors, never a 5xx or a hang, and writes only what it accepted`, async () => {
    const routes = stack.app.routes;
    const withJsonBody = routes.filter(
      (r) => r.body && r.method !== 'get' && !uploadRoutes.has(`${r.method.toUpperCase()} ${r.path}`),
    );
    expect(withJsonBody.map((r) => `${r.method.toUpperCase()} ${r.path}`).filter((k) => !validBodies[k])).toEqual([]);

    const keys = { main: org.apiKey, sandbox: sandbox.apiKey };
    const unknownRoutes = fc
      .tuple(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), fc.string({ maxLength: 60 }))
      .map(
        ([method, p]) =>
          ({
            method,
            path: `/${encodeURIComponent(p)}`,
            headers: { authorization: `Bearer ${org.apiKey}` },
            route: 'unknown route',
            kind: 'unknown route',
            mustReject: true,
          }) as FuzzRequest,
      );
    const requests = fc.sample(fc.oneof(...routes.map((r) => requestsFor(r, ids, keys)), unknownRoutes), {
      numRuns: REQUESTS,
      seed: 20261121,
    });

    // An upload URL for each artifact, minted through the API by the sandbox's key.
    const mint = apiClient(stack.baseUrl, sandbox.apiKey);
    const uploadUrls = new Map<FuzzRequest, { url: string; token: string }>();
    for (const request of requests.filter((r) => r.artifact)) {
      const minted = await mint('POST', `/projects/${sandbox.projectId}/eval-ingest/artifacts/upload-url`, {
        format: request.artifact,
        suiteName: 'fuzz artifacts',
      });
      expect(minted.status).toBe(200);
      const url = new URL(minted.body.uploadUrl);
      uploadUrls.set(request, {
        url: `${url.pathname.replace('/api/v1', '')}${url.search}`,
        token: url.searchParams.get('token')!,
      });
    }

    // Outside the sandbox nothing may change; inside it, only what 2xx replies account for (checked below).
    const inSandbox = `'${sandbox.projectId}'`;
    const exclude = {
      hosts: `t.project_id = ${inSandbox}`,
      eval_suites: `t.project_id = ${inSandbox}`,
      eval_cases: `t.suite_id IN (SELECT id FROM eval_suites WHERE project_id = ${inSandbox})`,
      eval_runs: `t.project_id = ${inSandbox}`,
      eval_iterations: `t.run_id IN (SELECT id FROM eval_runs WHERE project_id = ${inSandbox})`,
      eval_traces: `t.iteration_id IN (SELECT e.id FROM eval_iterations e JOIN eval_runs r ON r.id = e.run_id WHERE r.project_id = ${inSandbox})`,
      ingest_artifacts: `t.project_id = ${inSandbox}`,
      conformance_checks: `t.project_id = ${inSandbox}`,
      tool_surfaces: `t.server_id IN (SELECT id FROM servers WHERE project_id = ${inSandbox})`,
      run_surfaces: `t.run_id IN (SELECT id FROM eval_runs WHERE project_id = ${inSandbox})`,
      webhook_endpoints: `t.organization_id = '${sandbox.organizationId}'`,
      webhook_deliveries: `t.endpoint_id IN (SELECT id FROM webhook_endpoints WHERE organization_id = '${sandbox.organizationId}')`,
      webhook_attempts: `t.delivery_id IN (SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.organization_id = '${sandbox.organizationId}')`,
    };
    const before = await snapshotDatabase(stack.sql, { exclude });
    const sandboxBefore = new Set<string>();
    for (const table of ['hosts', 'eval_suites', 'eval_runs', 'conformance_checks']) {
      for (const { id } of await stack.sql.unsafe<{ id: string }[]>(
        `SELECT id FROM ${table} WHERE project_id = ${inSandbox}`,
      ))
        sandboxBefore.add(id);
    }

    const statuses: Record<string, number> = {};
    const perRoute: Record<string, number> = {};
    const classes: Record<string, { requests: number; statuses: Record<string, number> }> = {};
    const accepted = new Set<string>();
    const uploads: { token: string; status: number; runId?: string }[] = [];
    const failures: string[] = [];
    let next = 0;
    const lane = async () => {
      while (next < requests.length) {
        const request = requests[next++];
        const upload = uploadUrls.get(request);
        const path = upload?.url ?? request.path;
        const body = typeof request.body === 'function' ? request.body() : request.body;
        perRoute[request.route] = (perRoute[request.route] ?? 0) + 1;
        const kind = (classes[request.kind] ??= { requests: 0, statuses: {} });
        kind.requests++;
        const describeIt = () =>
          `${request.kind}: ${request.method} ${path.slice(0, 200)} (${body === undefined ? 'no body' : `${body.length} bytes: ${body.slice(0, 120)}`})`;
        try {
          const response = await fetch(stack.baseUrl + path, {
            method: request.method,
            headers: request.headers,
            body,
            signal: AbortSignal.timeout(TIMEOUT_MS),
          });
          const text = await response.text();
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          kind.statuses[response.status] = (kind.statuses[response.status] ?? 0) + 1;
          if (response.status >= 500) failures.push(`${response.status} for ${describeIt()}: ${text.slice(0, 200)}`);
          if (request.mustReject && response.status < 400) failures.push(`accepted ${describeIt()}`);
          // A run's events stream (GET .../events) answers a finished run with its whole stream, then `end`.
          if (response.status < 400 && response.headers.get('content-type')?.startsWith('text/event-stream')) {
            if (!text.includes('event: end\n')) failures.push(`an event stream that did not end for ${describeIt()}`);
            continue;
          }
          const reply = JSON.parse(text) as { code?: unknown; message?: unknown; details?: unknown; runId?: string };
          if (response.status >= 400) {
            if (
              typeof reply.code !== 'string' ||
              typeof reply.message !== 'string' ||
              (reply.details !== undefined && (typeof reply.details !== 'object' || reply.details === null))
            ) {
              failures.push(`malformed error envelope for ${describeIt()}: ${text.slice(0, 200)}`);
            }
          } else repliedIds(reply, accepted);
          if (upload) uploads.push({ token: upload.token, status: response.status, runId: reply.runId });
        } catch (error) {
          failures.push(`${String(error)} for ${describeIt()}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));

    expect(failures.slice(0, 10)).toEqual([]);
    expect(await snapshotDatabase(stack.sql, { exclude })).toEqual(before);
    // In the sandbox, every new host, suite and run is one a 2xx reply named.
    for (const table of ['hosts', 'eval_suites', 'eval_runs', 'conformance_checks']) {
      const rows = await stack.sql.unsafe<{ id: string }[]>(`SELECT id FROM ${table} WHERE project_id = ${inSandbox}`);
      expect(
        rows.map((r) => r.id).filter((id) => !sandboxBefore.has(id) && !accepted.has(id)),
        table,
      ).toEqual([]);
    }
    // An upload that was refused left its URL unused; one that was taken became its run.
    const slots = await stack.sql<{ token_hash: string; used: boolean; run_id: string | null }[]>`
      SELECT token_hash, used_at IS NOT NULL AS used, run_id FROM ingest_artifacts WHERE project_id = ${sandbox.projectId}`;
    const slotOf = new Map(slots.map((s) => [s.token_hash, s]));
    for (const upload of uploads) {
      const slot = slotOf.get(hashUploadToken(upload.token));
      expect(slot, `upload answered ${upload.status}`).toMatchObject(
        upload.status < 400 ? { used: true, run_id: upload.runId } : { used: false, run_id: null },
      );
    }
    expect(Object.keys(perRoute).length).toBe(routes.length + 1);

    mkdirSync('test-results/reliability', { recursive: true });
    writeFileSync(
      'test-results/reliability/fuzz.json',
      JSON.stringify(
        {
          requests: requests.length,
          routes: routes.length,
          statuses,
          perRoute,
          classes,
          artifactUploads: uploads.length,
        },
        null,
        2,
      ),
    );
  }, 600_000);
});
