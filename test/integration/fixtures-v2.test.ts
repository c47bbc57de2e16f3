/**
 * Checks the fixture servers built with the SDK v2 (test/fixtures/mcp/modern.ts: protocol 2026-07-28 over stdio and
 * streamable HTTP, questions through input_required, the Tasks extension) with the SDK v2 client and with raw
 * JSON-RPC, so the tests of the v2 migration can trust them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { fixtureArgs, startModernHttp, type StdioFixture } from '../helpers/mcpServers.js';
import { TASKS_EXTENSION } from '../fixtures/mcp/tasks-extension.js';

const MODERN = '2026-07-28';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function modernHttp(legacy: 'reject' | 'stateless' = 'reject') {
  const server = await startModernHttp({ legacy });
  cleanups.push(() => server.stop());
  return server;
}

const stdioParams = (name: StdioFixture) => ({
  command: process.execPath,
  args: fixtureArgs(name),
  stderr: 'pipe' as const,
});

/** A v2 client that answers form elicitations with `answers` (by the field the form asks for), recording each message. */
function v2Client(
  mode: 'auto' | 'legacy',
  answers: Record<string, string> = {},
  action: 'accept' | 'decline' = 'accept',
) {
  const client = new Client(
    { name: 'fixtures-v2-test', version: '0.0.0' },
    { versionNegotiation: { mode }, capabilities: { elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as { message: string; requestedSchema: { properties: Record<string, unknown> } };
    asked.push(params.message);
    if (action !== 'accept') return { action };
    const field = Object.keys(params.requestedSchema.properties)[0];
    return { action: 'accept', content: { [field]: answers[field] } };
  });
  cleanups.push(() => client.close());
  return { client, asked };
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

interface RpcReply {
  status: number;
  body: { id?: unknown; result?: Record<string, any>; error?: { code: number; message: string; data?: any } };
}

/**
 * The per-request `_meta` envelope of 2026-07-28: form elicitation, and the Tasks extension when `tasks` (a capability
 * counts only on the request that declares it).
 */
const envelope = (tasks: boolean) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'fixtures-v2-test', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {
    elicitation: { form: {} },
    ...(tasks && { extensions: { [TASKS_EXTENSION]: {} } }),
  },
});

let nextId = 1;

/** One raw 2026-07-28 request over streamable HTTP, with the standard headers (Mcp-Name: the taskId for tasks/*). */
async function httpRpc(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: { tasks?: boolean; headers?: Record<string, string> } = {},
): Promise<RpcReply> {
  const name = method.startsWith('tasks/') ? params.taskId : params.name;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' && { 'mcp-name': name }),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: { ...params, _meta: envelope(options.tasks ?? true) },
    }),
  });
  const text = await response.text();
  const sse = response.headers.get('content-type')?.includes('text/event-stream');
  // An SSE answer ends with the response event; the last data line is it.
  const json = sse
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .at(-1)!
        .slice(5)
    : text;
  return { status: response.status, body: JSON.parse(json) };
}

/** Raw 2026-07-28 JSON-RPC over a stdio child, through the SDK's low-level client transport. */
async function stdioRpc(name: StdioFixture) {
  const transport: Transport = new StdioClientTransport(stdioParams(name));
  const pending = new Map<unknown, (message: JSONRPCMessage) => void>();
  transport.onmessage = (message) => {
    if ('id' in message) pending.get(message.id)?.(message);
  };
  await transport.start();
  cleanups.push(() => transport.close());
  return async (method: string, params: Record<string, unknown> = {}, tasks = true): Promise<RpcReply> => {
    const id = nextId++;
    const reply = new Promise<JSONRPCMessage>((resolve) => pending.set(id, resolve));
    await transport.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(tasks) } });
    return { status: 0, body: (await reply) as RpcReply['body'] };
  };
}

type Rpc = (method: string, params?: Record<string, unknown>) => Promise<RpcReply>;

/** Polls tasks/get at the task's pollIntervalMs until `done` holds (a bounded number of polls, not a deadline). */
async function pollTask(rpc: Rpc, taskId: string, done: (task: Record<string, any>) => boolean) {
  for (let poll = 0; poll < 400; poll++) {
    const { body } = await rpc('tasks/get', { taskId });
    const task = body.result!;
    if (done(task)) return task;
    await sleep(task.pollIntervalMs);
  }
  throw new Error(`task ${taskId} never got there`);
}
const terminal = (task: Record<string, any>) => ['completed', 'failed', 'cancelled'].includes(task.status);

describe('modern fixture over streamable HTTP (2026-07-28 only)', () => {
  it('negotiates the modern era and serves tools, a prompt and a resource', async () => {
    const { url } = await modernHttp();
    const { client } = v2Client('auto');
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));

    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerCapabilities()?.extensions).toEqual({ [TASKS_EXTENSION]: {} });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'echo',
      'add',
      'ask',
      'ask_twice',
      'slow_task',
      'task_log',
    ]);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('hi');
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect([textOf(sum), sum.structuredContent]).toEqual(['5', { sum: 5 }]);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ana' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ana!' } }]);
    const note = await client.readResource({ uri: 'note://hello' });
    expect(note.contents).toEqual([
      { uri: 'note://hello', mimeType: 'text/plain', text: 'Hello from the modern fixture' },
    ]);
  });

  it('asks its questions through input_required, carrying the city to the second round in requestState', async () => {
    const { url } = await modernHttp();
    const { client, asked } = v2Client('auto', { city: 'Lisbon', day: 'Friday' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));

    expect(textOf(await client.callTool({ name: 'ask', arguments: {} }))).toBe('You chose Lisbon');
    expect(textOf(await client.callTool({ name: 'ask_twice', arguments: {} }))).toBe('You chose Lisbon on Friday');
    expect(asked).toEqual(['Which city?', 'Which city?', 'Which day in Lisbon?']);
  });

  it('answers "declined" when the user declines', async () => {
    const { url } = await modernHttp();
    const { client } = v2Client('auto', {}, 'decline');
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect(textOf(await client.callTool({ name: 'ask', arguments: {} }))).toBe('declined');
  });

  it('puts the question itself on the wire as an input_required result', async () => {
    const { url } = await modernHttp();
    const { status, body } = await httpRpc(url, 'tools/call', { name: 'ask', arguments: {} });
    expect(status).toBe(200);
    expect(body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        city: {
          method: 'elicitation/create',
          params: {
            message: 'Which city?',
            requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      },
    });
  });

  it('refuses a 2025-era client with HTTP 400 and -32022', async () => {
    const { url } = await modernHttp();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as RpcReply['body']).error).toMatchObject({
      code: -32022,
      data: { supported: [MODERN] },
    });

    const { client } = v2Client('legacy');
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(/-32022/);
  });
});

describe('modern fixture over stdio', () => {
  it('negotiates the modern era and asks its question', async () => {
    const { client } = v2Client('auto', { city: 'Porto' });
    await client.connect(new StdioClientTransport(stdioParams('modern')));

    expect(client.getProtocolEra()).toBe('modern');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'over stdio' } }))).toBe('over stdio');
    expect(textOf(await client.callTool({ name: 'ask', arguments: {} }))).toBe('You chose Porto');
  });

  it('refuses a 2025-era client with -32022', async () => {
    const { client } = v2Client('legacy');
    await expect(client.connect(new StdioClientTransport(stdioParams('modern')))).rejects.toMatchObject({
      code: -32022,
    });
  });

  it('serves both eras as modern-dual, asking a 2025 client with a real elicitation/create', async () => {
    const modern = v2Client('auto');
    await modern.client.connect(new StdioClientTransport(stdioParams('modern-dual')));
    const legacy = v2Client('legacy', { city: 'Braga', day: 'Monday' });
    await legacy.client.connect(new StdioClientTransport(stdioParams('modern-dual')));

    expect([modern.client.getProtocolEra(), legacy.client.getProtocolEra()]).toEqual(['modern', 'legacy']);
    for (const { client } of [modern, legacy]) {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'both' } }))).toBe('both');
    }
    // The SDK's legacy shim turns each input_required round into a request to the client, requestState included.
    expect(textOf(await legacy.client.callTool({ name: 'ask_twice', arguments: {} }))).toBe(
      'You chose Braga on Monday',
    );
    expect(legacy.asked).toEqual(['Which city?', 'Which day in Braga?']);
  });
});

describe('dual fixture over streamable HTTP (legacy: stateless)', () => {
  it('serves a 2026-07-28 client and a 2025 client', async () => {
    const { url } = await modernHttp('stateless');
    const modern = v2Client('auto');
    await modern.client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const legacy = v2Client('legacy');
    await legacy.client.connect(new StreamableHTTPClientTransport(new URL(url)));

    expect([modern.client.getProtocolEra(), legacy.client.getProtocolEra()]).toEqual(['modern', 'legacy']);
    // The extension is a 2026-07-28 one: a 2025 client is not offered it.
    expect(legacy.client.getServerCapabilities()?.extensions).toBeUndefined();
    for (const { client } of [modern, legacy]) {
      expect(textOf(await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }))).toBe('2');
    }
  });
});

describe('Tasks extension on the modern fixture', () => {
  it('answers slow_task with a flat CreateTaskResult that polls to completed', async () => {
    const { url } = await modernHttp();
    const rpc: Rpc = (method, params) => httpRpc(url, method, params);

    const created = await rpc('tools/call', { name: 'slow_task', arguments: { ms: 0, pollIntervalMs: 20 } });
    expect(created.status).toBe(200);
    const task = created.body.result!;
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 600_000, pollIntervalMs: 20 });
    expect(Object.keys(task).sort()).toEqual(
      ['_meta', 'createdAt', 'lastUpdatedAt', 'pollIntervalMs', 'resultType', 'status', 'taskId', 'ttlMs'].sort(),
    );
    expect(new Date(task.createdAt).toISOString()).toBe(task.createdAt);

    const done = await pollTask(rpc, task.taskId, terminal);
    expect(done).toMatchObject({
      resultType: 'complete',
      taskId: task.taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Slept 0 ms' }] },
    });
    expect(done).not.toHaveProperty('error');
  });

  it('ends a task asked to fail as failed, with the JSON-RPC error inlined', async () => {
    const { url } = await modernHttp();
    const rpc: Rpc = (method, params) => httpRpc(url, method, params);
    const { taskId } = (await rpc('tools/call', { name: 'slow_task', arguments: { ms: 0, fail: true } })).body.result!;

    const done = await pollTask(rpc, taskId, terminal);
    expect(done).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'slow_task failed, as asked' },
      statusMessage: 'slow_task failed, as asked',
    });
    expect(done).not.toHaveProperty('result');
  });

  it('acks tasks/cancel with an empty result, cancels the task, and logs the request', async () => {
    const server = await modernHttp();
    const rpc: Rpc = (method, params) => httpRpc(server.url, method, params);
    const { taskId } = (await rpc('tools/call', { name: 'slow_task', arguments: { ms: 600_000 } })).body.result!;
    expect((await rpc('tasks/get', { taskId })).body.result!.status).toBe('working');

    const ack = await rpc('tasks/cancel', { taskId });
    expect(ack.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect((await rpc('tasks/get', { taskId })).body.result).toMatchObject({ status: 'cancelled' });
    // Cancelling a terminal task is the same ack, and changes nothing.
    expect((await rpc('tasks/cancel', { taskId })).body.result!.resultType).toBe('complete');

    expect(server.taskLog().cancelRequests).toEqual([taskId, taskId]);
    const log = JSON.parse(textOf((await rpc('tools/call', { name: 'task_log', arguments: {} })).body.result));
    expect(log).toEqual({
      cancelRequests: [taskId, taskId],
      tasks: [{ taskId, tool: 'slow_task', status: 'cancelled' }],
    });
  });

  it('waits in input_required until tasks/update answers its request', async () => {
    const { url } = await modernHttp();
    const rpc: Rpc = (method, params) => httpRpc(url, method, params);
    const { taskId } = (await rpc('tools/call', { name: 'slow_task', arguments: { ms: 0, confirm: true } })).body
      .result!;

    const waiting = await pollTask(rpc, taskId, (task) => task.status !== 'working');
    expect(waiting).toMatchObject({
      status: 'input_required',
      inputRequests: {
        confirm: {
          method: 'elicitation/create',
          params: { mode: 'form', requestedSchema: { properties: { proceed: { type: 'boolean' } } } },
        },
      },
    });
    const ack = await rpc('tasks/update', {
      taskId,
      inputResponses: { confirm: { action: 'accept', content: { proceed: true } }, unknown: { action: 'cancel' } },
    });
    expect(ack.body.result!.resultType).toBe('complete');
    const done = await pollTask(rpc, taskId, terminal);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'Slept 0 ms' }] } });
  });

  it('runs slow_task synchronously for a request without the extension, and refuses it tasks/* with -32021', async () => {
    const { url } = await modernHttp();
    const plain = await httpRpc(url, 'tools/call', { name: 'slow_task', arguments: { ms: 0 } }, { tasks: false });
    expect(plain.body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Slept 0 ms' }] });
    expect(plain.body.result).not.toHaveProperty('taskId');

    const refused = await httpRpc(url, 'tasks/get', { taskId: 'any' }, { tasks: false });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
  });

  it('answers -32602 for an unknown task, and 400 with -32020 when Mcp-Name is not the taskId', async () => {
    const { url } = await modernHttp();
    const unknown = await httpRpc(url, 'tasks/get', { taskId: 'no-such-task' });
    expect([unknown.status, unknown.body.error?.code]).toEqual([200, -32602]);

    const { taskId } = (await httpRpc(url, 'tools/call', { name: 'slow_task', arguments: { ms: 0 } })).body.result!;
    const misrouted = await httpRpc(url, 'tasks/get', { taskId }, { headers: { 'mcp-name': 'another-task' } });
    expect([misrouted.status, misrouted.body.error?.code]).toEqual([400, -32020]);
    // tasks/result and tasks/list are not part of the extension.
    expect((await httpRpc(url, 'tasks/result', { taskId })).body.error?.code).toBe(-32601);
  });

  it('serves the same wire over stdio', async () => {
    const rpc = await stdioRpc('modern');
    const created = (await rpc('tools/call', { name: 'slow_task', arguments: { ms: 600_000 } })).body.result!;
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });

    expect((await rpc('tasks/cancel', { taskId: created.taskId })).body.result!.resultType).toBe('complete');
    expect((await rpc('tasks/get', { taskId: created.taskId })).body.result!.status).toBe('cancelled');
    const log = JSON.parse(textOf((await rpc('tools/call', { name: 'task_log', arguments: {} })).body.result));
    expect(log.cancelRequests).toEqual([created.taskId]);
    expect((await rpc('tasks/get', { taskId: created.taskId }, false)).body.error?.code).toBe(-32021);
  });
});
