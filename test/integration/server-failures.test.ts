import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { ConnectionPool } from '../../domain/mcp/index.js';
import { getSavedServersByIds } from '../../db/servers.js';
import { startCrashyServer } from '../fixtures/mcp/crashy.js';
import type { StartedHttpServer, StartedServer } from '../fixtures/mcp/serve.js';
import { startSlowServer } from '../fixtures/mcp/slow.js';
import { apiClient } from '../helpers/http.js';
import { fixtureOverStdio, saveServer, startEverythingOverHttp } from '../helpers/mcpServers.js';
import { freePort } from '../helpers/ports.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { mcpOperationsOn, startTestStack, type TestStack } from '../helpers/stack.js';

const IDLE_TIMEOUT_MS = 1000;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  for (const deadline = Date.now() + ms; !condition();) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(25);
  }
}

/** Timeouts per phase, progress, crashes, unreachable servers, and the pool's lifecycle. */
describe('server operation failures', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let slow: StartedHttpServer;
  let slowInit: StartedServer;
  let crashyHttp: StartedServer;
  const servers: Record<string, string> = {};
  const op = (server: string, suffix: string, body: unknown = {}) =>
    call('POST', `/projects/${org.projectId}/servers/${servers[server]}/${suffix}`, body);
  const tool = (server: string, toolName: string, parameters: Record<string, unknown> = {}) =>
    op(server, 'tools/call', { toolName, parameters });
  const pidOf = async (server: string) => Number((await tool(server, 'pid')).body.content[0].text);

  beforeAll(async () => {
    [stack, slow, slowInit, crashyHttp] = await Promise.all([
      startTestStack({
        worker: false,
        config: {
          RATE_LIMIT_BURST: '10000',
          RATE_LIMIT_PER_MINUTE: '600000',
          MCP_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
        },
      }),
      startSlowServer(),
      startSlowServer({ initDelayMs: 2000 }),
      startCrashyServer(),
    ]);
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    const save = async (name: string, input: Record<string, unknown>) =>
      (servers[name] = await saveServer(stack.sql, stack.box, { projectId: org.projectId, name, ...input } as never));
    await Promise.all([
      save('slow', { transportType: 'http', url: slow.url, timeouts: { requestMs: 1_000, maxTotalMs: 20_000 } }),
      save('slow-capped', { transportType: 'http', url: slow.url, timeouts: { requestMs: 1_000, maxTotalMs: 3_000 } }),
      save('slow-init', { transportType: 'http', url: slowInit.url, timeouts: { initializeMs: 300 } }),
      save('crashy', fixtureOverStdio('crashy')),
      save('crashy-idle', fixtureOverStdio('crashy')),
      save('crashy-http', { transportType: 'http', url: crashyHttp.url }),
      save('refused', { transportType: 'http', url: `http://127.0.0.1:${await freePort()}/mcp` }),
      save('missing-command', { transportType: 'stdio', command: '/nonexistent/mcp-server', args: [] }),
    ]);
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([slow?.close(), slowInit?.close(), crashyHttp?.close()]);
  });

  it('a request that outlives its timeout is 504 TIMEOUT naming the phase; the session stays usable', async () => {
    const reply = await tool('slow', 'sleep', { ms: 30_000 });
    expect(reply.status).toBe(504);
    expect(reply.body).toMatchObject({ code: 'TIMEOUT', details: { phase: 'request', elapsedMs: expect.any(Number) } });
    expect(reply.body.details.elapsedMs).toBeGreaterThanOrEqual(990);
    expect(reply.body.details.elapsedMs).toBeLessThan(30_000);
    expect((await tool('slow', 'add', { a: 2, b: 3 })).body.content[0].text).toBe('5');
  });

  it('progress notifications extend the request timeout', async () => {
    // 4 s against a 1 s request timeout: each progress notification (every 100 ms) restarts it.
    const reply = await tool('slow', 'sleep_with_progress', { ms: 4000, intervalMs: 100 });
    expect(reply.status).toBe(200);
    expect(reply.body.content[0].text).toBe('slept 4000');
  });

  it('…but not beyond the maximum total', async () => {
    const reply = await tool('slow-capped', 'sleep_with_progress', { ms: 30_000, intervalMs: 100 });
    expect(reply.status).toBe(504);
    expect(reply.body.details.phase).toBe('request');
    // the maximum total (3 s), not the sleep (30 s): margins wide enough for a loaded machine
    expect(reply.body.details.elapsedMs).toBeGreaterThanOrEqual(2_900);
    expect(reply.body.details.elapsedMs).toBeLessThan(30_000);
  });

  it('a server that does not finish initializing in time is 504 with phase initialize', async () => {
    const reply = await op('slow-init', 'validate');
    expect(reply.status).toBe(504);
    expect(reply.body).toMatchObject({ code: 'TIMEOUT', details: { phase: 'initialize' } });
  });

  it('tool-level failures are 200 with isError', async () => {
    expect(await tool('slow', 'fail')).toMatchObject({
      status: 200,
      body: { isError: true, content: [{ type: 'text', text: 'boom' }] },
    });
    expect(await tool('slow', 'throw')).toMatchObject({ status: 200, body: { isError: true } });
  });

  it('a stdio server that dies mid-call is 502; the next call starts a new process', async () => {
    const before = await pidOf('crashy');
    const crashed = await tool('crashy', 'crash');
    expect(crashed.status).toBe(502);
    expect(crashed.body).toMatchObject({ code: 'SERVER_UNREACHABLE', details: { phase: 'request' } });
    const after = await pidOf('crashy');
    expect(after).not.toBe(before);
    expect(alive(before)).toBe(false);
    expect((await tool('crashy', 'echo', { text: 'back' })).body.content[0].text).toBe('back');
  });

  it('an HTTP server that drops the connection mid-call is 502 at once, not a timeout', async () => {
    expect((await tool('crashy-http', 'echo', { text: 'hi' })).status).toBe(200);
    const started = Date.now();
    const crashed = await tool('crashy-http', 'crash');
    expect(crashed.status).toBe(502);
    expect(crashed.body.code).toBe('SERVER_UNREACHABLE');
    expect(Date.now() - started).toBeLessThan(5000);
    // The listener is gone too: reconnecting fails the same way.
    expect((await tool('crashy-http', 'echo', { text: 'hi' })).body).toMatchObject({
      code: 'SERVER_UNREACHABLE',
      details: { reason: 'NETWORK_ERROR' },
    });
  });

  it('an HTTP server that restarts (forgetting its sessions) is reconnected transparently', async () => {
    const first = await startEverythingOverHttp('streamableHttp');
    const serverId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'restarting',
      transportType: 'http',
      url: first.url,
    });
    const echo = () =>
      call('POST', `/projects/${org.projectId}/servers/${serverId}/tools/call`, {
        toolName: 'echo',
        parameters: { message: 'again' },
      });
    expect((await echo()).status).toBe(200);
    await first.stop();
    const second = await startEverythingOverHttp('streamableHttp', { port: first.port });
    try {
      expect(await echo()).toMatchObject({ status: 200, body: { content: [{ text: 'Echo: again' }] } });
    } finally {
      await second.stop();
    }
  });

  it('a server that cannot be reached or started is 502 SERVER_UNREACHABLE', async () => {
    expect((await op('refused', 'validate')).body).toMatchObject({
      code: 'SERVER_UNREACHABLE',
      details: { reason: 'NETWORK_ERROR' },
    });
    const missing = await op('missing-command', 'tools');
    expect(missing.status).toBe(502);
    expect(missing.body).toMatchObject({ code: 'SERVER_UNREACHABLE', details: { phase: 'connect' } });
  });

  it('doctor is still 200 for a server it cannot reach, with status error', async () => {
    const reply = await op('refused', 'doctor');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'error',
      checks: { probe: { status: 'error' }, connection: { status: 'error' }, tools: { status: 'skipped' } },
      error: { code: 'SERVER_UNREACHABLE' },
      initInfo: null,
    });
    const stdio = await op('missing-command', 'doctor');
    expect(stdio.body).toMatchObject({
      status: 'error',
      checks: { probe: { status: 'error', detail: expect.stringContaining('not found') } },
    });
  });

  it('an edited server gets a new session; the old process exits', async () => {
    const before = await pidOf('crashy');
    await stack.sql`UPDATE servers SET revision = revision + 1 WHERE id = ${servers.crashy}`;
    const after = await pidOf('crashy');
    expect(after).not.toBe(before);
    await waitFor(() => !alive(before));
  });

  it('an idle session is closed after MCP_IDLE_TIMEOUT_MS and reopened on demand', async () => {
    const before = await pidOf('crashy-idle');
    await waitFor(() => !alive(before), IDLE_TIMEOUT_MS + 5000);
    const after = await pidOf('crashy-idle');
    expect(after).not.toBe(before);
    expect(alive(after)).toBe(true);
  });

  it('closing the pool stops every child process', async () => {
    // A pool of its own, composed like the API's, so closing it does not disturb the stack.
    const log = createLogger('silent');
    const pool = new ConnectionPool({ idleTimeoutMs: 60_000, log });
    const mcp = mcpOperationsOn(stack, pool, log);
    const [server] = await getSavedServersByIds(stack.sql, stack.box, org.projectId, [servers['crashy-idle']]);
    const pids = await Promise.all(
      [1, 2, 3].map(() => mcp.callTool(server, 'pid', {}).then((r) => Number((r.content[0] as { text: string }).text))),
    );
    // Three concurrent first calls share one connect: one process.
    expect(new Set(pids).size).toBe(1);
    expect(pool.size).toBe(1);
    await pool.close();
    expect(alive(pids[0])).toBe(false);
    await expect(mcp.callTool(server, 'pid', {})).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  it('closing the pool ends its streamable HTTP sessions on the server (DELETE)', async () => {
    const log = createLogger('silent');
    const pool = new ConnectionPool({ idleTimeoutMs: 60_000, log });
    const mcp = mcpOperationsOn(stack, pool, log);
    const [server] = await getSavedServersByIds(stack.sql, stack.box, org.projectId, [servers.slow]);
    const before = slow.openSessions();
    await mcp.listTools(server);
    expect(slow.openSessions()).toBe(before + 1);
    await pool.close();
    expect(slow.openSessions()).toBe(before);
  });
});
