import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SecretBox } from '../../db/secretBox.js';
import { apiClient } from '../helpers/http.js';
import {
  everythingOverStdio,
  fixtureOverStdio,
  saveServer,
  startEverythingOverHttp,
  type RunningServer,
} from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** Server operations against the reference server over every transport, and the rules every operation follows. */
describe('server operations on server-everything', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let httpEverything: RunningServer;
  let sseEverything: RunningServer;
  const servers: Record<string, string> = {};
  const op = (server: string, suffix: string, body: unknown = {}) =>
    call('POST', `/projects/${org.projectId}/servers/${servers[server]}/${suffix}`, body);

  beforeAll(async () => {
    [stack, httpEverything, sseEverything] = await Promise.all([
      startTestStack({ worker: false, config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' } }),
      startEverythingOverHttp('streamableHttp'),
      startEverythingOverHttp('sse'),
    ]);
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    const save = (name: string, input: Record<string, unknown>) =>
      saveServer(stack.sql, stack.box, { projectId: org.projectId, name, ...input } as never).then(
        (id) => (servers[name] = id),
      );
    await Promise.all([
      save('stdio', everythingOverStdio()),
      save('http', { transportType: 'http', url: httpEverything.url }),
      save('sse', { transportType: 'sse', url: sseEverything.url }),
      // Saved as HTTP, but the URL only speaks the legacy SSE protocol: the connection falls back.
      save('http-to-sse', { transportType: 'http', url: sseEverything.url }),
      save('crashy', fixtureOverStdio('crashy')),
      save('disabled', { ...everythingOverStdio(), enabled: false }),
    ]);
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([httpEverything?.stop(), sseEverything?.stop()]);
  });

  describe.each([
    ['stdio', 'stdio'],
    ['http', 'streamable-http'],
    ['sse', 'sse'],
    ['http-to-sse', 'sse'],
  ])('over %s', (server, transport) => {
    it('validates: connected, with the negotiated protocol, server info and capabilities', async () => {
      const reply = await op(server, 'validate');
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({
        success: true,
        status: 'connected',
        initInfo: {
          protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          serverInfo: { name: 'mcp-servers/everything', version: expect.any(String) },
          capabilities: { tools: expect.any(Object), prompts: expect.any(Object), resources: expect.any(Object) },
          instructions: expect.any(String),
          transport,
        },
      });
    });

    it('lists tools and calls one; the MCP result comes back unchanged', async () => {
      const tools = await op(server, 'tools');
      expect(tools.status).toBe(200);
      const echo = tools.body.items.find((t: { name: string }) => t.name === 'echo');
      expect(echo).toMatchObject({ name: 'echo', description: expect.any(String), inputSchema: { type: 'object' } });
      expect(tools.body).not.toHaveProperty('nextCursor');

      const result = await op(server, 'tools/call', { toolName: 'echo', parameters: { message: 'hello' } });
      expect(result.status).toBe(200);
      expect(result.body).toEqual({ content: [{ type: 'text', text: 'Echo: hello' }] });
    });

    it('lists and renders prompts, lists and reads resources', async () => {
      const prompts = await op(server, 'prompts');
      expect(prompts.status).toBe(200);
      expect(prompts.body.items).toContainEqual(
        expect.objectContaining({
          name: 'args-prompt',
          arguments: expect.arrayContaining([expect.objectContaining({ name: 'city', required: true })]),
        }),
      );

      const rendered = await op(server, 'prompts/get', {
        promptName: 'args-prompt',
        arguments: { city: 'Lyon', state: 'Rhône' },
      });
      expect(rendered.status).toBe(200);
      expect(JSON.stringify(rendered.body.messages)).toContain('Lyon');

      const resources = await op(server, 'resources');
      expect(resources.status).toBe(200);
      const first = resources.body.items[0];
      expect(first).toEqual({
        uri: expect.any(String),
        name: expect.any(String),
        description: expect.any(String),
        mimeType: expect.any(String),
      });

      const read = await op(server, 'resources/read', { uri: first.uri });
      expect(read.status).toBe(200);
      expect(read.body.contents[0]).toMatchObject({ uri: first.uri, text: expect.any(String) });
    });
  });

  it('export collects tools, resources and prompts in one snapshot', async () => {
    const reply = await op('stdio', 'export');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ serverId: servers.stdio, exportedAt: expect.any(String) });
    expect(Date.parse(reply.body.exportedAt)).not.toBeNaN();
    expect(reply.body.tools.map((t: { name: string }) => t.name)).toContain('echo');
    expect(reply.body.prompts.length).toBeGreaterThan(0);
    expect(reply.body.resources.length).toBeGreaterThan(0);
  });

  it('a tool-level failure is HTTP 200 with isError true', async () => {
    // get-sum validates its input itself and answers with an error result rather than failing the request.
    const reply = await op('stdio', 'tools/call', { toolName: 'get-sum', parameters: { a: 'one', b: 2 } });
    expect(reply.status).toBe(200);
    expect(reply.body.isError).toBe(true);
  });

  it('doctor reports every step, timed, and the lists', async () => {
    for (const server of ['stdio', 'http']) {
      const reply = await op(server, 'doctor');
      expect(reply.status).toBe(200);
      const report = reply.body;
      expect(report).toMatchObject({
        status: 'ready',
        generatedAt: expect.any(String),
        target: { projectId: org.projectId, serverId: servers[server], name: server, transportType: server },
        initInfo: { serverInfo: { name: 'mcp-servers/everything' } },
        error: null,
      });
      for (const name of [
        'probe',
        'connection',
        'initialization',
        'capabilities',
        'tools',
        'resources',
        'resourceTemplates',
        'prompts',
      ]) {
        expect(report.checks[name], name).toEqual({
          status: 'ok',
          detail: expect.any(String),
          durationMs: expect.any(Number),
        });
      }
      expect(report.tools.length).toBeGreaterThan(5);
      expect(report.resourceTemplates.length).toBeGreaterThan(0);
      if (server === 'http') expect(report.oauth).toEqual({ required: false, registrationStrategies: [] });
      else expect(report.oauth).toBeNull();
    }
  });

  it('100 sequential tool calls to a stdio server use one spawned process', async () => {
    const pids = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const reply = await op('crashy', 'tools/call', { toolName: 'pid' });
      expect(reply.status).toBe(200);
      pids.add(reply.body.content[0].text);
    }
    expect(pids.size).toBe(1);
    const [pid] = pids;
    expect(Number(pid)).not.toBe(process.pid);
    // And that process is the only crashy fixture this test process has spawned.
    const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => /crashy\.m?[jt]s\b/.test(line));
    expect(children.map((line) => line.trim().split(/\s+/)[0])).toEqual([pid]);
  });

  it('a disabled server is 400 SERVER_DISABLED for operations, while check-oauth still answers', async () => {
    for (const suffix of ['validate', 'doctor', 'tools', 'export']) {
      const reply = await op('disabled', suffix);
      expect(reply.status, suffix).toBe(400);
      expect(reply.body, suffix).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { reason: 'SERVER_DISABLED', serverId: servers.disabled },
      });
    }
    const called = await op('disabled', 'tools/call', { toolName: 'echo', parameters: { message: 'x' } });
    expect(called.body.details.reason).toBe('SERVER_DISABLED');
    expect(await op('disabled', 'check-oauth')).toMatchObject({
      status: 200,
      body: { useOAuth: false, serverUrl: null, tokens: null },
    });
  });

  it('finding a server to refuse it opens none of its secrets; what connects (or reads its grant) opens them', async () => {
    const sealed = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'sealed and off',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
      headers: { 'x-api-key': 'sealed' },
      enabled: false,
    });
    const opened = vi.spyOn(SecretBox.prototype, 'decrypt');
    try {
      const refused = await call('POST', `/projects/${org.projectId}/servers/${sealed}/tools`, {});
      expect(refused).toMatchObject({
        status: 400,
        body: { details: { reason: 'SERVER_DISABLED', serverId: sealed } },
      });
      const tunnel = await call('POST', `/projects/${org.projectId}/tunnels/${sealed}/close`, {});
      expect(tunnel).toMatchObject({ status: 422, body: { code: 'FEATURE_NOT_SUPPORTED' } });
      expect(opened).not.toHaveBeenCalled();
      expect((await call('POST', `/projects/${org.projectId}/servers/${sealed}/check-oauth`, {})).status).toBe(200);
      expect(opened).toHaveBeenCalled();
    } finally {
      opened.mockRestore();
    }
  });

  it('unknown projects and servers, and servers of another project or organization, are 404', async () => {
    const other = await seedOrganization(stack.sql);
    const otherServer = await saveServer(stack.sql, stack.box, {
      projectId: other.projectId,
      name: 'theirs',
      ...everythingOverStdio(),
    });
    const cases: [string, string][] = [
      ['prj_unknown', servers.stdio],
      [org.projectId, 'srv_unknown'],
      [org.projectId, otherServer],
      [other.projectId, otherServer],
    ];
    for (const [projectId, serverId] of cases) {
      for (const suffix of ['validate', 'tools', 'check-oauth']) {
        const reply = await call('POST', `/projects/${projectId}/servers/${serverId}/${suffix}`, {});
        expect(reply.status, `${projectId}/${serverId}/${suffix}`).toBe(404);
        expect(reply.body.code).toBe('NOT_FOUND');
        expect(JSON.stringify(reply.body)).not.toContain('theirs');
      }
    }
    // `default` is the key's own default project: its servers are found, another organization's are not.
    const own = await call('POST', `/projects/default/servers/${servers.stdio}/tools/call`, {
      toolName: 'echo',
      parameters: { message: 'via default' },
    });
    expect(own.status).toBe(200);
    expect(own.body.content[0].text).toContain('via default');
    const theirs = await call('POST', `/projects/default/servers/${otherServer}/tools/call`, {
      toolName: 'echo',
      parameters: { message: 'x' },
    });
    expect(theirs).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', details: { serverId: otherServer } } });
  });

  it('request bodies are validated at the edge', async () => {
    expect((await op('stdio', 'tools/call', { parameters: {} })).body).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^body\.toolName/),
    });
    expect((await op('stdio', 'tools/call', { toolName: 'echo', parameters: [1] })).status).toBe(400);
    expect(
      (await op('stdio', 'prompts/get', { promptName: 'args-prompt', arguments: { city: { nested: true } } })).status,
    ).toBe(400);
    expect((await op('stdio', 'resources/read', {})).status).toBe(400);
    expect((await op('stdio', 'tools', { cursor: 42 })).status).toBe(400);
  });

  it('an unknown tool is a tool-level error; an unknown resource (the server’s -32602) is a 404', async () => {
    const unknownTool = await op('stdio', 'tools/call', { toolName: 'no-such-tool' });
    expect(unknownTool.status).toBe(200);
    expect(unknownTool.body.isError).toBe(true);
    const unknownResource = await op('stdio', 'resources/read', { uri: 'demo://nothing/here' });
    expect(unknownResource.status).toBe(404);
    expect(unknownResource.body).toMatchObject({
      code: 'NOT_FOUND',
      details: { reason: 'RESOURCE_NOT_FOUND', mcpError: { code: -32602 } },
    });
  });
});
