/**
 * Checks the MCP fixture servers in test/fixtures/mcp with the SDK's own
 * Client, so integration tests can trust them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { startPaginatedServer } from '../fixtures/mcp/paginated.js';
import { startSlowServer } from '../fixtures/mcp/slow.js';
import { startCrashyServer } from '../fixtures/mcp/crashy.js';
import { startToolsOnlyServer } from '../fixtures/mcp/tools-only.js';
import { startClientFeaturesServer } from '../fixtures/mcp/client-features.js';
import { startOAuthServer } from '../fixtures/mcp/oauth.js';
import type { OAuthFixture } from '../fixtures/mcp/oauth.js';
import { startFaultyServer } from '../fixtures/mcp/faulty.js';
import { startGuardedServer } from '../fixtures/mcp/guarded.js';
import { startPostOnlyServer } from '../fixtures/mcp/post-only.js';
import { startResumableServer } from '../fixtures/mcp/resumable.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const fixturePath = (name: string) => fileURLToPath(new URL(`../fixtures/mcp/${name}.ts`, import.meta.url));

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** Start an in-process fixture and close it after the test. */
async function started<T extends { close(): Promise<void> }>(fixture: Promise<T>): Promise<T> {
  const f = await fixture;
  cleanups.push(() => f.close());
  return f;
}

async function connect(transport: Transport, timeout?: number): Promise<Client> {
  const client = new Client({ name: 'fixtures-test', version: '0.0.0' });
  cleanups.push(() => client.close());
  await client.connect(transport, timeout ? { timeout } : undefined);
  return client;
}

const http = (url: string, init?: RequestInit) =>
  new StreamableHTTPClientTransport(new URL(url), { requestInit: init });

/** Spawn a fixture as a child process over stdio, the way Runway runs stdio servers. */
const stdio = (name: string) =>
  new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', fixturePath(name)],
    cwd: repoRoot,
    stderr: 'pipe',
  });

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

/** Follow nextCursor to the end, counting pages. */
async function walk<T>(list: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>) {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await list(cursor);
    items.push(...page.items);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { items, pages };
}

const walkTools = (client: Client) =>
  walk((cursor) =>
    client.listTools({ cursor }).then((r) => ({ items: r.tools.map((t) => t.name), nextCursor: r.nextCursor })),
  );

describe('paginated fixture', () => {
  it('walks every page of tools, prompts and resources', async () => {
    const { url } = await started(startPaginatedServer());
    const client = await connect(http(url));

    const tools = await walkTools(client);
    expect(tools.pages).toBe(3);
    expect(tools.items).toHaveLength(26);
    expect(tools.items.slice(0, 2)).toEqual(['tool_01', 'tool_02']);
    expect(tools.items).toContain('tool_25');
    expect(tools.items).toContain('structured');

    const prompts = await walk((cursor) =>
      client.listPrompts({ cursor }).then((r) => ({ items: r.prompts, nextCursor: r.nextCursor })),
    );
    expect([prompts.pages, prompts.items.length]).toEqual([2, 12]);

    const resources = await walk((cursor) =>
      client
        .listResources({ cursor })
        .then((r) => ({ items: r.resources.map((x) => x.uri), nextCursor: r.nextCursor })),
    );
    expect([resources.pages, resources.items.length]).toEqual([4, 31]);
    expect(new Set(resources.items).size).toBe(31);
  });

  it('rejects a bogus cursor with -32602', async () => {
    const { url } = await started(startPaginatedServer());
    const client = await connect(http(url));
    await expect(client.listTools({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('echoes, returns structuredContent and serves a blob', async () => {
    const { url } = await started(startPaginatedServer());
    const client = await connect(http(url));
    expect(textOf(await client.callTool({ name: 'tool_07', arguments: { value: 'hi' } }))).toBe('hi');

    await walkTools(client); // lets the client cache (and validate against) the outputSchema
    const structured = await client.callTool({ name: 'structured', arguments: { value: 'abc' } });
    expect(structured.structuredContent).toEqual({ value: 'abc', length: 3 });

    const blob = await client.readResource({ uri: 'fixture://blob/01' });
    expect(blob.contents[0]).toMatchObject({ mimeType: 'image/png', blob: expect.any(String) });
    const item = await client.readResource({ uri: 'fixture://item/30' });
    expect(item.contents[0]).toMatchObject({ text: 'item_30 content' });
  });

  it('paginates over legacy SSE', async () => {
    const { url } = await started(startPaginatedServer({ transport: 'sse' }));
    const client = await connect(new SSEClientTransport(new URL(url)));
    expect((await walkTools(client)).items).toHaveLength(26);
  });

  it('runs as a stdio child process (node --import tsx)', async () => {
    const client = await connect(stdio('paginated'));
    const tools = await walkTools(client);
    expect([tools.pages, tools.items.length]).toEqual([3, 26]);
  });
});

describe('slow fixture', () => {
  it('sleeps, adds, fails and throws', async () => {
    const { url } = await started(startSlowServer());
    const client = await connect(http(url));
    expect(textOf(await client.callTool({ name: 'sleep', arguments: { ms: 20 } }))).toBe('slept 20');
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(await client.callTool({ name: 'fail' })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'boom' }],
    });
    const thrown = await client.callTool({ name: 'throw' });
    expect(thrown.isError).toBe(true);
    expect(textOf(thrown)).toContain('kaboom');
  });

  it('sends progress notifications with the caller’s token', async () => {
    const { url } = await started(startSlowServer());
    const client = await connect(http(url));
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'sleep_with_progress', arguments: { ms: 250, intervalMs: 50 } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
      },
    );
    expect(textOf(result)).toBe('slept 250');
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.at(-1)).toMatchObject({ progress: 250, total: 250 });
    for (let i = 1; i < progress.length; i++) expect(progress[i].progress).toBeGreaterThan(progress[i - 1].progress);
  });

  it('times out a slow call on the client side', async () => {
    const { url } = await started(startSlowServer());
    const client = await connect(http(url));
    await expect(
      client.callTool({ name: 'sleep', arguments: { ms: 2000 } }, undefined, { timeout: 100 }),
    ).rejects.toMatchObject({
      code: ErrorCode.RequestTimeout,
    });
  });

  it('delays the initialize response (initDelayMs / SLOW_INIT_MS)', async () => {
    const { url } = await started(startSlowServer({ initDelayMs: 400 }));
    await expect(connect(http(url), 100)).rejects.toMatchObject({ code: ErrorCode.RequestTimeout });
    const t0 = Date.now();
    await connect(http(url));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
  });
});

describe('crashy fixture', () => {
  it('echoes, reports its pid, then dies mid-call (in-process HTTP)', async () => {
    const { url } = await started(startCrashyServer());
    const client = await connect(http(url));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'yo' } }))).toBe('yo');
    expect(textOf(await client.callTool({ name: 'pid' }))).toBe(String(process.pid));

    await expect(client.callTool({ name: 'crash' }, undefined, { timeout: 5000 })).rejects.toThrow();
    // The listener is gone too: a fresh client can't get in.
    await expect(connect(http(url), 2000)).rejects.toThrow();
  });

  it('exits the child process mid-call over stdio', async () => {
    const transport = stdio('crashy');
    const client = await connect(transport);
    const pid = Number(textOf(await client.callTool({ name: 'pid' })));
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(process.pid);

    const closed = new Promise<void>((resolve) => (client.onclose = resolve));
    await expect(client.callTool({ name: 'crash' })).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    await closed;
  });
});

describe('tools-only fixture', () => {
  it('declares only tools; prompts/list and resources/list are -32601', async () => {
    const { url } = await started(startToolsOnlyServer());
    const client = await connect(http(url));
    expect(Object.keys(client.getServerCapabilities() ?? {})).toEqual(['tools']);
    expect(textOf(await client.callTool({ name: 'ping' }))).toBe('pong');

    for (const call of [() => client.listPrompts(), () => client.listResources()]) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: ErrorCode.MethodNotFound });
      expect((error as McpError).message).toContain('Method not found');
    }
  });
});

describe('client-features fixture', () => {
  it("relays the client's answers to elicitation, sampling and roots, and its JSON-RPC errors", async () => {
    const f = await started(startClientFeaturesServer());
    const client = new Client(
      { name: 'fixtures-test', version: '0.0.0' },
      { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) =>
      'requestedSchema' in request.params && 'email' in request.params.requestedSchema.properties
        ? { action: 'decline' }
        : { action: 'accept', content: { size: 'small', shots: 1 } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, (request) => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: `saw ${(request.params.messages[0].content as { text: string }).text}` },
    }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///r' }] }));
    cleanups.push(() => client.close());
    await client.connect(http(f.url));

    expect(textOf(await client.callTool({ name: 'order_coffee' }))).toBe('accept {"size":"small","shots":1}');
    expect(textOf(await client.callTool({ name: 'register_user' }))).toBe('decline');
    expect(textOf(await client.callTool({ name: 'summarize', arguments: { text: 'abc' } }))).toBe(
      'sampled m: saw Summarize: abc',
    );
    expect(textOf(await client.callTool({ name: 'list_roots' }))).toBe('roots [{"uri":"file:///r"}]');
    // Not declared by this client (URL mode): the SDK client's own JSON-RPC error reaches the tool.
    expect(textOf(await client.callTool({ name: 'open_login' }))).toMatch(/^error -32602 /);
    expect(textOf(await client.callTool({ name: 'ask_unknown' }))).toMatch(/^error -32601 /);
    expect(JSON.parse(textOf(await client.callTool({ name: 'client_capabilities' })))).toMatchObject({
      elicitation: { form: {} },
      sampling: {},
      roots: {},
    });
  });
});

describe('oauth fixture', () => {
  const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

  /** A raw initialize POST, to look at status and headers the SDK client hides. */
  const postInitialize = (f: OAuthFixture, headers: Record<string, string> = {}) =>
    fetch(f.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      }),
    });

  const refresh = (f: OAuthFixture, refreshToken: string, how: 'basic' | 'post' = 'basic') =>
    fetch(`${f.issuer}/token`, {
      method: 'POST',
      headers:
        how === 'basic'
          ? { Authorization: `Basic ${Buffer.from(`${f.clientId}:${f.clientSecret}`).toString('base64')}` }
          : {},
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        ...(how === 'post' && { client_id: f.clientId, client_secret: f.clientSecret }),
      }),
    });

  it('rejects requests without a token: 401 + WWW-Authenticate pointing at its metadata', async () => {
    const f = await started(startOAuthServer());
    const res = await postInitialize(f);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${f.issuer}/.well-known/oauth-protected-resource/mcp`);

    const prm = (await (await fetch(metadataUrl!)).json()) as { resource: string; authorization_servers: string[] };
    expect(prm).toMatchObject({ resource: f.url, authorization_servers: [f.issuer] });
    const as = (await (await fetch(`${f.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(as).toMatchObject({
      issuer: f.issuer,
      token_endpoint: `${f.issuer}/token`,
      grant_types_supported: expect.arrayContaining(['refresh_token']),
      code_challenge_methods_supported: ['S256'],
    });

    const bogus = await postInitialize(f, { Authorization: 'Bearer nope' });
    expect(bogus.status).toBe(401);
    expect(bogus.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(f.stats).toMatchObject({ mcpRequests: 2, unauthorized: 2 });
  });

  it('accepts an issued token and knows whose it is', async () => {
    const f = await started(startOAuthServer());
    const tokens = f.issueTokens('alice');
    const client = await connect(http(f.url, bearer(tokens.access_token)));
    expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('alice');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
    expect(f.stats.unauthorized).toBe(0);
    expect(f.stats.mcpRequests).toBeGreaterThanOrEqual(3);
  });

  it('rotates refresh tokens: each works once, reuse is invalid_grant', async () => {
    const f = await started(startOAuthServer());
    const first = f.issueTokens();

    const r1 = await refresh(f, first.refresh_token);
    expect(r1.status).toBe(200);
    const second = (await r1.json()) as { access_token: string; refresh_token: string; token_type: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.token_type).toBe('Bearer');

    const reuse = await refresh(f, first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });

    // client_secret_post works too, and the rotated token is good exactly once.
    expect((await refresh(f, second.refresh_token, 'post')).status).toBe(200);
    expect((await refresh(f, second.refresh_token, 'post')).status).toBe(400);
    expect(f.stats).toMatchObject({ tokenRequests: 4, refreshes: 4 });

    // Wrong client secret is invalid_client, not a grant problem.
    const badClient = await fetch(`${f.issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: f.clientId,
        client_secret: 'wrong',
      }),
    });
    expect(badClient.status).toBe(401);
  });

  it('can expire access tokens and revoke refresh tokens', async () => {
    const f = await started(startOAuthServer());
    const tokens = f.issueTokens();
    expect((await postInitialize(f, { Authorization: `Bearer ${tokens.access_token}` })).status).toBe(200);
    f.expireAccessTokens();
    const expired = await postInitialize(f, { Authorization: `Bearer ${tokens.access_token}` });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('expired');

    f.revokeRefreshTokens();
    expect((await refresh(f, tokens.refresh_token)).status).toBe(400);
  });

  it('works with the SDK client auth: refresh on 401, and the full code flow', async () => {
    const f = await started(startOAuthServer({ accessTokenTtlSec: 60 }));

    /** In-memory OAuthClientProvider; redirectToAuthorization just remembers the URL. */
    class Provider implements OAuthClientProvider {
      saved?: OAuthTokens;
      client?: OAuthClientInformationMixed;
      authorizationUrl?: URL;
      verifier = '';
      constructor(initial?: { tokens: OAuthTokens; client: OAuthClientInformationMixed }) {
        this.saved = initial?.tokens;
        this.client = initial?.client;
      }
      get redirectUrl() {
        return 'http://127.0.0.1:1/callback';
      }
      get clientMetadata() {
        return { redirect_uris: [this.redirectUrl], client_name: 'fixtures-test' };
      }
      clientInformation = () => this.client;
      saveClientInformation = (info: OAuthClientInformationMixed) => void (this.client = info);
      tokens = () => this.saved;
      saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
      redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
      saveCodeVerifier = (v: string) => void (this.verifier = v);
      codeVerifier = () => this.verifier;
    }

    // 1) Expired access token + valid refresh token: the SDK refreshes once and carries on.
    const provider = new Provider({
      tokens: { ...f.issueTokens('bob'), issuer: f.issuer },
      client: { client_id: f.clientId, client_secret: f.clientSecret },
    });
    f.expireAccessTokens();
    const client = await connect(new StreamableHTTPClientTransport(new URL(f.url), { authProvider: provider }));
    expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('bob');
    expect(f.stats.refreshes).toBe(1);

    // 2) Nothing stored: register, authorize (auto-approved), exchange the code.
    const fresh = new Provider();
    const transport = new StreamableHTTPClientTransport(new URL(f.url), { authProvider: fresh });
    await expect(connect(transport)).rejects.toThrow(/Unauthorized/i);
    expect(fresh.client?.client_id).toBeTruthy();
    const redirect = await fetch(fresh.authorizationUrl!, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
    await transport.finishAuth(code);
    const authed = await connect(new StreamableHTTPClientTransport(new URL(f.url), { authProvider: fresh }));
    expect(textOf(await authed.callTool({ name: 'whoami' }))).toBe('test-user');
  });

  it('client_credentials: a secret or a private_key_jwt assertion checked with the public key, never twice', async () => {
    const f = await started(startOAuthServer());
    const robot = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    f.registerJwtClient('robot', robot.publicKey);
    const now = Math.floor(Date.now() / 1000);
    /** An ES256 client assertion (RFC 7523 §2.2), signed with `key`. */
    const assertion = (key: KeyObject, claims: Record<string, unknown> = {}) => {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const signed = `${part({ alg: 'ES256', typ: 'JWT' })}.${part({ iss: 'robot', sub: 'robot', aud: f.issuer, exp: now + 300, iat: now, jti: randomUUID(), ...claims })}`;
      return `${signed}.${sign('sha256', Buffer.from(signed), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    };
    const token = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${f.issuer}/token`, {
        method: 'POST',
        headers,
        body: new URLSearchParams({ grant_type: 'client_credentials', ...body }),
      });
    const withAssertion = (jwt: string) =>
      token({ client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: jwt });

    const good = assertion(robot.privateKey);
    const issued = await withAssertion(good);
    expect(issued.status).toBe(200);
    const body = (await issued.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    expect(body).not.toHaveProperty('refresh_token');
    const client = await connect(http(f.url, bearer(body.access_token as string)));
    expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('robot');

    expect((await withAssertion(good)).status).toBe(401); // replayed
    expect((await withAssertion(assertion(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey))).status).toBe(
      401,
    ); // another key
    expect((await withAssertion(assertion(robot.privateKey, { aud: 'https://elsewhere.example' }))).status).toBe(401);
    expect((await withAssertion(assertion(robot.privateKey, { exp: now - 10 }))).status).toBe(401);
    expect((await withAssertion(assertion(robot.privateKey, { sub: 'someone-else' }))).status).toBe(401);
    // A JWT client cannot use a secret instead; the pre-registered client can, with HTTP Basic.
    expect((await token({ client_id: 'robot', client_secret: 'guess' })).status).toBe(401);
    const basic = await token(
      { scope: 'a b' },
      { Authorization: `Basic ${Buffer.from(`${f.clientId}:${f.clientSecret}`).toString('base64')}` },
    );
    expect(await basic.json()).toMatchObject({ scope: 'a b' });
    expect(f.stats.clientCredentials.map((r) => [r.clientId, r.authentication, r.outcome])).toEqual([
      ['robot', 'private_key_jwt', 'issued'],
      ...Array(5).fill([null, 'private_key_jwt', 'invalid_client']),
      [null, 'client_secret_post', 'invalid_client'],
      [f.clientId, 'client_secret_basic', 'issued'],
    ]);
  });
});

describe('post-only fixture', () => {
  it.each(['stateful', 'stateless'] as const)('%s: answers POSTs, refuses GET and DELETE with 404', async (mode) => {
    const f = await started(startPostOnlyServer({ mode }));
    const transport = http(f.url);
    const client = await connect(transport);
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(transport.sessionId === undefined).toBe(mode === 'stateless');
    expect((await fetch(f.url, { headers: { accept: 'text/event-stream' } })).status).toBe(404);
    expect(f.stats).toMatchObject({ toolCalls: 1 });
    expect(f.stats.refused).toBeGreaterThanOrEqual(1);
  });
});

describe('resumable fixture', () => {
  it('closes each response stream after its priming event; the SDK client resumes and gets the answer', async () => {
    const f = await started(startResumableServer());
    const client = await connect(http(f.url));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'later' } }))).toBe('later');
    // initialize, and the call
    expect(f.stats.resumptions).toBeGreaterThanOrEqual(2);
  });

  it("'never' answers tools/call with priming events only", async () => {
    const f = await started(startResumableServer({ answer: 'never' }));
    const client = await connect(http(f.url));
    await expect(
      client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, { timeout: 500 }),
    ).rejects.toMatchObject({ code: ErrorCode.RequestTimeout });
    expect(f.stats.resumptions).toBeGreaterThanOrEqual(1);
  });
});

describe('faulty fixture', () => {
  it('answers with JSON-RPC errors of its own', async () => {
    const f = await started(startFaultyServer());
    const client = await connect(http(f.url));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['internal', 'custom', 'echo']);
    await expect(client.callTool({ name: 'internal' })).rejects.toMatchObject({ code: ErrorCode.InternalError });
    await expect(client.callTool({ name: 'custom' })).rejects.toMatchObject({
      code: -32050,
      data: { retryAfterSeconds: 3600 },
    });
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'ok' } }))).toBe('ok');
    expect(f.stats).toEqual({ toolLists: 1, initializations: 1 });
  });

  it('fails tools/list when asked to, also as a stdio child', async () => {
    const f = await started(startFaultyServer({ listFails: true }));
    await expect((await connect(http(f.url))).listTools()).rejects.toMatchObject({ code: ErrorCode.InternalError });
    expect(textOf(await (await connect(stdio('faulty'))).callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe(
      'hi',
    );
  });
});

describe('guarded fixture', () => {
  it('wants its own bearer token; says why not; 403 insufficient_scope for admin', async () => {
    const f = await started(startGuardedServer());
    const missing = await fetch(f.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="guarded"');
    expect(await missing.json()).toEqual({ error: 'unauthorized', message: 'Missing bearer token' });
    expect((await fetch(`${new URL(f.url).origin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);

    const client = await connect(http(f.url, { headers: { Authorization: 'Bearer static-token' } }));
    expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('token:static');
    await expect(client.callTool({ name: 'admin' })).rejects.toMatchObject({ code: 403 });
    expect(f.stats).toMatchObject({ sessions: 1, refused: 2 });
  });

  it.each(['well-known', 'challenge'] as const)(
    'advertise %s: publishes protected-resource metadata',
    async (advertise) => {
      const f = await started(startGuardedServer({ advertise }));
      expect(await (await fetch(f.resourceMetadataUrl)).json()).toMatchObject({ resource: f.url });
      const refused = await fetch(f.url, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.headers.get('www-authenticate')?.includes(`resource_metadata="${f.resourceMetadataUrl}"`)).toBe(
        advertise === 'challenge',
      );
    },
  );
});
