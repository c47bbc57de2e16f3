/**
 * Issue 33, signed webhooks end to end: endpoints registered through the API, runs ended by ingest and a conformance
 * check completed in the worker, each delivery a Temporal workflow on the stack's worker POSTing to a receiver of the
 * test's own. The receiver verifies EVERY signature with the `standardwebhooks` package (an implementation of the
 * specification independent of Runway's), answers 500 to the first attempts and sees Temporal's retries carry the same
 * webhook-id; deliveries and attempts are listed, a redelivery works, a duplicate notice sends nothing twice, private
 * addresses are refused, and another organization sees nothing.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport, ConformanceRunner } from '../../domain/mcp/conformance/report.js';
import { webhookListeners } from '../../runtime/webhooks.js';
import { apiClient } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  verified: unknown;
  status: number;
}

/** A webhook receiver: per path, how many first requests answer 500, and the secret each path verifies with. */
class Receiver {
  readonly received: Received[] = [];
  readonly failures: string[] = [];
  readonly secrets = new Map<string, string>();
  readonly failFirst = new Map<string, number>();
  #waiters: { test: () => boolean; resolve: () => void }[] = [];
  #server!: Server;
  origin = '';

  async start() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        let verified: unknown;
        try {
          // Every delivery, retries included, must verify with the independent implementation.
          verified = new Webhook(this.secrets.get(path) ?? 'whsec_unknown').verify(
            body,
            req.headers as Record<string, string>,
          );
        } catch (error) {
          this.failures.push(`${path}: ${String(error)}`);
        }
        const seen = this.received.filter((r) => r.path === path).length;
        const status = seen < (this.failFirst.get(path) ?? 0) ? 500 : 200;
        this.received.push({ path, headers: req.headers, body, verified, status });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 500 ? 'receiver down' : 'ok');
        for (const waiter of [...this.#waiters]) {
          if (waiter.test()) {
            this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
      });
    });
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.#server.address() as { port: number }).port}`;
  }

  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }

  /** Resolves once `path` got `count` requests (fails the test after 30 s). */
  async waitFor(path: string, count: number) {
    const test = () => this.at(path).length >= count;
    if (test()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${path} got ${this.at(path).length} of ${count} requests`)),
        30_000,
      );
      this.#waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async stop() {
    this.#server.closeAllConnections();
    await new Promise((r) => this.#server.close(r));
  }
}

const report = (specVersion: '2025-11-25' | '2026-07-28'): ConformanceReport => ({
  specVersion,
  suiteVersion: '0.0.0-test',
  scenarios: [],
  score: {
    value: 87,
    passedScenarios: 7,
    scoredScenarios: 8,
    passedChecks: 20,
    failedChecks: 1,
    method: 'test',
  },
  startedAt: new Date().toISOString(),
  finishedAt: new Date().toISOString(),
});
const runner: ConformanceRunner = { check: async (_server, options) => report(options.specVersion) };

describe('signed webhooks', () => {
  const receiver = new Receiver();
  let stack: TestStack;
  let org: SeededOrganization;
  let other: SeededOrganization;
  let call: ReturnType<typeof apiClient>;

  /** Polls the deliveries of a webhook until one matches (the attempt is recorded after the receiver answered). */
  async function deliveriesWhen(webhookId: string, done: (items: any[]) => boolean) {
    for (let i = 0; i < 300; i++) {
      const page = await call('GET', `/webhooks/${webhookId}/deliveries`);
      expect(page.status).toBe(200);
      if (done(page.body.items)) return page.body.items as any[];
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the deliveries of ${webhookId} never got there`);
  }

  const report1 = (externalRunId: string, passed = true) =>
    call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
      suiteName: 'webhook suite',
      externalRunId,
      results: [{ caseTitle: 'c', passed }],
    });

  async function register(path: string, events: string[], scope: 'project' | 'org' = 'project') {
    const created = await call('POST', scope === 'org' ? '/webhooks' : `/projects/${org.projectId}/webhooks`, {
      url: `${receiver.origin}${path}`,
      events,
      description: `receiver ${path}`,
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    receiver.secrets.set(path, created.body.secret);
    return created.body as { webhookId: string; secret: string };
  }

  beforeAll(async () => {
    await receiver.start();
    stack = await startTestStack({
      conformanceRunner: runner,
      config: {
        RATE_LIMIT_BURST: '10000',
        RATE_LIMIT_PER_MINUTE: '600000',
        // The receiver is on this machine; retries in a fraction of a second, given up after 4 s.
        WEBHOOK_ALLOWED_RANGES: 'loopback',
        WEBHOOK_RETRY_INITIAL_INTERVAL_MS: '200',
        WEBHOOK_RETRY_MAX_INTERVAL_MS: '400',
        WEBHOOK_RETRY_FOR_MS: '4000',
        WEBHOOK_TIMEOUT_MS: '2000',
        PUBLIC_URL: 'https://runway.example.com',
      },
    });
    [org, other] = await Promise.all([seedOrganization(stack.sql), seedOrganization(stack.sql)]);
    call = apiClient(stack.baseUrl, org.apiKey);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it('signs every delivery, retries after 500s with the same webhook-id, records each attempt, and redelivers', async () => {
    receiver.failFirst.set('/project', 2);
    const hook = await register('/project', ['eval_run.completed', 'eval_run.failed']);
    const orgHook = await register('/org', ['eval_run.completed'], 'org');
    await register('/cancelled-only', ['eval_run.cancelled']);

    const ended = await report1('wh-run-1');
    expect(ended.status).toBe(200);
    const runId = ended.body.runId as string;

    await receiver.waitFor('/project', 3);
    await receiver.waitFor('/org', 1);
    const attempts = receiver.at('/project');
    expect(attempts.map((a) => a.status)).toEqual([500, 500, 200]);
    expect(receiver.failures).toEqual([]);
    // One message: the same webhook-id on every attempt, a signature of each attempt's own timestamp.
    const ids = new Set(attempts.map((a) => a.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(receiver.at('/org')[0].headers['webhook-id']).toBe(attempts[0].headers['webhook-id']);
    const payload = attempts[2].verified as any;
    expect(payload).toMatchObject({
      type: 'eval_run.completed',
      data: {
        runId,
        projectId: org.projectId,
        suite: { name: 'webhook suite' },
        status: 'completed',
        result: 'passed',
        passRate: 1,
        counts: { total: 1, passed: 1, failed: 0 },
        links: {
          api: `https://runway.example.com/api/v1/projects/${org.projectId}/eval-runs/${runId}`,
          console: `https://runway.example.com/console/#/projects/${org.projectId}/runs/${runId}`,
        },
      },
    });
    expect(attempts[2].body).not.toMatch(/whsec_|modelKeys|secret/i);
    expect(receiver.at('/cancelled-only')).toEqual([]);

    const [delivery] = await deliveriesWhen(hook.webhookId, (items) => items[0]?.status === 'succeeded');
    expect(delivery).toMatchObject({
      webhookId: hook.webhookId,
      messageId: attempts[0].headers['webhook-id'],
      eventType: 'eval_run.completed',
      redeliveryOf: null,
    });
    expect(delivery.attempts.map((a: any) => [a.attempt, a.succeeded, a.statusCode, a.responseExcerpt])).toEqual([
      [1, false, 500, 'receiver down'],
      [2, false, 500, 'receiver down'],
      [3, true, 200, 'ok'],
    ]);
    expect(delivery.attempts[0].error).toBe('answered 500');

    // A duplicate notice of the same ending (a listener told twice) creates and sends nothing again.
    const [run] = await stack.sql<{ id: string }[]>`SELECT id FROM eval_runs WHERE id = ${runId}`;
    expect(run).toBeDefined();
    const listeners = webhookListeners({
      sql: stack.sql,
      temporal: stack.temporal,
      config: stack.config,
      log: { warn() {} } as never,
    });
    const { createRunStore } = await import('../../db/runStore.js');
    const stored = (await createRunStore(stack.sql).get(runId))!;
    await listeners.runEnded({ run: stored, endedAt: stored.completedAt! });
    await listeners.runEnded({ run: stored, endedAt: stored.completedAt! });
    // The same externalRunId reported again returns the ended run: no new ending either.
    expect((await report1('wh-run-1')).body.runId).toBe(runId);

    // A redelivery: the same message again, as a delivery of its own.
    const again = await call('POST', `/webhooks/${hook.webhookId}/deliveries/${delivery.deliveryId}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({
      redeliveryOf: delivery.deliveryId,
      messageId: delivery.messageId,
      status: 'pending',
    });
    await receiver.waitFor('/project', 4);
    expect(receiver.at('/project')[3].headers['webhook-id']).toBe(delivery.messageId);
    const items = await deliveriesWhen(hook.webhookId, (list) => list.length === 2 && list[0].status === 'succeeded');
    expect(items.map((d) => d.deliveryId)).toEqual([again.body.deliveryId, delivery.deliveryId]);
    // Nothing more came of the duplicate notices: 3 attempts, 1 redelivery; the organization's endpoint once.
    expect(receiver.at('/project')).toHaveLength(4);
    expect(receiver.at('/org')).toHaveLength(1);
    expect((await call('GET', `/webhooks/${orgHook.webhookId}/deliveries`)).body.items).toHaveLength(1);

    // Pages: one delivery per page, the cursor to the next.
    const first = await call('GET', `/webhooks/${hook.webhookId}/deliveries?limit=1`);
    expect(first.body.items).toHaveLength(1);
    const second = await call('GET', `/webhooks/${hook.webhookId}/deliveries?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.items[0].deliveryId).toBe(delivery.deliveryId);
    expect(second.body.nextCursor).toBeUndefined();
  });

  it('gives a delivery up as failed once its retry time is spent; a failed run and a completed check are told', async () => {
    receiver.failFirst.set('/down', 1_000);
    const down = await register('/down', ['eval_run.failed']);
    const checks = await register('/checks', ['conformance.completed']);
    // a run whose every result failed still completes (result failed): eval_run.completed, not told to /down
    await report1('wh-run-2', false);
    const server = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'checked',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
    });
    const started = await call('POST', `/projects/${org.projectId}/servers/${server}/conformance`, {
      specVersion: '2026-07-28',
    });
    expect(started.status).toBe(202);
    await receiver.waitFor('/checks', 1);
    expect(receiver.at('/checks')[0].verified).toMatchObject({
      type: 'conformance.completed',
      data: { checkId: started.body.checkId, serverId: server, score: 87, specVersion: '2026-07-28' },
    });
    expect(receiver.at('/down')).toEqual([]);

    // A run that ends failed: its delivery to an endpoint that always answers 500 fails after WEBHOOK_RETRY_FOR_MS.
    const { createRunStore } = await import('../../db/runStore.js');
    const [suite] = await stack.sql<
      { id: string }[]
    >`SELECT id FROM eval_suites WHERE project_id = ${org.projectId} LIMIT 1`;
    await stack.sql`
      INSERT INTO eval_runs (id, suite_id, project_id, organization_id, run_number, status, result, error, completed_at)
      VALUES ('run_whfail', ${suite.id}, ${org.projectId}, ${org.organizationId}, 99, 'failed', 'failed', 'boom', now())`;
    const failedRun = (await createRunStore(stack.sql).get('run_whfail'))!;
    const listeners = webhookListeners({
      sql: stack.sql,
      temporal: stack.temporal,
      config: stack.config,
      log: { warn() {} } as never,
    });
    await listeners.runEnded({ run: failedRun, endedAt: failedRun.completedAt! });
    const [gaveUp] = await deliveriesWhen(down.webhookId, (items) => items[0]?.status === 'failed');
    expect(gaveUp.attempts.length).toBeGreaterThanOrEqual(2);
    expect(gaveUp.attempts.every((a: any) => a.statusCode === 500 && !a.succeeded)).toBe(true);
    expect(receiver.failures).toEqual([]);
    expect(receiver.at('/down')[0].verified).toMatchObject({ type: 'eval_run.failed', data: { error: 'boom' } });
    expect(checks.webhookId).toBeDefined();
  });

  it('refuses endpoint URLs that point where webhooks may not go', async () => {
    for (const url of [
      'https://10.0.0.7/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/hook',
      'https://[::ffff:192.168.1.1]/hook',
      'https://100.100.100.200/',
      'https://user:pass@hooks.example.com/',
      'ftp://hooks.example.com/',
      'not a url',
    ]) {
      const refused = await call('POST', `/projects/${org.projectId}/webhooks`, {
        url,
        events: ['eval_run.completed'],
      });
      expect(refused.status, url).toBe(400);
      expect(refused.body.code).toBe('VALIDATION_ERROR');
    }
    const refused = await call('POST', '/webhooks', { url: 'https://192.168.0.10/', events: ['eval_run.failed'] });
    expect(refused.body.details).toMatchObject({ reason: 'URL_REFUSED', field: 'url' });
    // a name is not resolved at registration: no DNS needed
    const named = await call('POST', '/webhooks', {
      url: 'https://hooks.example.com/runway',
      events: ['eval_run.failed'],
    });
    expect(named.status).toBe(201);
    const edited = await call('PATCH', `/webhooks/${named.body.webhookId}`, {
      url: 'https://hooks.example.org/other',
    });
    expect(edited.status).toBe(200);
    expect((await call('PATCH', `/webhooks/${named.body.webhookId}`, { url: 'https://172.16.0.1/' })).status).toBe(400);
    expect((await call('POST', '/webhooks', { url: 'https://hooks.example.com/', events: [] })).status).toBe(400);
    expect((await call('POST', '/webhooks', { url: 'https://hooks.example.com/', events: ['run.done'] })).status).toBe(
      400,
    );
  });

  it("keeps an organization's endpoints to itself; members change only their projects'", async () => {
    const hook = await call('POST', `/projects/${org.projectId}/webhooks`, {
      url: 'https://hooks.example.com/a',
      events: ['eval_run.completed'],
    });
    const orgHook = await call('POST', '/webhooks', {
      url: 'https://hooks.example.com/b',
      events: ['eval_run.completed'],
    });
    const stranger = apiClient(stack.baseUrl, other.apiKey);
    for (const id of [hook.body.webhookId, orgHook.body.webhookId]) {
      expect((await stranger('GET', `/webhooks/${id}`)).status).toBe(404);
      expect((await stranger('PATCH', `/webhooks/${id}`, { enabled: false })).status).toBe(404);
      expect((await stranger('DELETE', `/webhooks/${id}`)).status).toBe(404);
      expect((await stranger('GET', `/webhooks/${id}/deliveries`)).status).toBe(404);
      expect((await stranger('POST', `/webhooks/${id}/rotate-secret`)).status).toBe(404);
    }
    expect((await stranger('GET', `/projects/${org.projectId}/webhooks`)).status).toBe(404);
    expect((await stranger('GET', '/webhooks')).body.items).toEqual([]);
    expect(
      (
        await stranger('POST', `/projects/${org.projectId}/webhooks`, {
          url: 'https://x.example.com/',
          events: ['eval_run.failed'],
        })
      ).status,
    ).toBe(404);

    // A member of the organization (not owner or admin) may not change its organization-wide endpoints.
    const { addMembership, createApiKey, createUser } = await import('../../db/accounts.js');
    const user = await createUser(stack.sql, { email: 'member-wh@example.test', name: 'Member' });
    await addMembership(stack.sql, { organizationId: org.organizationId, userId: user.id, role: 'member' });
    const key = await createApiKey(stack.sql, { name: 'member', organizationId: org.organizationId, userId: user.id });
    const member = apiClient(stack.baseUrl, key.key);
    const forbidden = await member('POST', '/webhooks', { url: 'https://x.example.com/', events: ['eval_run.failed'] });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.details).toMatchObject({ reason: 'ORG_ADMIN_REQUIRED' });
    expect((await member('PATCH', `/webhooks/${orgHook.body.webhookId}`, { enabled: false })).status).toBe(403);
    expect((await member('GET', `/webhooks/${orgHook.body.webhookId}`)).status).toBe(200);

    // Secrets are shown at creation and rotation only, and stored sealed.
    const got = await call('GET', `/webhooks/${hook.body.webhookId}`);
    expect(got.body.secret).toBeUndefined();
    const rotated = await call('POST', `/webhooks/${hook.body.webhookId}/rotate-secret`);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.body.secret);
    const [row] = await stack.sql<
      { secret_enc: string }[]
    >`SELECT secret_enc FROM webhook_endpoints WHERE id = ${hook.body.webhookId}`;
    expect(row.secret_enc).not.toContain(rotated.body.secret.slice(6));
    expect(stack.box.decrypt(row.secret_enc)).toBe(rotated.body.secret);

    const deleted = await call('DELETE', `/webhooks/${hook.body.webhookId}`);
    expect(deleted.body).toEqual({ webhookId: hook.body.webhookId, deleted: true });
    expect((await call('GET', `/webhooks/${hook.body.webhookId}`)).status).toBe(404);

    // At most 20 endpoints per scope: the organization's fill up, then 409.
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++)
      statuses.push(
        (await call('POST', '/webhooks', { url: `https://hooks.example.com/${i}`, events: ['eval_run.failed'] }))
          .status,
      );
    const [{ n }] = await stack.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM webhook_endpoints WHERE organization_id = ${org.organizationId} AND project_id IS NULL`;
    expect(n).toBe(20);
    expect(statuses.at(-1)).toBe(409);
    const full = await call('POST', '/webhooks', { url: 'https://hooks.example.com/x', events: ['eval_run.failed'] });
    expect(full.body.details).toMatchObject({ reason: 'WEBHOOK_LIMIT', limit: 20 });
  });
});
