import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaginatedServer, PROMPTS, RESOURCES, TOOLS } from '../fixtures/mcp/paginated.js';
import type { StartedServer } from '../fixtures/mcp/serve.js';
import { startToolsOnlyServer } from '../fixtures/mcp/tools-only.js';
import { apiClient } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** Pagination through our opaque cursors, export of every page, and servers that lack a capability. */
describe('server lists', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let paginated: StartedServer;
  let toolsOnly: StartedServer;
  const servers: Record<string, string> = {};
  const op = (server: string, suffix: string, body: unknown = {}) =>
    call('POST', `/projects/${org.projectId}/servers/${servers[server]}/${suffix}`, body);

  beforeAll(async () => {
    [stack, paginated, toolsOnly] = await Promise.all([
      startTestStack({ worker: false, config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' } }),
      startPaginatedServer(),
      startToolsOnlyServer(),
    ]);
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    servers.paginated = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'paginated',
      transportType: 'http',
      url: paginated.url,
    });
    servers.paginated2 = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'paginated-2',
      transportType: 'http',
      url: paginated.url,
    });
    servers.toolsOnly = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'tools-only',
      transportType: 'http',
      url: toolsOnly.url,
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([paginated?.close(), toolsOnly?.close()]);
  });

  async function walk(server: string, list: string) {
    const items: { name: string; uri?: string }[] = [];
    const cursors: string[] = [];
    let cursor: string | undefined;
    do {
      const reply = await op(server, list, cursor ? { cursor } : {});
      expect(reply.status).toBe(200);
      items.push(...reply.body.items);
      cursor = reply.body.nextCursor;
      if (cursor) cursors.push(cursor);
    } while (cursor);
    return { items, cursors };
  }

  it.each([
    ['tools', TOOLS.length, 3],
    ['prompts', PROMPTS.length, 2],
    ['resources', RESOURCES.length, 4],
  ])('walks every page of %s with nextCursor', async (list, total, pages) => {
    const { items, cursors } = await walk('paginated', list);
    expect(items).toHaveLength(total);
    expect(cursors).toHaveLength(pages - 1);
    expect(new Set(items.map((i) => i.uri ?? i.name)).size).toBe(total);
  });

  it('lists the contract shapes: outputSchema when declared, prompt arguments, resource entries', async () => {
    const tools = (await walk('paginated', 'tools')).items;
    expect(tools.find((t) => t.name === 'structured')).toMatchObject({ outputSchema: { type: 'object' } });
    expect(tools.find((t) => t.name === 'tool_01')).not.toHaveProperty('outputSchema');
    const prompts = (await op('paginated', 'prompts')).body.items;
    expect(prompts[0]).toEqual({
      name: 'prompt_01',
      description: 'Prompt #1',
      arguments: [{ name: 'topic', description: 'What to talk about', required: false }],
    });
    const blob = await op('paginated', 'resources/read', { uri: 'fixture://blob/01' });
    expect(blob.body.contents[0]).toMatchObject({
      uri: 'fixture://blob/01',
      mimeType: 'image/png',
      blob: expect.any(String),
    });
    const structured = await op('paginated', 'tools/call', { toolName: 'structured', parameters: { value: 'abc' } });
    expect(structured.body.structuredContent).toEqual({ value: 'abc', length: 3 });
  });

  it('our cursors are opaque: the server’s cursor is not visible in them', async () => {
    const first = await op('paginated', 'tools');
    const serverCursor = Buffer.from(JSON.stringify({ offset: 10 })).toString('base64url');
    expect(first.body.nextCursor).toEqual(expect.any(String));
    expect(first.body.nextCursor).not.toBe(serverCursor);
  });

  it('a bad cursor is 400 VALIDATION_ERROR: garbage, tampered, another list’s, another server’s, or the server’s own', async () => {
    const toolsCursor = (await op('paginated', 'tools')).body.nextCursor as string;
    const [payload, signature] = toolsCursor.split('.');
    const tampered = `${Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url')}.${signature}`;
    const attempts: [string, string, string][] = [
      ['paginated', 'tools', 'not-a-cursor'],
      ['paginated', 'tools', tampered],
      ['paginated', 'tools', `${payload}.${'A'.repeat(43)}`],
      ['paginated', 'prompts', toolsCursor],
      ['paginated2', 'tools', toolsCursor],
      ['paginated', 'tools', Buffer.from(JSON.stringify({ offset: 10 })).toString('base64url')],
    ];
    for (const [server, list, cursor] of attempts) {
      const reply = await op(server, list, { cursor });
      expect(reply.status, `${server} ${list} ${cursor}`).toBe(400);
      expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'INVALID_CURSOR' } });
    }
  });

  it('export collects every page of every list', async () => {
    const reply = await op('paginated', 'export');
    expect(reply.status).toBe(200);
    expect(reply.body.tools.map((t: { name: string }) => t.name)).toEqual(TOOLS.map((t) => t.name));
    expect(reply.body.prompts.map((p: { name: string }) => p.name)).toEqual(PROMPTS.map((p) => p.name));
    expect(reply.body.resources.map((r: { uri: string }) => r.uri)).toEqual(RESOURCES.map((r) => r.uri));
  });

  it('a server without prompts or resources answers 422 FEATURE_NOT_SUPPORTED for them', async () => {
    for (const [suffix, body] of [
      ['prompts', {}],
      ['prompts/get', { promptName: 'x' }],
      ['resources', {}],
      ['resources/read', { uri: 'x://y' }],
    ] as const) {
      const reply = await op('toolsOnly', suffix, body);
      expect(reply.status, suffix).toBe(422);
      expect(reply.body.code, suffix).toBe('FEATURE_NOT_SUPPORTED');
    }
    expect((await op('toolsOnly', 'tools/call', { toolName: 'ping' })).body).toEqual({
      content: [{ type: 'text', text: 'pong' }],
    });
    const exported = await op('toolsOnly', 'export');
    expect(exported.body).toMatchObject({ tools: [{ name: 'ping' }], prompts: [], resources: [] });
  });

  it('doctor skips what a server does not declare, and calls a failed list partial', async () => {
    const toolsOnlyReport = (await op('toolsOnly', 'doctor')).body;
    expect(toolsOnlyReport.status).toBe('ready');
    expect(toolsOnlyReport.checks).toMatchObject({
      tools: { status: 'ok' },
      prompts: { status: 'skipped' },
      resources: { status: 'skipped' },
    });

    // The paginated fixture declares resources but has no resources/templates/list handler (-32601).
    const paginatedReport = (await op('paginated', 'doctor')).body;
    expect(paginatedReport.status).toBe('partial');
    expect(paginatedReport.checks.resourceTemplates).toMatchObject({ status: 'error' });
    expect(paginatedReport.checks.tools).toMatchObject({ status: 'ok', detail: `${TOOLS.length} listed` });
    expect(paginatedReport.tools).toHaveLength(TOOLS.length);
    expect(paginatedReport.error).toMatchObject({ code: 'FEATURE_NOT_SUPPORTED' });
  });
});
