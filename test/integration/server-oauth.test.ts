import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthServer, type OAuthFixture, type TokenPair } from '../fixtures/mcp/oauth.js';
import { apiClient } from '../helpers/http.js';
import { everythingOverStdio, saveServer } from '../helpers/mcpServers.js';
import { referenceErrors } from '../helpers/referenceDocument.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** OAuth-protected servers: tokens imported by the caller, injected, refreshed once at a time, never shown. */
describe('server operations with OAuth', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let fixture: OAuthFixture;
  const secrets: string[] = [];
  let serverCount = 0;

  const op = (serverId: string, suffix: string, body: unknown = {}, via = call) =>
    via('POST', `/projects/${org.projectId}/servers/${serverId}/${suffix}`, body);
  const whoami = (serverId: string, via = call) => op(serverId, 'tools/call', { toolName: 'whoami' }, via);
  const newServer = (useOAuth = true) =>
    saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: `oauth-${++serverCount}`,
      transportType: 'http',
      url: fixture.url,
      useOAuth,
    });
  const issue = (subject?: string): TokenPair => {
    const pair = fixture.issueTokens(subject);
    secrets.push(pair.access_token, pair.refresh_token);
    return pair;
  };
  /** What a caller that completed the flow itself sends; `tokens` overrides fields of a fresh pair. */
  const importTokens = (
    serverId: string,
    options: {
      tokens?: Partial<TokenPair> & { expires_in?: number };
      client?: boolean;
      authorizationServer?: boolean;
    } = {},
  ) =>
    op(serverId, 'oauth/import-tokens', {
      serverUrl: fixture.url,
      tokens: { ...issue(), ...options.tokens },
      ...(options.client === false
        ? {}
        : { clientInformation: { clientId: fixture.clientId, clientSecret: fixture.clientSecret } }),
      ...(options.authorizationServer === false ? {} : { authorizationServerUrl: fixture.issuer }),
    });
  const refreshes = () => fixture.stats.refreshes;

  beforeAll(async () => {
    [stack, fixture] = await Promise.all([
      startTestStack({ worker: false, config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' } }),
      startOAuthServer(),
    ]);
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    secrets.push(fixture.clientSecret);
  });
  afterAll(async () => {
    await stack?.stop();
    await fixture?.close();
  });

  it('without tokens a server that needs OAuth is 401 OAUTH_REQUIRED, before any connection', async () => {
    const serverId = await newServer(true);
    const before = fixture.stats.mcpRequests;
    const reply = await whoami(serverId);
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({
      code: 'OAUTH_REQUIRED',
      details: { oauthRequired: true, serverId, serverName: `oauth-${serverCount}`, serverUrl: fixture.url },
    });
    expect(fixture.stats.mcpRequests).toBe(before);
  });

  it('a server not marked as OAuth that answers 401 is OAUTH_REQUIRED too', async () => {
    const serverId = await newServer(false);
    const reply = await op(serverId, 'validate');
    expect(reply.status).toBe(401);
    expect(reply.body.details).toMatchObject({ oauthRequired: true, serverId });
  });

  it('check-oauth reports the requirement and token health without connecting', async () => {
    const serverId = await newServer(true);
    expect((await op(serverId, 'check-oauth')).body).toEqual({
      useOAuth: true,
      serverUrl: fixture.url,
      advertisesOAuth: true,
      tokenSource: 'caller',
      tokens: null,
    });

    const imported = await importTokens(serverId);
    expect(imported.status).toBe(200);
    expect(imported.body).toEqual({ imported: true, expiresAt: expect.any(Number) });
    expect(imported.body.expiresAt).toBeGreaterThan(Date.now() + 3500_000);

    const before = fixture.stats.mcpRequests;
    expect((await op(serverId, 'check-oauth')).body).toEqual({
      useOAuth: true,
      serverUrl: fixture.url,
      advertisesOAuth: true,
      tokenSource: 'caller',
      tokens: {
        imported: true,
        expiresAt: imported.body.expiresAt,
        refreshable: true,
        lastRefreshAt: null,
        lastError: null,
      },
    });
    expect(fixture.stats.mcpRequests).toBe(before);

    // Without the client the tokens were issued to, nothing can refresh them: check-oauth says so.
    await importTokens(serverId, { client: false });
    expect((await op(serverId, 'check-oauth')).body.tokens).toMatchObject({ refreshable: false });
  });

  it('imported tokens are injected into later calls', async () => {
    const serverId = await newServer(true);
    await op(serverId, 'oauth/import-tokens', {
      serverUrl: `${fixture.url}/`, // the same resource, spelled with a trailing slash
      tokens: { ...issue('alice') },
      clientInformation: { clientId: fixture.clientId, clientSecret: fixture.clientSecret },
    });
    expect((await whoami(serverId)).body).toEqual({ content: [{ type: 'text', text: 'alice' }] });
    expect((await op(serverId, 'validate')).body.initInfo).toMatchObject({
      transport: 'streamable-http',
      serverInfo: { name: 'runway-fixture-oauth' },
    });
  });

  it('import refuses tokens for another URL, for a stdio server, and malformed bodies', async () => {
    const serverId = await newServer(true);
    const elsewhere = await op(serverId, 'oauth/import-tokens', {
      serverUrl: 'https://evil.example/mcp',
      tokens: { access_token: 'x' },
    });
    expect(elsewhere).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', details: { reason: 'SERVER_URL_MISMATCH' } },
    });
    const stdioId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'stdio',
      ...everythingOverStdio(),
    });
    const stdio = await op(stdioId, 'oauth/import-tokens', { serverUrl: fixture.url, tokens: { access_token: 'x' } });
    expect(stdio.body.details.reason).toBe('NOT_AN_HTTP_SERVER');
    expect((await op(serverId, 'oauth/import-tokens', { serverUrl: fixture.url, tokens: {} })).status).toBe(400);
    expect(
      (await op(serverId, 'oauth/import-tokens', { serverUrl: 'not a url', tokens: { access_token: 'x' } })).status,
    ).toBe(400);
  });

  it('a token about to expire is refreshed before the call goes out', async () => {
    const serverId = await newServer(true);
    await importTokens(serverId, { tokens: { expires_in: 30 } }); // inside the refresh margin
    const [before, unauthorizedBefore] = [refreshes(), fixture.stats.unauthorized];
    expect((await whoami(serverId)).status).toBe(200);
    expect(refreshes() - before).toBe(1);
    expect(fixture.stats.unauthorized).toBe(unauthorizedBefore);
    const health = (await op(serverId, 'check-oauth')).body.tokens;
    expect(health.lastRefreshAt).toBeGreaterThan(Date.now() - 60_000);
    expect(health.expiresAt).toBeGreaterThan(Date.now() + 3500_000);
    // The refreshed token is good for an hour: no further refresh.
    expect((await whoami(serverId)).status).toBe(200);
    expect(refreshes() - before).toBe(1);
  });

  it('a 401 from the server triggers one refresh and one retry; rotated refresh tokens keep working', async () => {
    const serverId = await newServer(true);
    // No authorizationServerUrl: the token endpoint is found through the server's protected-resource metadata.
    await importTokens(serverId, { authorizationServer: false });
    expect((await whoami(serverId)).status).toBe(200);
    for (let round = 1; round <= 3; round++) {
      const before = refreshes();
      fixture.expireAccessTokens();
      const reply = await whoami(serverId);
      expect(reply.status, `round ${round}`).toBe(200);
      // Each refresh token works once: a later round succeeds only with the rotated one we stored.
      expect(refreshes() - before, `round ${round}`).toBe(1);
    }
  });

  it('concurrent calls with an expired token cause exactly one refresh', async () => {
    const serverId = await newServer(true);
    await importTokens(serverId);
    expect((await whoami(serverId)).status).toBe(200);
    fixture.expireAccessTokens();
    const before = refreshes();
    const replies = await Promise.all(Array.from({ length: 10 }, () => whoami(serverId)));
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(refreshes() - before).toBe(1);
  });

  it('two API processes on one database refresh once between them', async () => {
    const serverId = await newServer(true);
    await importTokens(serverId);
    const other = await startTestStack({
      database: stack.db,
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    try {
      const otherCall = apiClient(other.baseUrl, org.apiKey);
      expect([(await whoami(serverId)).status, (await whoami(serverId, otherCall)).status]).toEqual([200, 200]);
      fixture.expireAccessTokens();
      const before = refreshes();
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) => whoami(serverId, i % 2 ? otherCall : call)),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(12).fill(200));
      expect(refreshes() - before).toBe(1);
    } finally {
      await other.stop();
    }
  });

  it('a revoked refresh token is OAUTH_REQUIRED, and check-oauth shows the refresh error', async () => {
    const serverId = await newServer(true);
    await importTokens(serverId);
    expect((await whoami(serverId)).status).toBe(200);
    fixture.revokeRefreshTokens();
    fixture.expireAccessTokens();
    const reply = await whoami(serverId);
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ code: 'OAUTH_REQUIRED', details: { oauthRequired: true, serverId } });
    expect((await op(serverId, 'check-oauth')).body.tokens).toMatchObject({
      lastError: expect.stringContaining('invalid_grant'),
    });

    // Importing a fresh grant is the remedy.
    await importTokens(serverId);
    expect((await whoami(serverId)).status).toBe(200);
    expect((await op(serverId, 'check-oauth')).body.tokens.lastError).toBeNull();
  });

  it('an expired token that cannot be refreshed is not sent: 401 OAUTH_REQUIRED with reason TOKEN_EXPIRED at once', async () => {
    const serverId = await newServer(true);
    await importTokens(serverId, { tokens: { expires_in: 0 } });
    fixture.revokeRefreshTokens();
    const before = fixture.stats.mcpRequests;
    const reply = await whoami(serverId);
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({
      code: 'OAUTH_REQUIRED',
      details: { oauthRequired: true, serverId, reason: 'TOKEN_EXPIRED', lastError: 'invalid_grant' },
    });
    expect(fixture.stats.mcpRequests).toBe(before);
    // Every call still tries the refresh once (the authorization server may have been down), never more.
    const refreshesBefore = refreshes();
    expect((await whoami(serverId)).body.details.reason).toBe('TOKEN_EXPIRED');
    expect(refreshes() - refreshesBefore).toBe(1);
  });

  it('doctor discovers the OAuth metadata and says oauth_required until tokens are imported', async () => {
    const serverId = await newServer(true);
    const before = (await op(serverId, 'doctor')).body;
    expect(before).toMatchObject({
      status: 'oauth_required',
      checks: { probe: { status: 'ok' }, connection: { status: 'skipped' } },
      // What a client of the real product reads: not reachable yet, and why.
      probe: { status: 'ok', httpStatus: 401 },
      connection: { status: 'skipped', detail: expect.stringContaining('OAuth grant') },
      capabilities: null,
      oauth: {
        required: true,
        wwwAuthenticate: expect.stringContaining('resource_metadata='),
        resourceMetadataUrl: `${fixture.issuer}/.well-known/oauth-protected-resource/mcp`,
        authorizationServerMetadataUrl: `${fixture.issuer}/.well-known/oauth-authorization-server`,
        registrationStrategies: ['dcr', 'preregistered'],
      },
      error: { code: 'OAUTH_REQUIRED' },
    });

    await importTokens(serverId);
    const after = (await op(serverId, 'doctor')).body;
    expect(after).toMatchObject({
      status: 'ready',
      connection: { status: 'connected' },
      oauth: { required: true },
      tools: [{ name: 'whoami' }, { name: 'echo' }],
      error: null,
    });
    for (const report of [before, after]) expect(referenceErrors('DoctorReport', report)).toEqual([]);
  });

  it('tokens and client secrets never appear in replies or logs', async () => {
    const serverId = await newServer(true);
    await importTokens(serverId, { tokens: { expires_in: 5 } });
    const replies = await Promise.all([
      whoami(serverId),
      op(serverId, 'check-oauth'),
      op(serverId, 'doctor'),
      op(serverId, 'validate'),
    ]);
    const seen = JSON.stringify(replies.map((r) => r.body)) + stack.logs.join('\n');
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(seen).not.toContain(secret);
    const [row] = await stack.sql<
      { access_token_enc: string }[]
    >`SELECT access_token_enc FROM oauth_tokens WHERE server_id = ${serverId}`;
    // Sealed with the current key (v2.<keyId>.…, since keys have ids), and it opens.
    expect(row.access_token_enc.startsWith(stack.box.currentPrefix)).toBe(true);
    expect(stack.box.decrypt(row.access_token_enc)).toEqual(expect.any(String));
  });
});
