import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateConfig } from '../../api/hostTemplates.js';
import { createChatbox, createChatSession } from '../../db/catalog.js';
import { createHost } from '../../db/hosts.js';
import { createServer } from '../../db/servers.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/**
 * A valid request body for each route that takes one, so the request gets past validation and the isolation
 * rule is what answers. A new route without an entry here fails the matrix: add one.
 */
/** Routes whose query has a required member: a valid one, so the reply is about the path's ids. */
const sampleQueries: Record<string, string> = {
  'GET /projects/:projectId/eval-runs/events': '?runIds=run_b',
  'GET /projects/:projectId/servers/:serverId/surfaces/diff': `?from=${'a'.repeat(64)}&to=${'b'.repeat(64)}`,
};

const sampleBodies: Record<string, unknown> = {
  'POST /projects/:projectId/hosts': { name: 'x', template: 'claude' },
  'PATCH /projects/:projectId/hosts/:hostId': { name: 'renamed' },
  'DELETE /projects/:projectId/hosts/:hostId': {},
  'POST /projects/:projectId/servers/:serverId/tools/call': { toolName: 'echo', parameters: { message: 'hi' } },
  'POST /projects/:projectId/servers/:serverId/prompts/get': { promptName: 'simple_prompt' },
  'POST /projects/:projectId/servers/:serverId/resources/read': {
    uri: 'demo://resource/static/document/architecture.md',
  },
  'POST /projects/:projectId/servers/:serverId/oauth/import-tokens': {
    serverUrl: 'https://x.test/mcp',
    tokens: { access_token: 'a' },
  },
  'POST /projects/:projectId/servers/:serverId/tools': {},
  'POST /projects/:projectId/servers/:serverId/prompts': {},
  'POST /projects/:projectId/servers/:serverId/resources': {},
  'POST /projects/:projectId/eval-suites': {
    name: 'x',
    serverIds: ['srv_x'],
    model: 'openai/gpt-4.1',
    tests: [{ title: 't', query: 'q' }],
  },
  'PATCH /projects/:projectId/eval-suites/:suiteId': { name: 'renamed' },
  'POST /projects/:projectId/eval-suites/:suiteId/cases': { title: 't', prompt: 'p' },
  'PATCH /projects/:projectId/eval-suites/:suiteId/cases/:caseId': { title: 'renamed' },
  'POST /projects/:projectId/eval-runs': { suiteId: 'sui_b' },
  'PATCH /projects/:projectId/eval-suites/:suiteId/schedule': { enabled: true, intervalMinutes: 5 },
  'POST /projects/:projectId/eval-ingest/report': {
    suiteName: 'b-suite',
    externalRunId: 'x',
    results: [{ caseTitle: 'c', passed: true }],
  },
  'POST /projects/:projectId/eval-ingest/runs/start': { suiteName: 'b-suite', externalRunId: 'x' },
  'POST /projects/:projectId/eval-ingest/runs/iterations': {
    runId: 'run_b',
    results: [{ caseTitle: 'c', passed: true }],
  },
  'POST /projects/:projectId/eval-ingest/runs/finalize': { runId: 'run_b' },
  'POST /projects/:projectId/eval-ingest/artifacts/upload-url': { format: 'junit-xml' },
  'POST /projects/:projectId/tunnels': { name: 'everything' },
  'POST /projects/:projectId/eval-suites/:suiteId/cases/generate': { count: 1 },
  'POST /projects/:projectId/servers/:serverId/conformance': { specVersion: '2026-07-28' },
  'POST /projects/:projectId/webhooks': { url: 'https://hooks.example.com/a', events: ['eval_run.completed'] },
  'PATCH /webhooks/:webhookId': { enabled: false },
};

describe('isolation: a key of organization A never reaches organization B', () => {
  let stack: TestStack;
  let a: SeededOrganization;
  let b: SeededOrganization;
  const idsOfB: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    a = await seedOrganization(stack.sql, { name: 'A' });
    b = await seedOrganization(stack.sql, { name: 'B' });
    const server = await createServer(stack.sql, stack.box, {
      projectId: b.projectId,
      name: 'b-server',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
    });
    const chatbox = await createChatbox(stack.sql, {
      projectId: b.projectId,
      name: 'b-chatbox',
      modelId: 'openai/gpt-4.1',
      serverIds: [server.id],
    });
    const host = await createHost(stack.sql, stack.box, {
      projectId: b.projectId,
      name: 'b-host',
      template: 'claude',
      config: templateConfig('claude'),
    });
    await createChatSession(stack.sql, {
      projectId: b.projectId,
      userId: b.userId,
      title: 'b-session',
      visibility: 'project',
    });
    const [suite] = await stack.sql<{ id: string }[]>`
      INSERT INTO eval_suites (id, project_id, name, server_ids) VALUES ('sui_b', ${b.projectId}, 'b-suite', ${[server.id]}) RETURNING id`;
    await stack.sql`
      INSERT INTO eval_runs (id, suite_id, project_id, organization_id, run_number, status, result)
      VALUES ('run_b', ${suite.id}, ${b.projectId}, ${b.organizationId}, 1, 'completed', 'passed')`;
    const [testCase] = await stack.sql<{ id: string }[]>`
      INSERT INTO eval_cases (id, suite_id, title, query) VALUES ('case_b', ${suite.id}, 'b-case', 'q') RETURNING id`;
    const [iteration] = await stack.sql<{ id: string }[]>`
      INSERT INTO eval_iterations (id, run_id, title, iteration_number, status) VALUES ('itr_b', 'run_b', 'case', 1, 'completed') RETURNING id`;
    await stack.sql`
      INSERT INTO conformance_checks (id, organization_id, project_id, server_id, spec_version, timeout_ms, deadline_at)
      VALUES ('chk_b', ${b.organizationId}, ${b.projectId}, ${server.id}, '2026-07-28', 600000, now() + interval '1 hour')`;
    // B's webhook endpoint (the organization's own: every project's events) and a delivery of it
    await stack.sql`
      INSERT INTO webhook_endpoints (id, organization_id, url, events, secret_enc)
      VALUES ('whk_b', ${b.organizationId}, 'https://b-hooks.example.com/', ${['eval_run.completed']}, ${stack.box.encrypt('whsec_b-secret')})`;
    await stack.sql`
      INSERT INTO webhook_deliveries (id, endpoint_id, message_id, event_type, payload)
      VALUES ('whd_b', 'whk_b', 'msg_b', 'eval_run.completed', ${stack.sql.json({ type: 'eval_run.completed', timestamp: '2026-01-01T00:00:00Z', data: { suite: 'b-suite' } })})`;
    Object.assign(idsOfB, {
      projectId: b.projectId,
      webhookId: 'whk_b',
      deliveryId: 'whd_b',
      serverId: server.id,
      chatboxId: chatbox.id,
      hostId: host.id,
      suiteId: suite.id,
      caseId: testCase.id,
      runId: 'run_b',
      iterationId: iteration.id,
      checkId: 'chk_b',
      // a surface B's server could have shown (none is stored: the server is B's, which is what must answer 404)
      hash: 'c'.repeat(64),
    });
  });
  afterAll(async () => stack?.stop());

  it("every route with path ids answers 404 with B's ids, and leaks nothing", async () => {
    const call = apiClient(stack.baseUrl, a.apiKey);
    const checked: string[] = [];
    for (const route of stack.app.routes.filter((r) => r.path.includes(':') && r.auth !== false)) {
      const key = `${route.method.toUpperCase()} ${route.path}`;
      const path = route.path.replace(/:(\w+)/g, (_m, name: string) => {
        if (!idsOfB[name]) throw new Error(`isolation matrix has no id of organization B for :${name} (route ${key})`);
        return idsOfB[name];
      });
      const body = route.method === 'get' ? undefined : route.body ? sampleBodies[key] : {};
      if (route.body && route.method !== 'get' && body === undefined)
        throw new Error(`add a sample body for ${key} to the isolation matrix`);
      const reply = await call(route.method.toUpperCase(), `${path}${sampleQueries[key] ?? ''}`, body);
      expect(reply.status, key).toBe(404);
      expect(reply.body.code, key).toBe('NOT_FOUND');
      const text = JSON.stringify(reply.body);
      for (const secretName of ['b-server', 'b-chatbox', 'b-host', 'b-suite', 'b-case', 'b-session', 'b-hooks'])
        expect(text, key).not.toContain(secretName);
      checked.push(key);
    }
    expect(checked.length).toBeGreaterThanOrEqual(7);
    // The suite and case routes of issue 14 are among them.
    expect(checked).toEqual(
      expect.arrayContaining([
        'GET /projects/:projectId/eval-suites/:suiteId',
        'PATCH /projects/:projectId/eval-suites/:suiteId',
        'DELETE /projects/:projectId/eval-suites/:suiteId',
        'GET /projects/:projectId/eval-suites/:suiteId/cases',
        'POST /projects/:projectId/eval-suites/:suiteId/cases',
        'GET /projects/:projectId/eval-suites/:suiteId/cases/:caseId',
        'PATCH /projects/:projectId/eval-suites/:suiteId/cases/:caseId',
        'DELETE /projects/:projectId/eval-suites/:suiteId/cases/:caseId',
      ]),
    );
    // B's suite and case are untouched.
    expect(
      (
        await stack.sql`SELECT s.name, s.deleted_at, c.title, c.deleted_at AS case_deleted_at FROM eval_suites s JOIN eval_cases c ON c.suite_id = s.id WHERE s.id = 'sui_b'`
      )[0],
    ).toEqual({ name: 'b-suite', deleted_at: null, title: 'b-case', case_deleted_at: null });
    mkdirSync('test-results/reliability', { recursive: true });
    writeFileSync(
      'test-results/reliability/isolation.json',
      JSON.stringify(
        { routes: checked.length, checked: checked.length, idKinds: Object.keys(idsOfB), routeList: checked },
        null,
        2,
      ),
    );
  });

  it('listings without path ids show nothing of B', async () => {
    const call = apiClient(stack.baseUrl, a.apiKey);
    const listings = await Promise.all([
      call('GET', '/projects'),
      call('GET', `/projects?organizationId=${b.organizationId}`),
      call('GET', '/chat-sessions?limit=200'),
      call('GET', `/chat-sessions?projectId=${b.projectId}`),
      call('GET', '/webhooks'),
    ]);
    expect(listings.map((r) => r.status)).toEqual([200, 200, 200, 404, 200]);
    const text = JSON.stringify(listings.filter((r) => r.status === 200).map((r) => r.body));
    for (const leaked of [b.projectId, 'b-session', 'whk_b', 'b-hooks']) expect(text).not.toContain(leaked);
    expect(listings[1].body.items).toEqual([]);
  });
});
