import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { OAuthGrants } from '../../domain/mcp/oauth.js';
import { createSql } from '../../db/connection.js';
import { createOAuthTokenStore } from '../../db/oauthTokenStore.js';
import { getSavedServersByIds } from '../../db/servers.js';
import { startOAuthServer, type OAuthFixture, type OAuthFixtureOptions } from '../fixtures/mcp/oauth.js';
import { apiClient, type ApiReply } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import { startRecordingServer } from '../helpers/recordingServer.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';
import { entryArgs } from '../helpers/entryPoints.js';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;

/**
 * Issue 13 (SSRF through OAuth refresh) and issue 19 items 4-5: where the service may be made to send requests,
 * what it sends there, and what comes back to the caller. A fake authorization server (the OAuth fixture), an
 * attacker's listener and an "internal service" all listen on loopback; the saved server lives there too.
 */
describe('outbound requests: OAuth discovery and refresh, doctor probe', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  const cleanups: (() => Promise<unknown>)[] = [];
  /** everything a caller or an operator could read: replies, logs */
  const replies: ApiReply[] = [];
  let serverCount = 0;

  const op = async (serverId: string, suffix: string, body: unknown = {}) => {
    const reply = await call('POST', `/projects/${org.projectId}/servers/${serverId}/${suffix}`, body);
    replies.push(reply);
    return reply;
  };
  const whoami = (serverId: string) => op(serverId, 'tools/call', { toolName: 'whoami' });
  const lastError = async (serverId: string) => (await op(serverId, 'check-oauth')).body.tokens?.lastError;
  /** A marker no code path of ours could invent: if it shows up anywhere, a remote body leaked. */
  const marker = () => `INTERNAL-${randomBytes(8).toString('hex')}`;

  const oauthFixture = async (options: OAuthFixtureOptions = {}) => {
    const fixture = await startOAuthServer(options);
    cleanups.push(() => fixture.close());
    return fixture;
  };
  const listener = async (respond?: Parameters<typeof startRecordingServer>[0]) => {
    const server = await startRecordingServer(respond);
    cleanups.push(() => server.close());
    return server;
  };
  /** An OAuth server whose admin saved a confidential client (`server create --client-id --client-secret`). */
  const savedServer = (fixture: OAuthFixture, url = fixture.url) =>
    saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: `outbound-${++serverCount}`,
      transportType: 'http',
      url,
      useOAuth: true,
      oauthClientId: fixture.clientId,
      clientSecret: fixture.clientSecret,
    });
  const importTokens = (serverId: string, fixture: OAuthFixture, extra: Record<string, unknown> = {}) =>
    op(serverId, 'oauth/import-tokens', { serverUrl: fixture.url, tokens: fixture.issueTokens(), ...extra });
  /** What a caller, an operator or the database could show: every reply so far, every log line, the stored errors. */
  const everythingVisible = async () => {
    const rows = await stack.sql<{ last_error: string | null }[]>`SELECT last_error FROM oauth_tokens`;
    return JSON.stringify(replies.map((r) => r.body)) + stack.logs.join('\n') + JSON.stringify(rows);
  };

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000', MCP_REQUEST_TIMEOUT_MS: '5000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });
  afterAll(async () => stack?.stop());

  describe("the authorization server is never taken on a caller's word", () => {
    it('a caller-chosen authorizationServerUrl or resource is refused with 400, and that URL gets no request at all', async () => {
      const fixture = await oauthFixture();
      const attacker = await listener((request, res, origin) => {
        // What an attacker would serve: metadata naming its own token endpoint, and tokens for anyone.
        res.setHeader('content-type', 'application/json');
        if (request.url.startsWith('/.well-known/')) {
          res.end(
            JSON.stringify({
              issuer: origin,
              authorization_endpoint: `${origin}/authorize`,
              token_endpoint: `${origin}/token`,
              response_types_supported: ['code'],
            }),
          );
        } else {
          res.end(JSON.stringify({ access_token: 'stolen', token_type: 'Bearer', expires_in: 3600 }));
        }
      });
      const serverId = await savedServer(fixture);

      const chosen = await importTokens(serverId, fixture, {
        tokens: { ...fixture.issueTokens(), expires_in: 0 },
        authorizationServerUrl: attacker.origin,
      });
      expect(chosen.status).toBe(400);
      expect(chosen.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('authorizationServerUrl'),
        details: { reason: 'AUTHORIZATION_SERVER_MISMATCH' },
      });
      const resource = await importTokens(serverId, fixture, { oauthResourceUrl: `${attacker.origin}/mcp` });
      expect(resource).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_ERROR', details: { reason: 'RESOURCE_MISMATCH' } },
      });

      // Nothing was stored: operations still need a grant, and nothing is ever sent to the caller's URL.
      expect((await whoami(serverId)).body.code).toBe('OAUTH_REQUIRED');
      expect(attacker.requests).toEqual([]);
      expect(await everythingVisible()).not.toContain(fixture.clientSecret);
    });

    it("import does not contact a disabled server: a caller's authorizationServerUrl then cannot be checked", async () => {
      const disabled = await listener();
      const serverId = await saveServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name: `disabled-${++serverCount}`,
        transportType: 'http',
        url: `${disabled.origin}/mcp`,
        useOAuth: true,
        enabled: false,
      });
      const body = { serverUrl: `${disabled.origin}/mcp`, tokens: { access_token: 'at', refresh_token: 'rt' } };
      const unchecked = await op(serverId, 'oauth/import-tokens', { ...body, authorizationServerUrl: disabled.origin });
      expect(unchecked).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_ERROR', details: { reason: 'AUTHORIZATION_SERVER_UNVERIFIED' } },
      });
      expect((await op(serverId, 'oauth/import-tokens', body)).status).toBe(200);
      expect(disabled.requests).toEqual([]);
    });

    it('the authorization server the saved server advertises is accepted, spelled either way, and used for refresh', async () => {
      const fixture = await oauthFixture();
      const serverId = await savedServer(fixture);
      expect(
        (
          await importTokens(serverId, fixture, {
            authorizationServerUrl: `${fixture.issuer}/`,
            oauthResourceUrl: fixture.url,
          })
        ).status,
      ).toBe(200);
      fixture.expireAccessTokens();
      expect((await whoami(serverId)).status).toBe(200);
      expect(fixture.stats.refreshes).toBe(1);
    });

    it('an operator sets the authorization server with the admin CLI; a caller must then match it', async () => {
      // The server itself advertises an authorization server on the cloud metadata address.
      const fixture = await oauthFixture({ authorizationServers: ['http://169.254.169.254/'] });
      const serverId = await savedServer(fixture);
      const { stdout } = await run(
        process.execPath,
        [
          ...entryArgs('cli/admin.ts'),
          'server',
          'update',
          serverId,
          '--authorization-server-url',
          fixture.issuer,
          '--json',
        ],
        {
          cwd: root,
          env: {
            ...process.env,
            DATABASE_URL: stack.db.url,
            RUNWAY_ENCRYPTION_KEY: stack.config.RUNWAY_ENCRYPTION_KEY,
          },
        },
      );
      expect(JSON.parse(stdout)).toMatchObject({ id: serverId, authorizationServerUrl: fixture.issuer });

      const advertised = await importTokens(serverId, fixture, { authorizationServerUrl: 'http://169.254.169.254/' });
      expect(advertised).toMatchObject({ status: 400, body: { details: { reason: 'AUTHORIZATION_SERVER_MISMATCH' } } });
      expect((await importTokens(serverId, fixture, { authorizationServerUrl: fixture.issuer })).status).toBe(200);
      fixture.expireAccessTokens();
      expect((await whoami(serverId)).status).toBe(200);
      expect(fixture.stats.refreshes).toBe(1);
    });
  });

  describe("refresh sends the saved secret only to the token endpoint of the authorization server's metadata", () => {
    it('a token endpoint on another origin gets no request: nothing of the internal service comes back', async () => {
      const body = marker();
      const internal = await listener((_request, res) => {
        res.statusCode = 403;
        res.end(body);
      });
      const fixture = await oauthFixture({ tokenEndpoint: `${internal.origin}/token` });
      const serverId = await savedServer(fixture);
      expect((await importTokens(serverId, fixture)).status).toBe(200);
      fixture.expireAccessTokens();

      expect((await whoami(serverId)).body.code).toBe('OAUTH_REQUIRED');
      expect(await lastError(serverId)).toBe('token_endpoint_cross_origin');
      expect(internal.requests).toEqual([]);
      const visible = await everythingVisible();
      expect(visible).not.toContain(body);
      expect(visible).not.toContain(fixture.clientSecret);
    });

    it('what the token endpoint answers is stored and logged as a fixed code, never its body or description', async () => {
      const fixture = await oauthFixture();
      const serverId = await savedServer(fixture);
      const markers: string[] = [];
      const failWith = async (status: number, text: (m: string) => string, contentType?: string) => {
        const m = marker();
        markers.push(m);
        expect((await importTokens(serverId, fixture)).status).toBe(200);
        fixture.failTokenRequests({ status, body: text(m), contentType });
        fixture.expireAccessTokens();
        expect((await whoami(serverId)).body.code).toBe('OAUTH_REQUIRED');
        fixture.failTokenRequests(undefined);
        return await lastError(serverId);
      };

      expect(await failWith(403, (m) => `<html>${m}</html>`, 'text/html')).toBe('token_endpoint_http_403');
      expect(await failWith(502, (m) => m)).toBe('token_endpoint_http_502');
      expect(
        await failWith(
          400,
          (m) => JSON.stringify({ error: 'invalid_grant', error_description: m }),
          'application/json',
        ),
      ).toBe('invalid_grant');
      expect(await failWith(400, (m) => JSON.stringify({ error: m, error_description: m }), 'application/json')).toBe(
        'token_endpoint_http_400',
      );
      expect(await failWith(200, (m) => JSON.stringify({ note: m }), 'application/json')).toBe(
        'token_endpoint_invalid_response',
      );

      const visible = await everythingVisible();
      for (const m of markers) expect(visible).not.toContain(m);
      expect(visible).not.toContain(fixture.clientSecret);
      expect(stack.logs.join('\n')).toContain('token_endpoint_http_403');
    });

    it("tokens imported with the caller's own client are refreshed as that client, never with the saved secret", async () => {
      const fixture = await oauthFixture();
      const serverId = await savedServer(fixture);
      expect(
        (await importTokens(serverId, fixture, { clientInformation: { clientId: fixture.clientId } })).status,
      ).toBe(200);
      fixture.expireAccessTokens();
      expect((await whoami(serverId)).body.code).toBe('OAUTH_REQUIRED');
      expect(fixture.stats.tokenRequests).toBe(1);
      expect(fixture.stats.presentedSecrets).toEqual([]);
      expect(await lastError(serverId)).toBe('invalid_client');
    });

    it('link-local, cloud metadata and new private addresses are refused before any connection', async () => {
      for (const address of [
        'http://169.254.169.254/',
        'http://[::ffff:169.254.169.254]/',
        'http://[fd00:ec2::254]/',
        'http://100.100.100.200/',
        'http://10.255.255.1/',
        'http://0.0.0.0/',
      ]) {
        const fixture = await oauthFixture({ authorizationServers: [address] });
        const serverId = await savedServer(fixture);
        expect((await importTokens(serverId, fixture)).status).toBe(200);
        fixture.expireAccessTokens();
        expect((await whoami(serverId)).body.code, address).toBe('OAUTH_REQUIRED');
        expect(await lastError(serverId), address).toBe('metadata_refused_address');
      }
    });
  });

  describe('issue 19: resource_metadata pointer and resource parameter', () => {
    it("refresh finds the authorization server through the resource_metadata pointer of the server's WWW-Authenticate", async () => {
      // Metadata only behind the pointer, and an authorization server under a path: the server's origin has no /token.
      const fixture = await oauthFixture({ issuerPath: '/tenant', resourceMetadataAtWellKnown: false });
      const serverId = await savedServer(fixture);
      expect(
        (
          await importTokens(serverId, fixture, {
            clientInformation: { clientId: fixture.clientId, clientSecret: fixture.clientSecret },
          })
        ).status,
      ).toBe(200);
      fixture.expireAccessTokens();
      expect((await whoami(serverId)).status).toBe(200);
      expect(fixture.stats.refreshes).toBe(1);
      expect(await lastError(serverId)).toBeNull();
    });

    it("the resource parameter is the saved server's URL in canonical form, sent even when only the authorization server was imported", async () => {
      const fixture = await oauthFixture();
      // The operator saved the URL with an upper-case scheme and host, the default port spelled out and a fragment.
      const spelled = fixture.url.replace('http://127.0.0.1', 'HTTP://127.0.0.1') + '#tools';
      const serverId = await savedServer(fixture, spelled);
      expect((await importTokens(serverId, fixture, { authorizationServerUrl: fixture.issuer })).status).toBe(200);
      fixture.expireAccessTokens();
      expect((await whoami(serverId)).status).toBe(200);
      expect(fixture.stats.refreshResources).toEqual([fixture.url]);

      const elsewhere = await importTokens(serverId, fixture, { oauthResourceUrl: `${fixture.issuer}/other` });
      expect(elsewhere).toMatchObject({ status: 400, body: { details: { reason: 'RESOURCE_MISMATCH' } } });
    });
  });

  describe('network calls happen outside database transactions', () => {
    it('a slow token endpoint leaves no connection idle in transaction', async () => {
      const fixture = await oauthFixture();
      const serverId = await savedServer(fixture);
      await importTokens(serverId, fixture);
      fixture.expireAccessTokens();
      const held = fixture.holdTokenRequests();
      const pending = whoami(serverId);
      await held.arrived;
      const idle = await stack.sql<{ pid: number }[]>`
        SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
      held.release();
      expect(idle).toEqual([]);
      expect((await pending).status).toBe(200);
    });

    it('two processes sharing the database spend the refresh token once; the second waits for the first', async () => {
      const fixture = await oauthFixture();
      const serverId = await savedServer(fixture);
      await importTokens(serverId, fixture);
      const lines: string[] = [];
      const log = createLogger(
        'info',
        new Writable({ write: (chunk, _e, done) => void (lines.push(String(chunk)), done()) }),
      );
      const processes = [createSql(stack.db.url, { max: 2 }), createSql(stack.db.url, { max: 2 })];
      cleanups.push(() => Promise.all(processes.map((sql) => sql.end())));
      const [a, b] = processes.map(
        (sql) => new OAuthGrants({ tokens: createOAuthTokenStore(sql, stack.box), log, requestTimeoutMs: 5000 }),
      );
      const [server] = await getSavedServersByIds(stack.sql, stack.box, org.projectId, [serverId]);
      const [{ generation }] = await stack.sql<
        { generation: number }[]
      >`SELECT generation FROM oauth_tokens WHERE server_id = ${serverId}`;

      const held = fixture.holdTokenRequests();
      const first = a.afterUnauthorized(server, generation);
      await held.arrived;
      const second = b.afterUnauthorized(server, generation);
      held.release();
      const [fromA, fromB] = await Promise.all([first, second]);

      expect(fixture.stats.refreshes).toBe(1);
      expect(fromA).toEqual({ accessToken: expect.any(String), generation: generation + 1 });
      expect(fromB).toEqual(fromA);
      expect(lines.join('\n')).not.toContain(fromA!.accessToken);
    });

    it('a refresh lease left behind by a process that died has run out: the next refresh goes ahead', async () => {
      const fixture = await oauthFixture();
      const serverId = await savedServer(fixture);
      await importTokens(serverId, fixture);
      await stack.sql`
        UPDATE oauth_tokens SET refresh_lease_owner = 'a-process-that-died', refresh_lease_until = now() - interval '1 second'
        WHERE server_id = ${serverId}`;
      fixture.expireAccessTokens();
      expect((await whoami(serverId)).status).toBe(200);
      expect(fixture.stats.refreshes).toBe(1);
      const [row] =
        await stack.sql`SELECT refresh_lease_owner, last_error FROM oauth_tokens WHERE server_id = ${serverId}`;
      expect(row).toEqual({ refresh_lease_owner: null, last_error: null });
    });
  });

  describe("doctor's probe", () => {
    it('never follows a redirect to another origin: the saved X-Api-Key stays with the saved server', async () => {
      const apiKey = `key-${randomBytes(12).toString('hex')}`;
      const other = await listener();
      const redirector = await listener((_request, res) => {
        res.writeHead(307, { location: `${other.origin}/mcp` });
        res.end();
      });
      const serverId = await saveServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name: `redirecting-${++serverCount}`,
        transportType: 'http',
        url: `${redirector.origin}/mcp`,
        headers: { 'X-Api-Key': apiKey },
      });
      const report = await op(serverId, 'doctor');
      expect(report.status).toBe(200);
      expect(report.body.checks.probe).toMatchObject({ status: 'error', detail: expect.stringContaining('redirect') });
      expect(redirector.requests.length).toBeGreaterThan(0);
      expect(JSON.stringify(other.requests)).not.toContain(apiKey);
      expect(other.requests).toEqual([]);
    });
  });
});
