/**
 * Issue 32, the conformance check's plumbing, end to end through the HTTP API, Temporal (the check's workflow and
 * activity in the stack's worker) and Postgres, with a runner of the test's own in the worker in place of the
 * official suite (the runner itself is tested with the real suite package elsewhere): the report it returns is what
 * the API serves; one check per server; the run cap counts checks; the time limit ends a check that never finishes;
 * a check whose workflow vanished does not block its server; cancelling stops the runner.
 */
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import type { SavedServer } from '../../domain/catalog/server.js';
import { OperationFailure } from '../../domain/failures.js';
import type { ConformanceOptions, ConformanceReport, ConformanceRunner } from '../../domain/mcp/conformance/report.js';
import { newId } from '../../domain/ids.js';
import { createLogger } from '../../runtime/logger.js';
import { apiClient } from '../helpers/http.js';
import { runway } from '../helpers/runwayCli.js';
import { everythingOverStdio, saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** What the suite would have found: one scenario passed, one failed with the suite's message, one not applicable. */
function reportFor(options: ConformanceOptions, serverName: string): ConformanceReport {
  return {
    specVersion: options.specVersion,
    suiteVersion: '0.0.0-test',
    scenarios: [
      {
        name: 'server-initialize',
        scored: true,
        notScoredReason: null,
        status: 'passed',
        checks: [
          {
            id: 'initialize-response',
            name: 'Initialize response',
            description: `the server ${serverName} answers initialize`,
            status: 'passed',
            message: null,
            specReferences: [{ id: 'lifecycle', url: 'https://modelcontextprotocol.io/specification' }],
          },
        ],
      },
      {
        name: 'tools-list',
        scored: true,
        notScoredReason: null,
        status: 'failed',
        checks: [
          {
            id: 'tools-input-schema',
            name: 'Tool input schema',
            description: 'every tool has an object input schema',
            status: 'failed',
            message: "tool 'broken' has inputSchema.type 'string'\u0000",
            specReferences: [],
          },
        ],
      },
      { name: 'resources-subscribe', scored: false, notScoredReason: 'pending', status: 'not_applicable', checks: [] },
    ],
    score: {
      value: 50,
      passedScenarios: 1,
      scoredScenarios: 2,
      passedChecks: 1,
      failedChecks: 1,
      method: 'passed scored scenarios / scored scenarios, x100, rounded down',
    },
    startedAt: new Date().toISOString(),
    finishedAt: new Date().toISOString(),
  };
}

/** Resolves once the signal aborts, with its reason. */
const aborted = (signal: AbortSignal | undefined) =>
  new Promise<unknown>((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });

/**
 * The test's runner, by the server's name: `gated*` waits for release(name) (or its signal), `hangs` never ends until
 * aborted, `down` fails as an unreachable server does, any other returns reportFor at once.
 */
class FakeRunner implements ConformanceRunner {
  readonly calls: { server: SavedServer; options: ConformanceOptions; abortedWith?: unknown }[] = [];
  private readonly gates = new Map<string, () => void>();

  release(name: string) {
    const open = this.gates.get(name);
    if (!open) throw new Error(`no check of ${name} is waiting`);
    open();
  }

  waiting(name: string) {
    return this.gates.has(name);
  }

  async check(server: SavedServer, options: ConformanceOptions): Promise<ConformanceReport> {
    const call: (typeof this.calls)[number] = { server, options };
    this.calls.push(call);
    void aborted(options.signal).then((reason) => (call.abortedWith = reason));
    options.onProgress?.({ scenariosDone: 0 });
    if (server.name.startsWith('gated')) {
      const released = new Promise<void>((resolve) => this.gates.set(server.name, resolve));
      const outcome = await Promise.race([released.then(() => 'released' as const), aborted(options.signal)]);
      this.gates.delete(server.name);
      if (outcome !== 'released') throw outcome;
    }
    if (server.name === 'hangs') throw await aborted(options.signal);
    if (server.name === 'down')
      throw new OperationFailure('SERVER_UNREACHABLE', 'could not connect to the server (ECONNREFUSED)');
    options.onProgress?.({ scenariosDone: 3 });
    return reportFor(options, server.name);
  }
}

describe('conformance checks of a saved server', () => {
  const runner = new FakeRunner();
  let stack: TestStack;
  let org: SeededOrganization;
  let other: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startTestStack({
      conformanceRunner: runner,
      // One open check (or run) per organization: the cap is easy to reach.
      config: { MAX_CONCURRENT_RUNS: '1', RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    [org, other] = await Promise.all([seedOrganization(stack.sql), seedOrganization(stack.sql)]);
    call = apiClient(stack.baseUrl, org.apiKey);
    const http = (name: string) =>
      saveServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name,
        transportType: 'http',
        url: `http://127.0.0.1:9/${name}`,
        headers: { 'x-api-key': `secret-of-${name}` },
      });
    for (const name of ['good', 'gated', 'gated-2', 'down', 'hangs', 'legacy', 'lost']) ids[name] = await http(name);
    ids.stdio = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'stdio',
      ...everythingOverStdio(),
    });
    ids.sse = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'sse',
      transportType: 'sse',
      url: 'http://127.0.0.1:9/sse',
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const base = (server: string) => `/projects/${org.projectId}/servers/${ids[server]}/conformance`;
  /** Polls the check until it has ended (the test's own timeout bounds the wait). */
  async function ended(server: string, checkId: string, client = call) {
    for (;;) {
      const reply = await client('GET', `${base(server)}/${checkId}`);
      expect(reply.status).toBe(200);
      if (!['queued', 'running'].includes(reply.body.status)) return reply.body;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  async function waitingFor(name: string) {
    while (!runner.waiting(name)) await new Promise((r) => setTimeout(r, 50));
  }

  it('starts a check (202 with its Location), then serves the report per scenario and per check', async () => {
    const started = await call('POST', base('good'), {});
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      serverId: ids.good,
      projectId: org.projectId,
      status: 'queued',
      // the server never connected: the modern revision
      specVersion: '2026-07-28',
      score: null,
      report: null,
      error: null,
      timeoutMs: 600_000,
    });
    const { checkId } = started.body;
    expect(checkId).toMatch(/^chk_/);
    expect(started.headers.get('location')).toBe(`/api/v1${base('good')}/${checkId}`);

    const check = await ended('good', checkId);
    expect(check).toMatchObject({ status: 'completed', score: 50, error: null, specVersion: '2026-07-28' });
    expect(check.startedAt).toBeGreaterThanOrEqual(check.createdAt);
    expect(check.finishedAt).toBeGreaterThanOrEqual(check.startedAt);
    expect(check.report.scenarios.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ['server-initialize', 'passed'],
      ['tools-list', 'failed'],
      ['resources-subscribe', 'not_applicable'],
    ]);
    // The suite's message, kept (a NUL, which Postgres cannot hold, replaced).
    expect(check.report.scenarios[1].checks[0]).toMatchObject({
      status: 'failed',
      message: "tool 'broken' has inputSchema.type 'string'\uFFFD",
    });
    expect(check.report.score).toMatchObject({ value: 50, scoredScenarios: 2, method: expect.any(String) });

    // The runner was given the saved server with its settings and secrets opened, the revision and the limit.
    const given = runner.calls.find((c) => c.server.id === ids.good)!;
    expect(given.server).toMatchObject({ url: 'http://127.0.0.1:9/good', headers: { 'x-api-key': 'secret-of-good' } });
    expect(given.options).toMatchObject({ specVersion: '2026-07-28', timeoutMs: 600_000 });
    expect(given.options.signal).toBeInstanceOf(AbortSignal);
  });

  it('checks at the revision asked for, else at the one the server last spoke, and lists the history newest first', async () => {
    const asked = await call('POST', base('good'), { specVersion: '2025-11-25' });
    expect(asked.status).toBe(202);
    expect(asked.body.specVersion).toBe('2025-11-25');
    expect(await ended('good', asked.body.checkId)).toMatchObject({ status: 'completed', specVersion: '2025-11-25' });

    await stack.sql`UPDATE servers SET protocol_era = 'legacy', protocol_version = '2025-06-18', protocol_seen_at = now() WHERE id = ${ids.legacy}`;
    const legacy = await call('POST', base('legacy'), {});
    expect(legacy.body.specVersion).toBe('2025-11-25');
    await ended('legacy', legacy.body.checkId);

    const history = await call('GET', base('good'));
    expect(history.status).toBe(200);
    expect(history.body.items.map((c: { specVersion: string }) => c.specVersion)).toEqual(['2025-11-25', '2026-07-28']);
    expect(history.body.items[0]).toMatchObject({
      checkId: asked.body.checkId,
      status: 'completed',
      score: 50,
      suiteVersion: '0.0.0-test',
      scoreDetails: { value: 50, passedScenarios: 1 },
    });
    expect(history.body.items[0]).not.toHaveProperty('report');
    expect(history.body.nextCursor).toBeUndefined();

    const first = await call('GET', `${base('good')}?limit=1`);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call('GET', `${base('good')}?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.items.map((c: { checkId: string }) => c.checkId)).toEqual([history.body.items[1].checkId]);
    expect(second.body.nextCursor).toBeUndefined();
    // A cursor of another server's history is refused.
    const elsewhere = await call('GET', `${base('legacy')}?cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(elsewhere.status).toBe(400);
  });

  it('runs one check per server at a time (409 naming it), and counts open checks against the run cap (429)', async () => {
    // Racing starts of one server: one is created.
    const racing = await Promise.all([call('POST', base('gated'), {}), call('POST', base('gated'), {})]);
    expect(racing.map((r) => r.status).sort()).toEqual([202, 409]);
    const started = racing.find((r) => r.status === 202)!;
    const again = await call('POST', base('gated'), { specVersion: '2025-11-25' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: 'CONFLICT',
      details: { reason: 'CHECK_RUNNING', checkId: started.body.checkId },
    });
    expect(again.body.message).toContain(started.body.checkId);

    // MAX_CONCURRENT_RUNS is 1: the open check holds the organization's slot.
    const capped = await call('POST', base('good'), {});
    expect(capped.status).toBe(429);
    expect(capped.body).toMatchObject({ code: 'RATE_LIMITED', details: { reason: 'CONCURRENT_RUN_LIMIT' } });
    expect(Number(capped.headers.get('retry-after'))).toBeGreaterThan(0);
    // ...for eval runs too: the cap counts runs and checks together.
    const run = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Capped',
      serverIds: [ids.good],
      modelApiKeys: { openai: 'sk-test' },
      tests: [{ title: 'case', query: 'question', model: 'gpt-4.1', provider: 'openai' }],
    });
    expect(run.status).toBe(429);
    expect(run.body).toMatchObject({
      code: 'RATE_LIMITED',
      details: { reason: 'CONCURRENT_RUN_LIMIT', activeRuns: 1 },
    });
    // Another organization's cap is its own.
    const otherServer = await saveServer(stack.sql, stack.box, {
      projectId: other.projectId,
      name: 'good',
      transportType: 'http',
      url: 'http://127.0.0.1:9/other',
    });
    const otherCall = apiClient(stack.baseUrl, other.apiKey);
    const elsewhere = await otherCall('POST', `/projects/${other.projectId}/servers/${otherServer}/conformance`, {});
    expect(elsewhere.status).toBe(202);

    await waitingFor('gated');
    expect((await call('GET', `${base('gated')}/${started.body.checkId}`)).body.status).toBe('running');
    runner.release('gated');
    expect(await ended('gated', started.body.checkId)).toMatchObject({ status: 'completed', score: 50 });
    const free = await call('POST', base('good'), {});
    expect(free.status).toBe(202);
    await ended('good', free.body.checkId);
  });

  it('refuses what it cannot check, up front', async () => {
    const stdio = await call('POST', base('stdio'), {});
    expect(stdio.status).toBe(422);
    expect(stdio.body).toMatchObject({
      code: 'FEATURE_NOT_SUPPORTED',
      details: { reason: 'TRANSPORT_NOT_SUPPORTED', transportType: 'stdio' },
    });
    expect(stdio.body.message).toMatch(/stdio server cannot be checked/);
    const sse = await call('POST', base('sse'), {});
    expect(sse.status).toBe(422);
    expect(sse.body.details).toMatchObject({ reason: 'TRANSPORT_NOT_SUPPORTED', transportType: 'sse' });

    const badRevision = await call('POST', base('good'), { specVersion: '2024-11-05' });
    expect(badRevision.status).toBe(400);
    expect(badRevision.body.code).toBe('VALIDATION_ERROR');
    const unknownField = await call('POST', base('good'), { specVersion: '2025-11-25', suite: 'mine' });
    expect(unknownField.status).toBe(400);

    const unknownServer = await call('POST', `/projects/${org.projectId}/servers/srv_nope/conformance`, {});
    expect(unknownServer.status).toBe(404);
    const unknownCheck = await call('GET', `${base('good')}/chk_nope`);
    expect(unknownCheck.status).toBe(404);

    await stack.sql`UPDATE servers SET enabled = false WHERE id = ${ids['gated-2']}`;
    const disabled = await call('POST', base('gated-2'), {});
    expect(disabled.status).toBe(400);
    expect(disabled.body.details.reason).toBe('SERVER_DISABLED');
    await stack.sql`UPDATE servers SET enabled = true WHERE id = ${ids['gated-2']}`;

    // Another organization's key reaches neither the server nor its checks.
    const [mine] = (await call('GET', base('good'))).body.items;
    const stranger = apiClient(stack.baseUrl, other.apiKey);
    expect((await stranger('POST', base('good'), {})).status).toBe(404);
    expect((await stranger('GET', base('good'))).status).toBe(404);
    expect((await stranger('GET', `${base('good')}/${mine.checkId}`)).status).toBe(404);
    expect((await stranger('POST', `${base('good')}/${mine.checkId}/cancel`)).status).toBe(404);
    // ...nor through its own project's path.
    const viaOwn = await stranger(
      'GET',
      `/projects/${other.projectId}/servers/${ids.good}/conformance/${mine.checkId}`,
    );
    expect(viaOwn.status).toBe(404);
  });

  it("records the runner's failure as the check's (no retry)", async () => {
    const before = runner.calls.filter((c) => c.server.name === 'down').length;
    const started = await call('POST', base('down'), {});
    const check = await ended('down', started.body.checkId);
    expect(check).toMatchObject({
      status: 'failed',
      score: null,
      report: null,
      error: { code: 'SERVER_UNREACHABLE', message: 'could not connect to the server (ECONNREFUSED)' },
    });
    expect(runner.calls.filter((c) => c.server.name === 'down')).toHaveLength(before + 1);
  });

  it('ends a check that outlives its time limit as failed (TIMEOUT), its runner told to stop', async () => {
    // A second API on the same services, whose checks get a 1 s limit.
    const app = createApp({
      ...stack.services,
      temporal: stack.temporal,
      config: { ...stack.config, CONFORMANCE_TIMEOUT_MS: 1000 },
      log: createLogger('silent'),
    });
    const server: Server = await new Promise((resolve) => {
      const s = app.express.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const { port } = server.address() as { port: number };
      const shortCall = apiClient(`http://127.0.0.1:${port}/api/v1`, org.apiKey);
      const started = await shortCall('POST', base('hangs'), {});
      expect(started.status).toBe(202);
      expect(started.body.timeoutMs).toBe(1000);
      const check = await ended('hangs', started.body.checkId);
      expect(check).toMatchObject({ status: 'failed', error: { code: 'TIMEOUT' }, report: null });
      expect(check.error.message).toMatch(/did not finish within the check's time limit \(1 s\)/);
      const given = runner.calls.find((c) => c.server.name === 'hangs')!;
      expect(given.options.timeoutMs).toBe(1000);
      expect(given.options.signal!.aborted).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('does not let a check whose workflow vanished block its server or count against the cap', async () => {
    // A check left running by a workflow that is gone, its deadline passed.
    const lostId = newId('chk');
    await stack.sql`
      INSERT INTO conformance_checks (id, organization_id, project_id, server_id, spec_version, status, timeout_ms,
                                      deadline_at, started_at)
      VALUES (${lostId}, ${org.organizationId}, ${org.projectId}, ${ids.lost}, '2026-07-28', 'running', 1000,
              now() - interval '1 second', now() - interval '1 minute')`;
    const started = await call('POST', base('lost'), {});
    expect(started.status).toBe(202);
    await ended('lost', started.body.checkId);
    const lost = await call('GET', `${base('lost')}/${lostId}`);
    expect(lost.body).toMatchObject({ status: 'failed', error: { code: 'CHECK_LOST' } });
  });

  it('cancels a running check: the runner is told to stop and the server is free again', async () => {
    const started = await call('POST', base('gated-2'), {});
    expect(started.status).toBe(202);
    await waitingFor('gated-2');
    const cancelled = await call('POST', `${base('gated-2')}/${started.body.checkId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', error: { code: 'CANCELLED' } });
    const given = runner.calls.filter((c) => c.server.name === 'gated-2').at(-1)!;
    while (!given.options.signal!.aborted) await new Promise((r) => setTimeout(r, 50));
    const again = await call('POST', `${base('gated-2')}/${started.body.checkId}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.details.reason).toBe('CHECK_FINISHED');
    expect((await call('GET', `${base('gated-2')}/${started.body.checkId}`)).body.status).toBe('cancelled');
    // The server (and the organization's slot) is free at once.
    const next = await call('POST', base('gated-2'), {});
    expect(next.status).toBe(202);
    expect((await call('POST', `${base('gated-2')}/${next.body.checkId}/cancel`)).status).toBe(200);
  });

  it('runs from the runway CLI: start and wait for the score and the failed checks, list the history', async () => {
    const env = { RUNWAY_URL: stack.origin, RUNWAY_API_KEY: org.apiKey, RUNWAY_PROJECT_ID: org.projectId };
    const dir = mkdtempSync(join(tmpdir(), 'runway-conformance-cli-'));
    const waited = await runway(
      ['servers', 'conformance', 'good', '--spec-version', '2025-11-25', '--wait', '--poll-interval', '100'],
      env,
      dir,
    );
    // 50/100: the check completed below full marks.
    expect(waited.code, waited.stderr).toBe(1);
    expect(waited.stdout).toMatch(/: completed$/m);
    expect(waited.stdout).toMatch(/^score: 50\/100 +\(1 of 2 scored scenarios passed/m);
    expect(waited.stdout).toMatch(/^tools-list\s+Tool input schema\s+failed\s+tool 'broken' has inputSchema\.type/m);
    expect(waited.stdout).toMatch(/^not applicable: resources-subscribe$/m);

    const history = await runway(['servers', 'conformance', ids.good, '--history', '--json'], env, dir);
    expect(history.code, history.stderr).toBe(0);
    const items = JSON.parse(history.stdout) as { specVersion: string; status: string }[];
    expect(items[0]).toMatchObject({ specVersion: '2025-11-25', status: 'completed' });
    expect(items.length).toBe((await call('GET', `${base('good')}?limit=200`)).body.items.length);

    const refused = await runway(['servers', 'conformance', 'stdio'], env, dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/stdio server cannot be checked/);
    const badRevision = await runway(['servers', 'conformance', 'good', '--spec-version', '2024-01-01'], env, dir);
    expect(badRevision.code).toBe(2);
  });

  it('is in the OpenAPI document', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const path = '/projects/{projectId}/servers/{serverId}/conformance';
    expect(Object.keys(document.paths[path])).toEqual(expect.arrayContaining(['post', 'get']));
    expect(Object.keys(document.paths[`${path}/{checkId}`])).toEqual(['get']);
    expect(Object.keys(document.paths[`${path}/{checkId}/cancel`])).toEqual(['post']);
  });
});
