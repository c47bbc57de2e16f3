import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { OAuthGrants } from '../../domain/mcp/oauth.js';
import { createSql } from '../../db/connection.js';
import { createOAuthTokenStore } from '../../db/oauthTokenStore.js';
import { getSavedServersByIds, type ServerInput } from '../../db/servers.js';
import { startOAuthServer, type OAuthFixture, type OAuthFixtureOptions } from '../fixtures/mcp/oauth.js';
import { apiClient, type ApiReply } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import { startRecordingServer } from '../helpers/recordingServer.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';
import { entryArgs } from '../helpers/entryPoints.js';

const root = new URL('../..', import.meta.url).pathname;

/**
 * Issue 19 item 7: machine-to-machine servers. An operator saves a server with an OAuth client (admin CLI); Runway
 * obtains its tokens with the client_credentials grant and renews them itself, with no caller and no import. The
 * OAuth fixture is the authorization server (client secret, or private_key_jwt checked against the public key) and
 * the MCP server that wants its tokens.
 */
describe('machine-to-machine servers (client_credentials)', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  const cleanups: (() => Promise<unknown>)[] = [];
  const replies: ApiReply[] = [];
  const keyDir = mkdtempSync(join(tmpdir(), 'runway-client-keys-'));
  let serverCount = 0;

  const op = async (serverId: string, suffix: string, body: unknown = {}) => {
    const reply = await call('POST', `/projects/${org.projectId}/servers/${serverId}/${suffix}`, body);
    replies.push(reply);
    return reply;
  };
  const whoami = (serverId: string) => op(serverId, 'tools/call', { toolName: 'whoami' });
  const checkOAuth = async (serverId: string) => (await op(serverId, 'check-oauth')).body;
  const oauthFixture = async (options: OAuthFixtureOptions = {}) => {
    const fixture = await startOAuthServer(options);
    cleanups.push(() => fixture.close());
    return fixture;
  };
  /** A machine-to-machine server saved with the same db module the admin CLI uses. */
  const machineServer = (fixture: OAuthFixture, extra: Partial<ServerInput> = {}) =>
    saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: `m2m-${++serverCount}`,
      transportType: 'http',
      url: fixture.url,
      useOAuth: true,
      oauthGrant: 'client_credentials',
      oauthClientId: fixture.clientId,
      clientSecret: fixture.clientSecret,
      ...extra,
    });

  /** The admin CLI as a process: the key or secret on standard input or in the environment, never as an argument. */
  const admin = (args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}) => {
    const child = spawn(process.execPath, [...entryArgs('cli/admin.ts'), ...args], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: stack.db.url,
        RUNWAY_ENCRYPTION_KEY: stack.config.RUNWAY_ENCRYPTION_KEY,
        ...options.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.stdin.end(options.input ?? '');
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.once('close', (code) => resolve({ code, stdout, stderr })),
    );
  };
  const created = (outcome: { code: number | null; stdout: string; stderr: string }) => {
    expect(outcome, outcome.stderr).toMatchObject({ code: 0 });
    return JSON.parse(outcome.stdout) as { id: string };
  };
  const everythingVisible = () => JSON.stringify(replies.map((r) => r.body)) + stack.logs.join('\n');

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
  afterAll(async () => {
    await stack?.stop();
    rmSync(keyDir, { recursive: true, force: true });
  });

  describe('set up with the admin CLI, used through the API with no import', () => {
    it('client secret (HTTP Basic) from the environment: the first call obtains a token with the saved scopes and the resource', async () => {
      const fixture = await oauthFixture();
      const server = created(
        await admin(
          [
            'server',
            'create',
            '--project',
            org.projectId,
            '--name',
            'reports',
            '--transport',
            'http',
            '--url',
            fixture.url,
            '--oauth-grant',
            'client-credentials',
            '--client-id',
            fixture.clientId,
            '--client-secret-env',
            'REPORTS_SECRET',
            '--scope',
            'reports:read',
            '--scope',
            'reports:list',
            '--json',
          ],
          { env: { REPORTS_SECRET: fixture.clientSecret } },
        ),
      );

      expect(await checkOAuth(server.id)).toEqual({
        useOAuth: true,
        serverUrl: fixture.url,
        advertisesOAuth: true,
        tokenSource: 'client_credentials',
        tokens: null,
      });
      expect((await whoami(server.id)).body).toEqual({ content: [{ type: 'text', text: fixture.clientId }] });
      expect(fixture.stats.clientCredentials).toEqual([
        {
          clientId: fixture.clientId,
          authentication: 'client_secret_basic',
          scope: 'reports:read reports:list',
          resource: fixture.url,
          outcome: 'issued',
        },
      ]);
      const oauth = await checkOAuth(server.id);
      expect(oauth).toEqual({
        useOAuth: true,
        serverUrl: fixture.url,
        advertisesOAuth: true,
        tokenSource: 'client_credentials',
        tokens: {
          imported: false,
          expiresAt: expect.any(Number),
          refreshable: true,
          lastRefreshAt: expect.any(Number),
          lastError: null,
        },
      });
      expect(oauth.tokens.expiresAt).toBeGreaterThan(Date.now() + 3500_000);

      // The token is reused while it is good; the secret is sealed at rest and shown nowhere.
      expect((await whoami(server.id)).status).toBe(200);
      expect(fixture.stats.clientCredentials).toHaveLength(1);
      const [row] = await stack.sql<
        { client_secret_enc: string }[]
      >`SELECT client_secret_enc FROM servers WHERE id = ${server.id}`;
      expect(stack.box.decrypt(row.client_secret_enc)).toBe(fixture.clientSecret);
      expect(row.client_secret_enc).not.toContain(fixture.clientSecret);
      expect(everythingVisible()).not.toContain(fixture.clientSecret);
    });

    it('private_key_jwt with an EC key on standard input: the assertion is signed, for this authorization server, never replayed', async () => {
      const fixture = await oauthFixture();
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      fixture.registerJwtClient('reports-robot', publicKey);
      const pem = privateKey.export({ type: 'sec1', format: 'pem' }).toString();
      const server = created(
        await admin(
          [
            'server',
            'create',
            '--project',
            org.projectId,
            '--name',
            'jwt',
            '--transport',
            'http',
            '--url',
            fixture.url,
            '--oauth-grant',
            'client-credentials',
            '--client-id',
            'reports-robot',
            '--private-key-stdin',
            '--json',
          ],
          { input: pem },
        ),
      );

      expect((await whoami(server.id)).body).toEqual({ content: [{ type: 'text', text: 'reports-robot' }] });
      fixture.expireAccessTokens();
      expect((await whoami(server.id)).status).toBe(200);
      expect(fixture.stats.clientCredentials).toEqual([
        expect.objectContaining({
          clientId: 'reports-robot',
          authentication: 'private_key_jwt',
          outcome: 'issued',
          assertion: expect.objectContaining({ iss: 'reports-robot', sub: 'reports-robot', aud: fixture.issuer }),
        }),
        expect.objectContaining({ clientId: 'reports-robot', authentication: 'private_key_jwt', outcome: 'issued' }),
      ]);
      const [first, second] = fixture.stats.clientCredentials.map((r) => r.assertion!.jti);
      expect(first).not.toBe(second);
      const [row] = await stack.sql<{ oauth_private_key_enc: string; oauth_signing_alg: string }[]>`
        SELECT oauth_private_key_enc, oauth_signing_alg FROM servers WHERE id = ${server.id}`;
      expect(row.oauth_signing_alg).toBe('ES256');
      expect(stack.box.decrypt(row.oauth_private_key_enc)).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      expect(everythingVisible()).not.toContain(pem.split('\n')[1]);
    });

    it('an RSA key from a file (PKCS#1) or an Ed25519 JWK from the environment; update switches a server to a key and back', async () => {
      const fixture = await oauthFixture();
      const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
      fixture.registerJwtClient('rsa-robot', rsa.publicKey);
      const keyFile = join(keyDir, 'rsa.pem');
      writeFileSync(keyFile, rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
      const fromFile = created(
        await admin([
          'server',
          'create',
          '--project',
          org.projectId,
          '--name',
          'rsa',
          '--transport',
          'http',
          '--url',
          fixture.url,
          '--oauth-grant',
          'client-credentials',
          '--client-id',
          'rsa-robot',
          '--private-key-file',
          keyFile,
          '--json',
        ]),
      );
      expect((await whoami(fromFile.id)).body.content[0].text).toBe('rsa-robot');

      // A server saved for the caller's browser flow becomes a machine-to-machine one.
      const ed = generateKeyPairSync('ed25519');
      fixture.registerJwtClient('ed-robot', ed.publicKey);
      const callerServer = await saveServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name: `caller-${++serverCount}`,
        transportType: 'http',
        url: fixture.url,
        useOAuth: true,
      });
      expect((await whoami(callerServer)).body.code).toBe('OAUTH_REQUIRED');
      const updated = await admin(
        [
          'server',
          'update',
          callerServer,
          '--oauth-grant',
          'client-credentials',
          '--client-id',
          'ed-robot',
          '--private-key-env',
          'ED_KEY',
          '--json',
        ],
        { env: { ED_KEY: JSON.stringify(ed.privateKey.export({ format: 'jwk' })) } },
      );
      expect(JSON.parse(updated.stdout)).toMatchObject({
        id: callerServer,
        oauthGrant: 'client_credentials',
        oauthClientId: 'ed-robot',
        clientAuthentication: 'private_key_jwt (EdDSA)',
      });
      const afterUpdate = await whoami(callerServer);
      expect(afterUpdate.body, JSON.stringify(afterUpdate.body)).toEqual({
        content: [{ type: 'text', text: 'ed-robot' }],
      });
      expect(fixture.stats.clientCredentials.map((r) => [r.clientId, r.authentication, r.outcome])).toEqual([
        ['rsa-robot', 'private_key_jwt', 'issued'],
        ['ed-robot', 'private_key_jwt', 'issued'],
      ]);

      // And back: the key and the tokens Runway obtained are gone; a caller must import again.
      const back = await admin(['server', 'update', callerServer, '--oauth-grant', 'caller', '--json']);
      expect(JSON.parse(back.stdout)).toMatchObject({ oauthGrant: 'caller', clientAuthentication: 'none' });
      expect((await whoami(callerServer)).body.code).toBe('OAUTH_REQUIRED');
      expect(await checkOAuth(callerServer)).toMatchObject({ tokenSource: 'caller', tokens: null });
      expect(
        await stack.sql`SELECT 1 FROM servers WHERE id = ${callerServer} AND oauth_private_key_enc IS NULL AND oauth_signing_alg IS NULL`,
      ).toHaveLength(1);
    });

    it('refuses a private key as an argument, an incomplete client, and a key that is not one, without echoing it', async () => {
      const base = [
        'server',
        'create',
        '--project',
        org.projectId,
        '--name',
        'bad',
        '--transport',
        'http',
        '--url',
        'https://m2m.example/mcp',
      ];
      expect(
        (await admin([...base, '--oauth-grant', 'client-credentials', '--client-id', 'c', '--private-key', 'KEY']))
          .stderr,
      ).toContain("unknown option '--private-key'");
      expect((await admin([...base, '--oauth-grant', 'client-credentials', '--client-secret', 's'])).stderr).toContain(
        'the client_credentials grant needs a client id',
      );
      expect((await admin([...base, '--oauth-grant', 'client-credentials', '--client-id', 'c'])).stderr).toContain(
        'needs a client secret or a private key',
      );
      const notAKey = `-----BEGIN PRIVATE KEY-----\nNOT-A-KEY-${randomBytes(6).toString('hex')}\n-----END PRIVATE KEY-----\n`;
      const garbled = await admin(
        [...base, '--oauth-grant', 'client-credentials', '--client-id', 'c', '--private-key-stdin'],
        { input: notAKey },
      );
      expect(garbled).toMatchObject({ code: 1, stderr: expect.stringContaining('not a private key') });
      expect(garbled.stderr).not.toContain('NOT-A-KEY');
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const wrongAlg = await admin(
        [
          ...base,
          '--oauth-grant',
          'client-credentials',
          '--client-id',
          'c',
          '--private-key-stdin',
          '--signing-alg',
          'RS256',
        ],
        { input: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
      );
      expect(wrongAlg.stderr).toContain('--signing-alg RS256 does not suit this ec:prime256v1 key; use one of ES256');
      const stdio = await admin([
        'server',
        'create',
        '--project',
        org.projectId,
        '--name',
        'bad',
        '--transport',
        'stdio',
        '--command',
        'node',
        '--oauth-grant',
        'client-credentials',
        '--client-id',
        'c',
        '--client-secret',
        's',
      ]);
      expect(stdio.stderr).toContain('applies to http and sse servers only');
      expect(await stack.sql`SELECT 1 FROM servers WHERE name = 'bad'`).toHaveLength(0);
    });
  });

  describe('renewal', () => {
    it('client_secret_post when the authorization server allows only that', async () => {
      const fixture = await oauthFixture({ tokenEndpointAuthMethods: ['client_secret_post'] });
      const serverId = await machineServer(fixture);
      expect((await whoami(serverId)).status).toBe(200);
      expect(fixture.stats.clientCredentials.map((r) => r.authentication)).toEqual(['client_secret_post']);
    });

    it('a token about to expire is replaced before the call goes out', async () => {
      const fixture = await oauthFixture({ accessTokenTtlSec: 30 }); // inside the renewal margin from the start
      const serverId = await machineServer(fixture);
      expect((await whoami(serverId)).status).toBe(200);
      expect((await whoami(serverId)).status).toBe(200);
      expect(fixture.stats.clientCredentials).toHaveLength(2);
      expect(fixture.stats.unauthorized).toBe(1); // only the discovery probe, never a call with a stale token
    });

    it('a 401 from the server gets a new token and one retry', async () => {
      const fixture = await oauthFixture();
      const serverId = await machineServer(fixture);
      expect((await whoami(serverId)).status).toBe(200);
      for (let round = 1; round <= 2; round++) {
        fixture.expireAccessTokens();
        expect((await whoami(serverId)).status, `round ${round}`).toBe(200);
        expect(fixture.stats.clientCredentials, `round ${round}`).toHaveLength(round + 1);
      }
      expect((await checkOAuth(serverId)).tokens.lastError).toBeNull();
    });

    it('concurrent first calls ask the authorization server once', async () => {
      const fixture = await oauthFixture();
      const serverId = await machineServer(fixture);
      const replies = await Promise.all(Array.from({ length: 8 }, () => whoami(serverId)));
      expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(fixture.stats.clientCredentials).toHaveLength(1);
    });

    it('two processes sharing the database ask once between them; the second waits for the first', async () => {
      const fixture = await oauthFixture();
      const serverId = await machineServer(fixture);
      const log = createLogger('info', new Writable({ write: (_chunk, _e, done) => done() }));
      const processes = [createSql(stack.db.url, { max: 2 }), createSql(stack.db.url, { max: 2 })];
      cleanups.push(() => Promise.all(processes.map((sql) => sql.end())));
      const [a, b] = processes.map(
        (sql) => new OAuthGrants({ tokens: createOAuthTokenStore(sql, stack.box), log, requestTimeoutMs: 5000 }),
      );
      const [server] = await getSavedServersByIds(stack.sql, stack.box, org.projectId, [serverId]);

      const held = fixture.holdTokenRequests();
      const first = a.credentialsFor(server);
      await held.arrived;
      const second = b.credentialsFor(server);
      held.release();
      const [fromA, fromB] = await Promise.all([first, second]);
      expect(fixture.stats.clientCredentials).toHaveLength(1);
      expect(fromA).toEqual({ accessToken: expect.any(String), generation: expect.any(Number) });
      expect(fromB).toEqual(fromA);
    });

    it('doctor obtains the token itself: ready, not oauth_required', async () => {
      const fixture = await oauthFixture();
      const serverId = await machineServer(fixture);
      const report = (await op(serverId, 'doctor')).body;
      expect(report).toMatchObject({
        status: 'ready',
        oauth: { required: true },
        tools: [{ name: 'whoami' }, { name: 'echo' }],
        error: null,
      });
      expect(fixture.stats.clientCredentials).toHaveLength(1);
    });

    it('import-tokens is refused: there is nothing to import', async () => {
      const fixture = await oauthFixture();
      const serverId = await machineServer(fixture);
      const reply = await op(serverId, 'oauth/import-tokens', {
        serverUrl: fixture.url,
        tokens: fixture.issueTokens(),
      });
      expect(reply).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_ERROR', details: { reason: 'CLIENT_CREDENTIALS_SERVER' } },
      });
      expect(await checkOAuth(serverId)).toMatchObject({ tokenSource: 'client_credentials', tokens: null });
    });
  });

  describe('failures are fixed codes, and the operator fixes them', () => {
    it('a refused client is 401 OAUTH_REQUIRED with reason and code; check-oauth agrees; server update repairs it', async () => {
      const fixture = await oauthFixture();
      const serverId = await machineServer(fixture, { clientSecret: 'not-the-secret' });
      const refused = await whoami(serverId);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({
        code: 'OAUTH_REQUIRED',
        message: expect.stringContaining('client_credentials'),
        details: { oauthRequired: true, serverId, reason: 'CLIENT_CREDENTIALS_FAILED', lastError: 'invalid_client' },
      });
      expect(await checkOAuth(serverId)).toMatchObject({
        tokenSource: 'client_credentials',
        tokens: { imported: false, expiresAt: null, lastRefreshAt: null, lastError: 'invalid_client' },
      });
      expect((await op(serverId, 'doctor')).body).toMatchObject({
        status: 'oauth_required',
        error: { code: 'OAUTH_REQUIRED', details: { lastError: 'invalid_client' } },
      });

      const repaired = await admin(['server', 'update', serverId, '--client-secret-stdin', '--json'], {
        input: fixture.clientSecret,
      });
      expect(JSON.parse(repaired.stdout)).toMatchObject({
        id: serverId,
        oauthGrant: 'client_credentials',
        clientAuthentication: 'client_secret',
      });
      expect((await whoami(serverId)).status).toBe(200);
      expect((await checkOAuth(serverId)).tokens.lastError).toBeNull();
      expect(everythingVisible()).not.toContain(fixture.clientSecret);
    });

    it('what the token endpoint answers is stored as a code, never its body; a token still good is used meanwhile', async () => {
      const fixture = await oauthFixture({ accessTokenTtlSec: 30 }); // every token is due for renewal at once
      const serverId = await machineServer(fixture);
      expect((await whoami(serverId)).status).toBe(200);
      const body = `INTERNAL-${randomBytes(8).toString('hex')}`;
      fixture.failTokenRequests({ status: 502, body });
      // Renewal fails, but the token has not expired: the call goes out with it.
      expect((await whoami(serverId)).status).toBe(200);
      expect((await checkOAuth(serverId)).tokens).toMatchObject({
        lastError: 'token_endpoint_http_502',
        expiresAt: expect.any(Number),
      });
      // Once the server refuses it, the caller hears why no new one came.
      fixture.expireAccessTokens();
      fixture.failTokenRequests({
        status: 400,
        body: JSON.stringify({ error: 'invalid_scope', error_description: body }),
        contentType: 'application/json',
      });
      expect((await whoami(serverId)).body).toMatchObject({
        code: 'OAUTH_REQUIRED',
        details: { reason: 'CLIENT_CREDENTIALS_FAILED', lastError: 'invalid_scope' },
      });
      fixture.failTokenRequests(undefined);
      expect((await whoami(serverId)).status).toBe(200);
      expect((await checkOAuth(serverId)).tokens.lastError).toBeNull();
      expect(everythingVisible()).not.toContain(body);
      expect(stack.logs.join('\n')).toContain('token_endpoint_http_502');
    });
  });

  describe('the outbound rules of refresh hold', () => {
    it('a token endpoint on another origin gets no request: token_endpoint_cross_origin', async () => {
      const internal = await startRecordingServer((_request, res) =>
        res.end(JSON.stringify({ access_token: 'stolen', token_type: 'Bearer' })),
      );
      cleanups.push(() => internal.close());
      const fixture = await oauthFixture({ tokenEndpoint: `${internal.origin}/token` });
      const serverId = await machineServer(fixture);
      expect((await whoami(serverId)).body.details).toMatchObject({
        reason: 'CLIENT_CREDENTIALS_FAILED',
        lastError: 'token_endpoint_cross_origin',
      });
      expect(internal.requests).toEqual([]);
      expect(everythingVisible()).not.toContain(fixture.clientSecret);
    });

    it('an authorization server on a link-local or metadata address is refused before any connection', async () => {
      for (const address of ['http://169.254.169.254/', 'http://[fd00:ec2::254]/']) {
        const fixture = await oauthFixture({ authorizationServers: [address] });
        const serverId = await machineServer(fixture);
        expect((await whoami(serverId)).body.details.lastError, address).toBe('metadata_refused_address');
        expect(fixture.stats.tokenRequests, address).toBe(0);
      }
    });

    it("the operator's authorization server wins over the advertised one, and no assertion goes to metadata naming another issuer", async () => {
      // Metadata that claims another issuer: an assertion addressed there could be replayed there.
      const fixture = await oauthFixture({
        authorizationServers: ['http://169.254.169.254/'],
        metadataIssuer: 'https://other-issuer.example',
      });
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      fixture.registerJwtClient('pinned-robot', publicKey);
      const serverId = await machineServer(fixture, {
        oauthClientId: 'pinned-robot',
        clientSecret: null,
        privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        signingAlg: 'ES256',
        authorizationServerUrl: fixture.issuer,
      });
      // RFC 8414 §3.3: metadata whose issuer is not the authorization server it came from must not be used. The
      // client's assertion is never presented (it could be replayed at the issuer the metadata names).
      const reply = await whoami(serverId);
      expect(reply.status).toBe(401);
      expect(reply.body.details.lastError).toBe('metadata_issuer_mismatch');
      expect(fixture.stats.clientCredentials).toEqual([]);
    });
  });
});
