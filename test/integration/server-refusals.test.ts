import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultyServer, type FaultyFixture } from '../fixtures/mcp/faulty.js';
import { startGuardedServer, type GuardedFixture } from '../fixtures/mcp/guarded.js';
import { apiClient } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** Servers that are up and say no: to our credentials (401, 403 insufficient_scope) or with a JSON-RPC error. */
describe('what a server that refuses or answers with an error is reported as', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let guarded: GuardedFixture;
  let wellKnown: GuardedFixture;
  let challenge: GuardedFixture;
  let faulty: FaultyFixture;
  let listFails: FaultyFixture;
  const servers: Record<string, string> = {};
  const op = (server: string, suffix: string, body: unknown = {}) =>
    call('POST', `/projects/${org.projectId}/servers/${servers[server]}/${suffix}`, body);
  const tool = (server: string, toolName: string, parameters: Record<string, unknown> = {}) =>
    op(server, 'tools/call', { toolName, parameters });

  beforeAll(async () => {
    [stack, guarded, wellKnown, challenge, faulty, listFails] = await Promise.all([
      startTestStack({ worker: false, config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' } }),
      startGuardedServer({ advertise: 'none' }),
      startGuardedServer({ advertise: 'well-known' }),
      startGuardedServer({ advertise: 'challenge' }),
      startFaultyServer(),
      startFaultyServer({ listFails: true }),
    ]);
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    const save = async (name: string, input: Record<string, unknown>) =>
      (servers[name] = await saveServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name,
        transportType: 'http',
        ...input,
      } as never));
    await Promise.all([
      save('static-no-header', { url: guarded.url }),
      save('static-wrong-token', { url: guarded.url, headers: { Authorization: 'Bearer nope' } }),
      save('static', { url: guarded.url, headers: { Authorization: 'Bearer static-token' } }),
      save('static-no-header-sse', { transportType: 'sse', url: guarded.url }),
      save('well-known', { url: wellKnown.url }),
      save('challenge', { url: challenge.url }),
      save('faulty', { url: faulty.url }),
      save('list-fails', { url: listFails.url }),
    ]);
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([guarded, wellKnown, challenge, faulty, listFails].map((f) => f?.close()));
  });

  describe('401 from a server that does not use OAuth', () => {
    it("is 502 SERVER_REFUSED_CREDENTIALS with the server's words, not OAUTH_REQUIRED", async () => {
      const reply = await op('static-no-header', 'tools');
      expect(reply.status).toBe(502);
      expect(reply.body).toMatchObject({
        code: 'SERVER_UNREACHABLE',
        details: {
          reason: 'SERVER_REFUSED_CREDENTIALS',
          status: 401,
          serverMessage: 'Missing bearer token',
          retryable: false,
          phase: 'initialize',
        },
      });
      expect(reply.body.message).toContain('Missing bearer token');
      expect(reply.body.details.oauthRequired).toBeUndefined();
    });

    it('the same over the legacy SSE transport', async () => {
      const reply = await op('static-no-header-sse', 'validate');
      expect(reply.status).toBe(502);
      expect(reply.body.details).toMatchObject({ reason: 'SERVER_REFUSED_CREDENTIALS', status: 401 });
    });

    it("the server's words are a short excerpt without control characters", async () => {
      const reply = await op('static-wrong-token', 'validate');
      expect(reply.body.details.reason).toBe('SERVER_REFUSED_CREDENTIALS');
      const words: string = reply.body.details.serverMessage;
      expect(words.startsWith('Invalid bearer token [31mfor this workspace [0m (see docs) and more')).toBe(true);
      expect(words.length).toBeLessThanOrEqual(200);
      expect(words).not.toMatch(/[\p{Cc}\p{Cf}]/u);
      expect(reply.body.message).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    });

    it('check-oauth and doctor agree: no OAuth, and doctor says what the server said', async () => {
      expect((await op('static-no-header', 'check-oauth')).body).toEqual({
        useOAuth: false,
        serverUrl: guarded.url,
        advertisesOAuth: false,
        tokenSource: 'caller',
        tokens: null,
      });
      const doctor = await op('static-no-header', 'doctor');
      expect(doctor.status).toBe(200);
      expect(doctor.body).toMatchObject({
        status: 'error',
        checks: {
          probe: { status: 'error', detail: expect.stringContaining('Missing bearer token') },
          initialization: { status: 'error' },
        },
        oauth: { required: false },
        error: { code: 'SERVER_UNREACHABLE', details: { reason: 'SERVER_REFUSED_CREDENTIALS' } },
      });
    });

    it('with its token saved as a header the server works', async () => {
      expect(await tool('static', 'whoami')).toMatchObject({
        status: 200,
        body: { content: [{ text: 'token:static' }] },
      });
    });
  });

  describe('401 from a server that advertises OAuth', () => {
    it.each([
      ['well-known', 'metadata at the well-known URL'],
      ['challenge', 'a challenge pointing at its metadata'],
    ])('%s (%s) is OAUTH_REQUIRED, and check-oauth says useOAuth although the server is not saved so', async (name) => {
      const fixture = name === 'well-known' ? wellKnown : challenge;
      const reply = await op(name, 'tools');
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({
        code: 'OAUTH_REQUIRED',
        details: { oauthRequired: true, serverId: servers[name], serverName: name, serverUrl: fixture.url },
      });
      expect((await op(name, 'check-oauth')).body).toEqual({
        useOAuth: true,
        serverUrl: fixture.url,
        advertisesOAuth: true,
        tokenSource: 'caller',
        tokens: null,
      });
      expect((await op(name, 'doctor')).body).toMatchObject({
        status: 'oauth_required',
        oauth: { required: true, resourceMetadataUrl: fixture.resourceMetadataUrl },
      });
    });
  });

  describe('403 insufficient_scope', () => {
    it('is 401 OAUTH_REQUIRED with the scope to step up to; the session is kept', async () => {
      expect((await tool('static', 'echo', { text: 'before' })).status).toBe(200);
      const sessions = guarded.stats.sessions;
      const reply = await tool('static', 'admin');
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({
        code: 'OAUTH_REQUIRED',
        details: {
          reason: 'INSUFFICIENT_SCOPE',
          scope: 'read admin',
          oauthRequired: true,
          serverId: servers.static,
          serverName: 'static',
          serverUrl: guarded.url,
        },
      });
      expect(reply.body.message).toContain('read admin');
      expect((await tool('static', 'echo', { text: 'after' })).body.content[0].text).toBe('after');
      expect(guarded.stats.sessions).toBe(sessions);
    });
  });

  describe("a server's own JSON-RPC error", () => {
    it('-32603 is 502 SERVER_ERROR: the server answered with an error, not retryable; the session is kept', async () => {
      expect((await tool('faulty', 'echo', { text: 'up' })).status).toBe(200);
      const sessions = faulty.stats.initializations;
      const reply = await tool('faulty', 'internal');
      expect(reply.status).toBe(502);
      expect(reply.body).toMatchObject({
        code: 'SERVER_UNREACHABLE',
        details: {
          reason: 'SERVER_ERROR',
          retryable: false,
          phase: 'request',
          mcpError: { code: -32603, message: 'database is down' },
        },
      });
      expect(reply.body.message).toBe("server 'faulty' answered with an error: database is down (-32603)");
      const custom = await tool('faulty', 'custom');
      expect(custom.body).toMatchObject({
        code: 'SERVER_UNREACHABLE',
        details: { reason: 'SERVER_ERROR', mcpError: { code: -32050, message: 'quota exceeded' } },
      });
      expect((await tool('faulty', 'echo', { text: 'still up' })).body.content[0].text).toBe('still up');
      expect(faulty.stats.initializations).toBe(sessions);
    });

    it('the codes with a meaning of their own keep it: -32602 is 400', async () => {
      expect((await tool('faulty', 'nonexistent')).body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { reason: 'INVALID_PARAMS', mcpError: { code: -32602 } },
      });
    });

    it('a failing list is the same; export and doctor report it', async () => {
      const reply = await op('list-fails', 'tools');
      expect(reply.body).toMatchObject({
        code: 'SERVER_UNREACHABLE',
        details: { reason: 'SERVER_ERROR', mcpError: { code: -32603, message: 'tool index unavailable' } },
      });
      expect((await op('list-fails', 'export')).body.details.reason).toBe('SERVER_ERROR');
      expect((await op('list-fails', 'doctor')).body).toMatchObject({
        status: 'partial',
        checks: {
          tools: { status: 'error', detail: expect.stringContaining('answered with an error: tool index unavailable') },
        },
      });
    });
  });
});
