import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/http.js';
import { fixtureOverStdio, saveServer, startModernHttp, type RunningServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';
import type { TaskLog } from '../fixtures/mcp/tasks-extension.js';

/**
 * Every server operation against servers built on the MCP TypeScript SDK v2 that speak only the 2026-07-28
 * revision (no initialize: server/discover, the _meta envelope, MRTR questions, Tasks), over streamable HTTP and
 * stdio, and against one that serves both eras. Each answers as the same operation does for a 2025 server.
 */
describe('server operations on servers of the 2026-07-28 revision', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let modernHttp: RunningServer & { taskLog(): TaskLog };
  let dualHttp: RunningServer & { taskLog(): TaskLog };
  let future: Server;
  const servers: Record<string, string> = {};
  const op = (server: string, suffix: string, body: unknown = {}) =>
    call('POST', `/projects/${org.projectId}/servers/${servers[server]}/${suffix}`, body);

  beforeAll(async () => {
    [stack, modernHttp, dualHttp] = await Promise.all([
      startTestStack({ worker: false, config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' } }),
      startModernHttp({ legacy: 'reject' }),
      startModernHttp({ legacy: 'stateless' }),
    ]);
    future = await startFutureOnlyServer();
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    const save = (name: string, input: Record<string, unknown>) =>
      saveServer(stack.sql, stack.box, { projectId: org.projectId, name, ...input } as never).then(
        (id) => (servers[name] = id),
      );
    await Promise.all([
      save('http', { transportType: 'http', url: modernHttp.url }),
      save('stdio', fixtureOverStdio('modern')),
      save('dual-http', { transportType: 'http', url: dualHttp.url }),
      save('dual-stdio', fixtureOverStdio('modern-dual')),
      // Answers every request, whatever its method, with an empty result: neither era's handshake can use it.
      save('nonsense-stdio', {
        transportType: 'stdio',
        command: process.execPath,
        args: [
          '-e',
          "require('readline').createInterface({input:process.stdin}).on('line',l=>{const m=JSON.parse(l);if(m.id!==undefined)process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{}})+'\\n')})",
        ],
      }),
      save('future', { transportType: 'http', url: `http://127.0.0.1:${(future.address() as AddressInfo).port}/mcp` }),
      // Slow tasks time out quickly here: the call's longest time is its request timeout.
      save('http-short', {
        transportType: 'http',
        url: modernHttp.url,
        timeouts: { requestMs: 1_000, maxTotalMs: 1_000 },
      }),
    ]);
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([modernHttp?.stop(), dualHttp?.stop()]);
    future?.close();
  });

  describe.each([
    ['http', 'streamable-http'],
    ['stdio', 'stdio'],
  ])('2026-07-28 only, over %s', (server, transport) => {
    it('validates: the modern era, protocol 2026-07-28, server info and capabilities', async () => {
      const reply = await op(server, 'validate');
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.initInfo).toMatchObject({
        protocolVersion: '2026-07-28',
        era: 'modern',
        serverInfo: { name: 'runway-fixture-modern' },
        capabilities: { tools: expect.any(Object), prompts: expect.any(Object), resources: expect.any(Object) },
        transport,
      });
    });

    it('lists and calls tools, prompts and resources; results come back unchanged', async () => {
      const tools = await op(server, 'tools');
      expect(tools.status).toBe(200);
      expect(tools.body.items.map((t: { name: string }) => t.name)).toEqual(
        expect.arrayContaining(['echo', 'add', 'ask', 'ask_twice', 'slow_task']),
      );
      const added = await op(server, 'tools/call', { toolName: 'add', parameters: { a: 2, b: 3 } });
      expect(added.status).toBe(200);
      expect(added.body).toMatchObject({
        content: [{ type: 'text' }],
        structuredContent: { sum: 5 },
        resultType: 'complete',
      });
      expect(added.body.isError).toBeFalsy();

      const prompts = await op(server, 'prompts');
      expect(prompts.body.items.map((p: { name: string }) => p.name)).toContain('greet');
      const prompt = await op(server, 'prompts/get', { promptName: 'greet', arguments: { name: 'Ada' } });
      expect(prompt.status).toBe(200);
      expect(JSON.stringify(prompt.body.messages)).toContain('Hello, Ada!');

      const resources = await op(server, 'resources');
      expect(resources.body.items.map((r: { uri: string }) => r.uri)).toContain('note://hello');
      const read = await op(server, 'resources/read', { uri: 'note://hello' });
      expect(read.status).toBe(200);
      expect(read.body.contents[0].text).toBe('Hello from the modern fixture');
    });

    it('exports the lists and doctor reports ready, naming the era', async () => {
      const exported = await op(server, 'export');
      expect(exported.status).toBe(200);
      expect(exported.body.tools.length).toBeGreaterThanOrEqual(5);
      expect(exported.body.prompts).toHaveLength(1);
      const doctor = await op(server, 'doctor');
      expect(doctor.status).toBe(200);
      expect(doctor.body.status, JSON.stringify(doctor.body.checks)).toBe('ready');
      expect(doctor.body.initInfo).toMatchObject({ protocolVersion: '2026-07-28', era: 'modern' });
      expect(doctor.body.checks.initialization.detail).toMatch(/2026 era/);
    });

    it("answers a question asked inside the result (MRTR) from the call's elicitation, across rounds", async () => {
      const once = await op(server, 'tools/call', {
        toolName: 'ask',
        elicitation: { action: 'accept', content: { city: 'Lisbon' } },
      });
      expect(once.status).toBe(200);
      expect(once.body.content[0].text).toBe('You chose Lisbon');
      const declined = await op(server, 'tools/call', { toolName: 'ask', elicitation: { action: 'decline' } });
      expect(declined.body.content[0].text).toBe('declined');
      // Without an answer the client declares no elicitation (the server's profile has none), so the server may
      // not ask: it says so (-32021), and the caller is told how to answer.
      const unanswered = await op(server, 'tools/call', { toolName: 'ask' });
      expect(unanswered.status).toBe(422);
      expect(unanswered.body).toMatchObject({
        code: 'FEATURE_NOT_SUPPORTED',
        details: { reason: 'CLIENT_CAPABILITY_REQUIRED', mcpError: { code: -32021 } },
      });
      const twice = await op(server, 'tools/call', {
        toolName: 'ask_twice',
        elicitation: { action: 'accept', content: { city: 'Lisbon', day: 'Friday' } },
      });
      expect(twice.status, JSON.stringify(twice.body)).toBe(200);
      expect(twice.body.content[0].text).toMatch(/Lisbon.*Friday|Friday.*Lisbon/);
    });

    it('follows a task a tool answers with to its end; a failed task is the tool’s isError', async () => {
      const done = await op(server, 'tools/call', {
        toolName: 'slow_task',
        parameters: { ms: 300, pollIntervalMs: 50 },
      });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.content[0].text).toBe('Slept 300 ms');
      const failed = await op(server, 'tools/call', { toolName: 'slow_task', parameters: { ms: 10, fail: true } });
      expect(failed.status).toBe(200);
      expect(failed.body.isError).toBe(true);
      expect(failed.body.content[0].text).toMatch(/failed: slow_task failed, as asked/);
      const confirmed = await op(server, 'tools/call', {
        toolName: 'slow_task',
        parameters: { ms: 10, confirm: true, pollIntervalMs: 50 },
        elicitation: { action: 'accept', content: { proceed: true } },
      });
      expect(confirmed.body.content[0].text).toBe('Slept 10 ms');
    });
  });

  it("the project's server list shows the protocol each server last spoke", async () => {
    await op('stdio', 'validate');
    let listed: { id: string; protocol: unknown }[] = [];
    for (let i = 0; i < 50; i++) {
      listed = (await call('GET', `/projects/${org.projectId}/servers`)).body.items;
      if (listed.find((s) => s.id === servers.stdio)?.protocol) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(listed.find((s) => s.id === servers.stdio)?.protocol).toEqual({
      era: 'modern',
      version: '2026-07-28',
      seenAt: expect.any(Number),
    });
    // A server never connected to says so.
    expect(listed.find((s) => s.id === servers.future)?.protocol).toBeNull();
  });

  it('a task that outlives the call is cancelled on the server, and the call is 504 TIMEOUT naming it', async () => {
    const reply = await op('http-short', 'tools/call', { toolName: 'slow_task', parameters: { ms: 60_000 } });
    expect(reply.status).toBe(504);
    expect(reply.body).toMatchObject({ code: 'TIMEOUT', details: { taskId: expect.any(String) } });
    expect(reply.body.message).toContain(reply.body.details.taskId);
    expect(modernHttp.taskLog().cancelRequests).toContain(reply.body.details.taskId);
  });

  it.each(['dual-http', 'dual-stdio'])('a server of both eras (%s) is spoken to in the 2026 era', async (server) => {
    const reply = await op(server, 'validate');
    expect(reply.status).toBe(200);
    expect(reply.body.initInfo).toMatchObject({ protocolVersion: '2026-07-28', era: 'modern' });
    const echoed = await op(server, 'tools/call', { toolName: 'echo', parameters: { message: 'hi' } });
    expect(echoed.body.content[0].text).toContain('hi');
  });

  it('a stdio server that answers nonsense to both handshakes fails once, in words, without trying forever', async () => {
    const reply = await op('nonsense-stdio', 'validate');
    expect(reply.status).toBe(502);
    expect(reply.body.code).toBe('SERVER_UNREACHABLE');
    expect(reply.body.details.reason).toMatch(/INVALID_RESPONSE|PROTOCOL_NEGOTIATION_FAILED/);
  });

  it("doctor's probe reads a bounded start of a server's answer, never an endless one whole", async () => {
    const endless = await startEndlessServer();
    try {
      const id = await saveServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name: 'endless',
        transportType: 'http',
        url: `http://127.0.0.1:${(endless.server.address() as AddressInfo).port}/mcp`,
        timeouts: { connectMs: 2_000, initializeMs: 2_000, requestMs: 2_000 },
      } as never);
      const doctor = await call('POST', `/projects/${org.projectId}/servers/${id}/doctor`, {});
      expect(doctor.status).toBe(200);
      expect(doctor.body.status).toBe('error');
      // The probe stops reading after its limit (64 KiB); socket buffers let the server write a few MB more at most.
      expect(endless.sent()).toBeLessThan(16 * 1024 * 1024);
    } finally {
      endless.server.closeAllConnections();
      endless.server.close();
    }
  });

  it('a server whose revision Runway cannot speak is PROTOCOL_VERSION_UNSUPPORTED, in words, and not a fallback', async () => {
    const reply = await op('future', 'tools');
    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({
      code: 'SERVER_UNREACHABLE',
      details: {
        reason: 'PROTOCOL_VERSION_UNSUPPORTED',
        retryable: false,
        serverSupports: ['2099-01-01'],
        runwaySupports: expect.arrayContaining(['2026-07-28', '2025-11-25']),
      },
    });
    expect(reply.body.message).toMatch(/does not speak a protocol revision Runway speaks.*2099-01-01/);
    const doctor = await op('future', 'doctor');
    expect(doctor.body.status).toBe('error');
    expect(doctor.body.connection.detail).toMatch(/share no protocol revision/);
  });
});

/** A server whose every POST answers 200 with a JSON body that never ends; `sent()` counts the bytes it wrote. */
async function startEndlessServer(): Promise<{ server: Server; sent(): number }> {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const server = createServer((req, res) => {
    req.resume();
    if (req.method !== 'POST') return void res.writeHead(405).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"jsonrpc":"2.0","id":0,"result":{"padding":"');
    const more = () => {
      while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      if (!res.destroyed) res.once('drain', more);
    };
    res.on('close', () => res.removeAllListeners('drain'));
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, sent: () => sent };
}

/** A server of a revision from the future: every request is refused with 400 and -32022, naming what it speaks. */
async function startFutureOnlyServer(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const id = (() => {
        try {
          return (JSON.parse(body) as { id?: unknown }).id ?? null;
        } catch {
          return null;
        }
      })();
      res.writeHead(req.method === 'POST' ? 400 : 405, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2099-01-01'] } },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
