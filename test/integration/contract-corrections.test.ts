import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMembership, createApiKey, createUser } from '../../db/accounts.js';
import { createChatbox, createChatSession } from '../../db/catalog.js';
import { apiClient } from '../helpers/http.js';
import { sampleResults } from '../helpers/ingest.js';
import { everythingOverStdio, saveServer, startEverythingOverHttp, type RunningServer } from '../helpers/mcpServers.js';
import { freePort } from '../helpers/ports.js';
import { referenceErrors } from '../helpers/referenceDocument.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/**
 * The corrections of contract-notes ("Corrections") that clients of the real product rely on, each checked as such a
 * client sees it, with replies validated against the real product's published document where it has the route.
 */
describe('contract corrections', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let httpEverything: RunningServer;
  const servers: Record<string, string> = {};
  const op = (server: string, suffix: string, body: unknown = {}) =>
    call('POST', `/projects/${org.projectId}/servers/${servers[server]}/${suffix}`, body);

  beforeAll(async () => {
    [stack, httpEverything] = await Promise.all([
      startTestStack({ worker: false, config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' } }),
      startEverythingOverHttp('streamableHttp'),
    ]);
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    const save = async (name: string, input: Record<string, unknown>) =>
      (servers[name] = await saveServer(stack.sql, stack.box, { projectId: org.projectId, name, ...input } as never));
    await save('stdio', everythingOverStdio());
    await save('http', { transportType: 'http', url: httpEverything.url });
    // Nothing listens there: the probe and the connection fail.
    await save('refused', { transportType: 'http', url: `http://127.0.0.1:${await freePort()}/mcp` });
  });
  afterAll(async () => {
    await stack?.stop();
    await httpEverything?.stop();
  });

  describe('doctor', () => {
    it.each([
      ['stdio', 'stdio', null],
      ['http', 'streamable-http', 200],
    ])(
      'over %s: probe, connection and capabilities at the top level, as the reference document has them',
      async (server, transport, httpStatus) => {
        const reply = await op(server, 'doctor');
        expect(reply.status).toBe(200);
        const report = reply.body;
        expect(report).toMatchObject({
          status: 'ready',
          probe: { status: 'ok', detail: expect.any(String), durationMs: expect.any(Number), transport, httpStatus },
          connection: {
            status: 'connected',
            detail: expect.stringContaining('connected over'),
            durationMs: expect.any(Number),
          },
          capabilities: { tools: expect.any(Object), prompts: expect.any(Object), resources: expect.any(Object) },
        });
        // The top-level fields agree with the checks and the initialize answer they summarize.
        expect(report.capabilities).toEqual(report.initInfo.capabilities);
        expect(report.probe.detail).toBe(report.checks.probe.detail);
        expect(report.checks).toMatchObject({
          probe: { status: 'ok' },
          connection: { status: 'ok' },
          initialization: { status: 'ok' },
        });
        expect(report).toHaveProperty('target.serverId', servers[server]);
        expect(report.oauth === null || typeof report.oauth === 'object').toBe(true);
        expect(referenceErrors('DoctorReport', report)).toEqual([]);
      },
    );

    it('a server that cannot be reached: connection error, no capabilities, and still the reference shape', async () => {
      const reply = await op('refused', 'doctor');
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({
        status: 'error',
        probe: { status: 'error', transport: null, httpStatus: null, detail: expect.stringContaining('unreachable') },
        connection: { status: 'error', detail: expect.any(String) },
        capabilities: null,
        initInfo: null,
      });
      expect(reply.body.connection.detail).toBe(reply.body.checks.connection.detail);
      expect(referenceErrors('DoctorReport', reply.body)).toEqual([]);
    });
  });

  describe('chat sessions', () => {
    let projectId: string;
    const titles = (reply: { body: { items: { title: string }[] } }) => reply.body.items.map((s) => s.title);

    beforeAll(async () => {
      // Sessions share instants in pairs: a cursor that were only a timestamp would skip or repeat one of a pair
      // split by a page boundary.
      projectId = org.projectId;
      const base = Date.UTC(2026, 2, 1);
      for (let i = 0; i < 23; i++) {
        await createChatSession(stack.sql, {
          projectId,
          userId: org.userId,
          title: `chat ${i}`,
          visibility: 'project',
          lastActivityAt: new Date(base + Math.floor(i / 2) * 1000),
        });
      }
    });

    it('pages with before = the previous nextCursor, as the real client does: every session once, in order', async () => {
      const seen: string[] = [];
      let before: string | undefined;
      let pages = 0;
      do {
        const reply = await call(
          'GET',
          `/chat-sessions?projectId=${projectId}&limit=4${before ? `&before=${encodeURIComponent(before)}` : ''}`,
        );
        expect(reply.status).toBe(200);
        expect(referenceErrors('ChatSessionPage', reply.body)).toEqual([]);
        seen.push(...titles(reply));
        before = reply.body.nextCursor;
        pages++;
      } while (before && pages < 20);
      expect(pages).toBe(6);
      expect(new Set(seen).size).toBe(23);
      const all = await call('GET', `/chat-sessions?projectId=${projectId}&limit=200`);
      expect(seen).toEqual(titles(all));
    });

    it('before and cursor walk the same pages; cursor wins when both are given', async () => {
      const first = await call('GET', `/chat-sessions?projectId=${projectId}&limit=5`);
      const byBefore = await call(
        'GET',
        `/chat-sessions?projectId=${projectId}&limit=5&before=${first.body.nextCursor}`,
      );
      const byCursor = await call(
        'GET',
        `/chat-sessions?projectId=${projectId}&limit=5&cursor=${first.body.nextCursor}`,
      );
      expect(byBefore.status).toBe(200);
      expect(byBefore.body).toEqual(byCursor.body);
      const third = await call(
        'GET',
        `/chat-sessions?projectId=${projectId}&limit=5&cursor=${byBefore.body.nextCursor}`,
      );
      const both = await call(
        'GET',
        `/chat-sessions?projectId=${projectId}&limit=5&cursor=${byBefore.body.nextCursor}&before=${first.body.nextCursor}`,
      );
      expect(both.body).toEqual(third.body);
      expect(titles(both)).not.toEqual(titles(byBefore));
    });

    it('before still takes an epoch-ms instant (sessions strictly older)', async () => {
      const base = Date.UTC(2026, 2, 1);
      const reply = await call('GET', `/chat-sessions?projectId=${projectId}&before=${base + 2000}`);
      expect(reply.status).toBe(200);
      expect(titles(reply).sort()).toEqual(['chat 0', 'chat 1', 'chat 2', 'chat 3']);
      expect(reply.body.items.map((s: { lastActivityAt: number }) => s.lastActivityAt)).toEqual([
        base + 1000,
        base + 1000,
        base,
        base,
      ]);
    });

    it.each([
      ['0', 1],
      ['-7', 1],
      ['201', 23],
      ['100000', 23],
      ['abc', 23],
      ['', 23],
      ['2.9', 2],
    ])('limit=%s is clamped to 1..200 (default 50), not refused', async (limit, count) => {
      const reply = await call('GET', `/chat-sessions?projectId=${projectId}&limit=${limit}`);
      expect(reply.status).toBe(200);
      expect(reply.body.items).toHaveLength(count);
    });

    it('a malformed cursor stays a 400, in before as in cursor; an instant out of range is clamped', async () => {
      for (const query of ['before=not-a-cursor', 'cursor=not-a-cursor', 'before=abc.def', 'before=2026-01-01']) {
        const reply = await call('GET', `/chat-sessions?projectId=${projectId}&${query}`);
        expect(reply.status, query).toBe(400);
        expect(reply.body, query).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'INVALID_CURSOR' } });
        if (query.startsWith('before')) expect(reply.body.details.parameter).toBe('before');
      }
      // A cursor of another list (archived sessions) is refused in before as well.
      const first = await call('GET', `/chat-sessions?projectId=${projectId}&limit=1`);
      expect((await call('GET', `/chat-sessions?status=archived&before=${first.body.nextCursor}`)).status).toBe(400);
      // Issue 29 item 12: the document lists no 400 here; an instant past the year 9999 bounds nothing.
      const far = await call('GET', `/chat-sessions?projectId=${projectId}&before=${'9'.repeat(20)}`);
      const unbounded = await call('GET', `/chat-sessions?projectId=${projectId}`);
      expect(far).toMatchObject({ status: 200, body: unbounded.body });
    });
  });

  describe('eval run iterations', () => {
    let runId: string;
    const page = (query: string) => call('GET', `/projects/${org.projectId}/eval-runs/${runId}/iterations?${query}`);

    beforeAll(async () => {
      const ingest = (suffix: string, body: unknown) =>
        call('POST', `/projects/${org.projectId}/eval-ingest/${suffix}`, body);
      const started = await ingest('runs/start', { suiteName: 'iteration bounds', externalRunId: 'bounds-1' });
      expect(started.status).toBe(200);
      runId = started.body.runId;
      const results = sampleResults(210, { prefix: 'bounds' });
      expect((await ingest('runs/iterations', { runId, results: results.slice(0, 200) })).status).toBe(200);
      expect((await ingest('runs/iterations', { runId, results: results.slice(200) })).status).toBe(200);
      expect((await ingest('runs/finalize', { runId, externalRunId: 'bounds-1' })).status).toBe(200);
    });

    it.each([
      ['limit=0', 1],
      ['limit=-1', 1],
      ['limit=201', 200],
      ['limit=1000000', 200],
      ['limit=abc', 50],
      ['', 50],
      ['limit=7', 7],
    ])('%s gives a page of %i', async (query, count) => {
      const reply = await page(query);
      expect(reply.status).toBe(200);
      expect(reply.body.items).toHaveLength(count);
      expect(reply.body.nextCursor).toEqual(expect.any(String));
    });

    it('a clamped page size still walks every iteration once', async () => {
      const first = await page('limit=5000');
      const rest = await page(`limit=5000&cursor=${first.body.nextCursor}`);
      expect(rest.body.nextCursor).toBeUndefined();
      const ids = [...first.body.items, ...rest.body.items].map((i: { id: string }) => i.id);
      expect(ids).toHaveLength(210);
      expect(new Set(ids).size).toBe(210);
    });

    it('a malformed cursor stays a 400', async () => {
      const reply = await page('limit=0&cursor=not-a-cursor');
      expect(reply).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_ERROR', details: { reason: 'INVALID_CURSOR' } },
      });
    });
  });

  describe('account and chatboxes', () => {
    it('GET /me carries profilePictureUrl: the account picture, or null', async () => {
      const me = await call('GET', '/me');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ imageUrl: null, profilePictureUrl: null });
      expect(referenceErrors('Me', me.body)).toEqual([]);

      const pictured = await createUser(stack.sql, {
        email: 'pictured@example.test',
        name: 'Pictured',
        imageUrl: 'https://img.example.test/p.png',
      });
      await addMembership(stack.sql, { organizationId: org.organizationId, userId: pictured.id, role: 'member' });
      const key = await createApiKey(stack.sql, { name: 'p', organizationId: org.organizationId, userId: pictured.id });
      const theirs = await apiClient(stack.baseUrl, key.key)('GET', '/me');
      expect(theirs.body).toMatchObject({
        id: pictured.id,
        imageUrl: 'https://img.example.test/p.png',
        profilePictureUrl: 'https://img.example.test/p.png',
      });
      expect(referenceErrors('Me', theirs.body)).toEqual([]);
    });

    it('a chatbox without a host has hostId and hostName null, in the list and the detail; with one, its id and name', async () => {
      const created = await call('POST', `/projects/${org.projectId}/hosts`, {
        name: 'Claude desk',
        template: 'claude',
      });
      expect(created.status).toBe(201);
      const host = created.body as { id: string };
      const hostless = await createChatbox(stack.sql, {
        projectId: org.projectId,
        name: 'hostless',
        modelId: 'openai/gpt-4.1',
        serverIds: [servers.stdio],
      });
      const hosted = await createChatbox(stack.sql, {
        projectId: org.projectId,
        name: 'hosted',
        modelId: 'openai/gpt-4.1',
        hostId: host.id,
      });

      const list = await call('GET', `/projects/${org.projectId}/chatboxes`);
      expect(list.status).toBe(200);
      const byName = Object.fromEntries(list.body.items.map((c: { name: string }) => [c.name, c]));
      expect(byName.hostless).toMatchObject({ id: hostless.id, hostId: null, hostName: null });
      expect(byName.hosted).toMatchObject({ id: hosted.id, hostId: host.id, hostName: 'Claude desk' });
      for (const item of list.body.items) expect(referenceErrors('Chatbox', item)).toEqual([]);

      const detail = await call('GET', `/projects/${org.projectId}/chatboxes/${hostless.id}`);
      expect(detail.body).toMatchObject({ hostId: null, hostName: null });
      expect(referenceErrors('ChatboxDetail', detail.body)).toEqual([]);
      expect((await call('GET', `/projects/${org.projectId}/chatboxes/${hosted.id}`)).body).toMatchObject({
        hostId: host.id,
        hostName: 'Claude desk',
      });
    });
  });

  describe('unknown prompts and resources', () => {
    it('resources/read of a uri the server does not have is 404 NOT_FOUND with the server’s message', async () => {
      for (const server of ['stdio', 'http']) {
        const reply = await op(server, 'resources/read', { uri: 'demo://nothing/here' });
        expect(reply.status, server).toBe(404);
        expect(reply.body).toMatchObject({
          code: 'NOT_FOUND',
          details: { reason: 'RESOURCE_NOT_FOUND', uri: 'demo://nothing/here', mcpError: { code: -32602 } },
        });
        expect(reply.body.message).toContain(reply.body.details.mcpError.message);
        expect(reply.body.details.mcpError.message).toContain('demo://nothing/here');
      }
    });

    it('prompts/get of an unknown prompt is 404 NOT_FOUND; a known prompt with a bad argument stays 400', async () => {
      const unknown = await op('stdio', 'prompts/get', { promptName: 'no-such-prompt' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({
        code: 'NOT_FOUND',
        details: { reason: 'PROMPT_NOT_FOUND', promptName: 'no-such-prompt', mcpError: { code: -32602 } },
      });
      expect(unknown.body.message).toContain(unknown.body.details.mcpError.message);
      expect(unknown.body.details.mcpError.message).toContain('no-such-prompt');

      const missingArgument = await op('stdio', 'prompts/get', { promptName: 'args-prompt' });
      expect(missingArgument.status).toBe(400);
      expect(missingArgument.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'INVALID_PARAMS' } });
      // And the session is still good.
      expect(
        (await op('stdio', 'prompts/get', { promptName: 'args-prompt', arguments: { city: 'Oslo' } })).status,
      ).toBe(200);
    });
  });

  describe('task-augmented tool calls', () => {
    it('tools/call with taskOptions is 422 FEATURE_NOT_SUPPORTED, and the tool is not called', async () => {
      const reply = await op('stdio', 'tools/call', {
        toolName: 'echo',
        parameters: { message: 'as a task' },
        taskOptions: { ttl: 60_000 },
      });
      expect(reply.status).toBe(422);
      expect(reply.body).toMatchObject({
        code: 'FEATURE_NOT_SUPPORTED',
        details: { reason: 'TASKS_NOT_SUPPORTED', toolName: 'echo' },
      });
      expect(reply.body.message).toMatch(/task-augmented/);
      expect(referenceErrors('Error', reply.body)).toEqual([]);
      // An empty taskOptions still asks for a task.
      expect((await op('stdio', 'tools/call', { toolName: 'echo', taskOptions: {} })).status).toBe(422);
      // Without it the same call answers.
      expect((await op('stdio', 'tools/call', { toolName: 'echo', parameters: { message: 'plain' } })).body).toEqual({
        content: [{ type: 'text', text: 'Echo: plain' }],
      });
    });

    it('taskOptions of the wrong type is a 400 naming it', async () => {
      const reply = await op('stdio', 'tools/call', { toolName: 'echo', taskOptions: 'yes' });
      expect(reply).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_ERROR',
          details: { issues: [expect.objectContaining({ path: 'body.taskOptions' })] },
        },
      });
    });
  });

  describe('tunnels', () => {
    const tunnels = `/projects/{p}/tunnels`;
    const path = (projectId: string, suffix = '') => tunnels.replace('{p}', projectId) + suffix;

    it('creating one is 422 FEATURE_NOT_SUPPORTED that says servers are reached directly', async () => {
      const reply = await call('POST', path(org.projectId), { name: 'everything' });
      expect(reply.status).toBe(422);
      expect(reply.body).toMatchObject({ code: 'FEATURE_NOT_SUPPORTED', details: { reason: 'TUNNELS_NOT_OFFERED' } });
      expect(reply.body.message).toMatch(/self-hosted Runway reaches MCP servers directly/);
      expect(reply.body.message).toMatch(/no tunnel is needed/);
      expect(referenceErrors('Error', reply.body)).toEqual([]);
      // The `default` project alias works as on every project route.
      expect((await call('POST', path('default'), { name: 'everything' })).status).toBe(422);
    });

    it('closing one is the same 422 for a server of the project', async () => {
      const reply = await call('POST', path(org.projectId, `/${servers.http}/close`), {});
      expect(reply).toMatchObject({
        status: 422,
        body: { code: 'FEATURE_NOT_SUPPORTED', details: { reason: 'TUNNELS_NOT_OFFERED' } },
      });
      expect((await call('POST', path(org.projectId, `/${servers.http}/close`))).status).toBe(422);
    });

    it('the usual checks come first: key, project, server, body', async () => {
      expect((await apiClient(stack.baseUrl)('POST', path(org.projectId), { name: 'x' })).status).toBe(401);
      const other = await seedOrganization(stack.sql);
      const otherServer = await saveServer(stack.sql, stack.box, {
        projectId: other.projectId,
        name: 'theirs',
        transportType: 'http',
        url: 'https://mcp.example.test/mcp',
      });
      for (const [target, body] of [
        [path('prj_unknown'), { name: 'x' }],
        [path(other.projectId), { name: 'x' }],
        [path('prj_unknown', `/${servers.http}/close`), {}],
        [path(org.projectId, '/srv_unknown/close'), {}],
        [path(org.projectId, `/${otherServer}/close`), {}],
        [path(other.projectId, `/${otherServer}/close`), {}],
      ] as const) {
        const reply = await call('POST', target, body);
        expect(reply.status, target).toBe(404);
        expect(reply.body.code, target).toBe('NOT_FOUND');
        expect(JSON.stringify(reply.body)).not.toContain('theirs');
      }
      for (const body of [{}, { name: '' }, { name: 'x'.repeat(129) }, { name: 'x', url: 'http://elsewhere' }]) {
        const reply = await call('POST', path(org.projectId), body);
        expect(reply.status, JSON.stringify(body)).toBe(400);
        expect(reply.body.code).toBe('VALIDATION_ERROR');
      }
      expect((await call('POST', path(org.projectId, `/${servers.http}/close`), { force: true })).status).toBe(400);
    });
  });
});
