import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { hostTemplateIds } from '../../api/hostTemplates.js';
import { Idempotency } from '../../api/idempotency.js';
import { createApiKey } from '../../db/accounts.js';
import { createIdempotencyKeyStore, purgeExpiredIdempotencyKeys } from '../../db/idempotencyKeys.js';
import type { IdempotencyScope } from '../../domain/ports/idempotencyKeys.js';
import { createLogger } from '../../runtime/logger.js';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { apiClient, type ApiReply } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';

/**
 * Issue 33 item 3: Idempotency-Key on the creating POSTs. Racing duplicates (over two API processes on one database)
 * start one run and get one reply; a retry replays it; the same key with another request, or a malformed key, is
 * refused; keys are the caller's own; a claim that failed on the service side or was left by a crashed process does
 * not block its key.
 */
describe('Idempotency-Key', () => {
  let world: EvalWorld;
  let other: SeededOrganization;
  let secondKey: string;
  let secondApp: Server;
  let secondCall: EvalWorld['call'];

  beforeAll(async () => {
    world = await startEvalWorld({ HOSTED_MODELS: 'openai/hosted-mini', MAX_CONCURRENT_RUNS: '20' });
    world.model.setScript('hosted-mini', [{ text: 'No tools needed.' }]);
    // Warm the stdio server's connection in the API process, so listing its tools at run creation is quick.
    expect(
      (await world.call('POST', `/projects/${world.org.projectId}/servers/${world.serverId}/tools`, {})).status,
    ).toBe(200);
    other = await seedOrganization(world.stack.sql);
    secondKey = (
      await createApiKey(world.stack.sql, {
        name: 'second key',
        organizationId: world.org.organizationId,
        userId: world.org.userId,
      })
    ).key;
    // A second API process on the same database and Temporal: duplicates race across replicas too.
    const app = createApp({
      ...world.stack.services,
      temporal: world.stack.temporal,
      config: world.stack.config,
      log: createLogger('silent'),
    });
    secondApp = await new Promise((resolve) => {
      const s = app.express.listen(0, '127.0.0.1', () => resolve(s));
    });
    const { port } = secondApp.address() as { port: number };
    secondCall = apiClient(`http://127.0.0.1:${port}/api/v1`, world.org.apiKey);
  });
  afterAll(async () => {
    secondApp?.closeAllConnections();
    await new Promise((r) => secondApp?.close(r));
    await world?.stop();
  });

  const runsPath = () => `/projects/${world.org.projectId}/eval-runs`;
  const runBody = (suiteName: string) => ({
    suiteName,
    serverIds: [world.serverId],
    tests: [{ title: 'negative', query: 'say nothing', model: 'openai/hosted-mini', isNegativeTest: true }],
  });
  const keyed = (key: string) => ({ 'Idempotency-Key': key });
  const suiteBody = (name: string) => ({
    name,
    serverIds: [world.serverId],
    model: 'openai/hosted-mini',
    tests: [{ title: 't', query: 'q' }],
  });
  const count = async (table: 'eval_runs' | 'eval_suites', projectId = world.org.projectId) => {
    const [row] = await world.stack.sql.unsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`,
      [projectId],
    );
    return row.n;
  };
  const replayed = (reply: ApiReply) => reply.headers.get('idempotent-replayed') === 'true';

  it('racing duplicates of POST /eval-runs, over two API processes, start one run and all get its reply', async () => {
    const runsBefore = await count('eval_runs');
    const suitesBefore = await count('eval_suites');
    const key = `race-${Date.now()}`;
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? world.call : secondCall)('POST', runsPath(), runBody('raced'), keyed(key)),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(202));
    const first = replies[0].body;
    expect(first).toMatchObject({ runId: expect.stringMatching(/^run_/), status: 'running' });
    for (const reply of replies) expect(reply.body).toEqual(first);
    // One request did the work; every other one got its kept reply.
    expect(replies.filter((r) => !replayed(r))).toHaveLength(1);
    expect(await count('eval_runs')).toBe(runsBefore + 1);
    expect(await count('eval_suites')).toBe(suitesBefore + 1);
    const [row] = await world.stack.sql<{ reply_status: number; ttl_hours: number }[]>`
      SELECT reply_status, round(EXTRACT(EPOCH FROM expires_at - created_at) / 3600)::int AS ttl_hours
      FROM idempotency_keys WHERE idempotency_key = ${key}`;
    expect(row).toEqual({ reply_status: 202, ttl_hours: 24 });

    // After the run ended, a retry still gets the first reply (status and body as first sent), and starts nothing.
    expect(await waitForRun(world.call, world.org.projectId, first.runId)).toMatchObject({ status: 'completed' });
    const retry = await world.call('POST', runsPath(), runBody('raced'), keyed(key));
    expect(retry.status).toBe(202);
    expect(retry.body).toEqual(first);
    expect(replayed(retry)).toBe(true);
    // Field order is not the request: the same fields in another order are the same request.
    const { tests, serverIds, suiteName } = runBody('raced');
    const reordered = await secondCall('POST', runsPath(), { tests, serverIds, suiteName }, keyed(key));
    expect(reordered.body).toEqual(first);
    expect(await count('eval_runs')).toBe(runsBefore + 1);
  });

  it('the same key with another request is a 409 that says so, and does nothing', async () => {
    const key = `reuse-${Date.now()}`;
    const created = await world.call('POST', runsPath(), runBody('reused'), keyed(key));
    expect(created.status).toBe(202);
    const runsBefore = await count('eval_runs');
    const changed = await world.call('POST', runsPath(), runBody('reused, changed'), keyed(key));
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/already used with a different request/),
      details: { reason: 'IDEMPOTENCY_KEY_REUSED' },
    });
    // Another project in the path is another request too.
    const elsewhere = await world.call('POST', `/projects/${other.projectId}/eval-runs`, runBody('reused'), keyed(key));
    expect(elsewhere.status).toBe(409);
    expect(await count('eval_runs')).toBe(runsBefore);
    await waitForRun(world.call, world.org.projectId, created.body.runId);
  });

  it("keys are the caller's own: another API key, or another organization, with the same key is independent", async () => {
    const key = `shared-${Date.now()}`;
    const mine = await world.call('POST', runsPath(), runBody('scoped'), keyed(key));
    const sameOrgOtherKey = await apiClient(world.stack.baseUrl, secondKey)(
      'POST',
      runsPath(),
      runBody('scoped'),
      keyed(key),
    );
    expect([mine.status, sameOrgOtherKey.status]).toEqual([202, 202]);
    expect(sameOrgOtherKey.body.runId).not.toBe(mine.body.runId);
    expect(replayed(sameOrgOtherKey)).toBe(false);
    // And another organization's key with the same Idempotency-Key on the same route (creating a host), its own project.
    const otherCall = apiClient(world.stack.baseUrl, other.apiKey);
    const host = { name: 'h', template: hostTemplateIds[0] };
    const theirs = await otherCall('POST', `/projects/${other.projectId}/hosts`, host, keyed(key));
    const ours = await world.call('POST', `/projects/${world.org.projectId}/hosts`, host, keyed(key));
    expect([theirs.status, ours.status]).toEqual([201, 201]);
    expect(theirs.body.id).not.toBe(ours.body.id);
    expect([replayed(theirs), replayed(ours)]).toEqual([false, false]);
    await waitForRun(world.call, world.org.projectId, mine.body.runId);
    await waitForRun(world.call, world.org.projectId, sameOrgOtherKey.body.runId);
  });

  it('a malformed key is a 400 in the contract envelope, and nothing is created', async () => {
    const runsBefore = await count('eval_runs');
    for (const key of ['x'.repeat(256), 'cl\u00e9', 'a\tb']) {
      const reply = await world.call('POST', runsPath(), runBody('malformed'), keyed(key));
      expect(reply.status, JSON.stringify(key)).toBe(400);
      expect(reply.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/Idempotency-Key header must be 1 to 255 printable ASCII characters/),
        details: { reason: 'INVALID_IDEMPOTENCY_KEY' },
      });
    }
    expect(await count('eval_runs')).toBe(runsBefore);
    // 255 printable characters, spaces included, are a key.
    const longest = `a ${'~'.repeat(252)}!`;
    const suite = await world.call(
      'POST',
      `/projects/${world.org.projectId}/eval-suites`,
      suiteBody('longest key'),
      keyed(longest),
    );
    expect(suite.status).toBe(201);
  });

  it('POST /eval-suites is deduplicated too, and a 4xx reply is kept and replayed like a 2xx', async () => {
    const key = `suite-${Date.now()}`;
    const path = `/projects/${world.org.projectId}/eval-suites`;
    const body = suiteBody('Once');
    const suitesBefore = await count('eval_suites');
    const first = await world.call('POST', path, body, keyed(key));
    const again = await secondCall('POST', path, body, keyed(key));
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect([replayed(first), replayed(again)]).toEqual([false, true]);
    expect(await count('eval_suites')).toBe(suitesBefore + 1);

    // A rerun of a suite that does not exist: 404, kept, replayed (the same request would be refused the same way).
    const missing = { suiteId: 'sui_doesnotexist' };
    const notFound = await world.call('POST', runsPath(), missing, keyed(`missing-${key}`));
    const notFoundAgain = await world.call('POST', runsPath(), missing, keyed(`missing-${key}`));
    expect([notFound.status, notFoundAgain.status]).toEqual([404, 404]);
    expect(notFoundAgain.body).toEqual(notFound.body);
    expect(replayed(notFoundAgain)).toBe(true);
    // A request refused before it ran (a malformed body) keeps nothing: fixed, the same key does the work.
    const badKey = `bad-body-${key}`;
    expect((await world.call('POST', path, { ...suiteBody('Fixed'), nope: 1 }, keyed(badKey))).status).toBe(400);
    const fixed = await world.call('POST', path, suiteBody('Fixed'), keyed(badKey));
    expect(fixed.status).toBe(201);
    expect(replayed(fixed)).toBe(false);
  });

  it('the reference document declares the header on the routes that take it', async () => {
    const doc = await world.call('GET', '/openapi.json');
    const operation = doc.body.paths['/projects/{projectId}/eval-runs'].post;
    const header = operation.parameters.find((p: { in: string }) => p.in === 'header');
    expect(header).toMatchObject({ name: 'Idempotency-Key', schema: { maxLength: 255 } });
    expect(header.required).toBeFalsy();
    expect(operation.responses['202'].headers['Idempotent-Replayed']).toBeDefined();
    expect(operation.responses['409']).toBeDefined();
    // A GET takes no key: nothing declared there.
    expect(doc.body.paths['/projects/{projectId}/eval-runs/{runId}'].get.parameters).not.toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key' }),
    );
  });

  describe('claims (the store and the mechanism, on the database)', () => {
    const scope = (key: string): IdempotencyScope => ({
      organizationId: world.org.organizationId,
      apiKeyId: world.org.keyId,
      route: 'POST /test',
      key,
    });
    const rows = async (key: string) => [
      ...(await world.stack.sql<{ reply_status: number | null }[]>`
        SELECT reply_status FROM idempotency_keys WHERE idempotency_key = ${key} AND route = 'POST /test'`),
    ];

    it('a first request that fails on the service side, or is rate limited, gives its key up', async () => {
      const idempotency = new Idempotency(createIdempotencyKeyStore(world.stack.sql), { waitMs: 5000 });
      let calls = 0;
      const failing = async () => {
        calls++;
        throw new Error('database went away');
      };
      await expect(idempotency.run(scope('crash'), 'a'.repeat(64), failing)).rejects.toThrow('database went away');
      expect(await rows('crash')).toEqual([]);
      const limited = async () => {
        calls++;
        return { status: 429, body: { code: 'RATE_LIMITED' } };
      };
      expect(await idempotency.run(scope('crash'), 'a'.repeat(64), limited)).toMatchObject({ status: 429 });
      expect(await rows('crash')).toEqual([]);
      const works = async () => {
        calls++;
        return { status: 201, body: { id: 'x' }, headers: { Location: '/api/v1/things/x', 'X-Other': 'not kept' } };
      };
      expect(await idempotency.run(scope('crash'), 'a'.repeat(64), works)).toMatchObject({
        status: 201,
        body: { id: 'x' },
        replayed: false,
      });
      // The replay is the reply as sent, with the headers that say where the created resource is.
      expect(await idempotency.run(scope('crash'), 'a'.repeat(64), works)).toEqual({
        status: 201,
        text: '{"id":"x"}',
        headers: { Location: '/api/v1/things/x' },
        replayed: true,
      });
      expect(calls).toBe(3);
    });

    it('a duplicate waits for the first reply; past the wait, 409 IN_PROGRESS with Retry-After', async () => {
      const idempotency = new Idempotency(createIdempotencyKeyStore(world.stack.sql), { waitMs: 300 });
      const waiting = new Idempotency(createIdempotencyKeyStore(world.stack.sql), { waitMs: 5000 });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let calls = 0;
      const slow = async () => {
        calls++;
        await gate;
        return { status: 202, body: { runId: 'run_1' } };
      };
      const first = idempotency.run(scope('slow'), 'b'.repeat(64), slow);
      await expect.poll(() => rows('slow')).toEqual([{ reply_status: null }]);
      await expect(idempotency.run(scope('slow'), 'b'.repeat(64), slow)).rejects.toMatchObject({
        code: 'CONFLICT',
        details: { reason: 'IDEMPOTENCY_KEY_IN_PROGRESS' },
        headers: { 'Retry-After': '1' },
      });
      const second = waiting.run(scope('slow'), 'b'.repeat(64), slow);
      release();
      expect(await first).toMatchObject({ status: 202, replayed: false });
      expect(await second).toMatchObject({ status: 202, text: '{"runId":"run_1"}', replayed: true });
      expect(calls).toBe(1);
    });

    it("a crashed process's claim is taken over once its lease passed; expired keys are purged", async () => {
      const sql = world.stack.sql;
      const idempotency = new Idempotency(createIdempotencyKeyStore(sql), { waitMs: 100 });
      await sql`
        INSERT INTO idempotency_keys
          (organization_id, api_key_id, route, idempotency_key, fingerprint, claim_token, locked_until, expires_at)
        VALUES (${world.org.organizationId}, ${world.org.keyId}, 'POST /test', 'crashed', ${'c'.repeat(64)}, 'dead',
          now() - interval '1 second', now() + interval '1 day')`;
      const done = await idempotency.run(scope('crashed'), 'c'.repeat(64), async () => ({ status: 201, body: {} }));
      expect(done.replayed).toBe(false);
      expect(await rows('crashed')).toEqual([{ reply_status: 201 }]);

      // An expired reply is not replayed: the key is taken over in place.
      await sql`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idempotency_key = 'crashed'`;
      const fresh = await idempotency.run(scope('crashed'), 'd'.repeat(64), async () => ({ status: 200, body: 1 }));
      expect(fresh).toMatchObject({ status: 200, replayed: false });

      // purgeExpiredIdempotencyKeys deletes what expired by `now`, at most `limit` at a time, and nothing else.
      await sql`UPDATE idempotency_keys SET expires_at = now() - interval '1 hour' WHERE route = 'POST /test'`;
      const [{ n: expired }] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at <= now()`;
      const [{ n: live }] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at > now()`;
      expect(expired).toBeGreaterThanOrEqual(3);
      expect(await purgeExpiredIdempotencyKeys(sql, new Date(), 2)).toBe(2);
      expect(await purgeExpiredIdempotencyKeys(sql, new Date(), 1000)).toBe(expired - 2);
      const [{ n: left }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM idempotency_keys`;
      expect(left).toBe(live);
    });
  });
});
