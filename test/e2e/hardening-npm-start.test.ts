import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiReply } from '../helpers/http.js';
import { sampleResults } from '../helpers/ingest.js';
import { startNpmStart, type NpmStartStack } from '../helpers/npmStart.js';

/**
 * Issue 13's reproductions, replayed as the attacker did: against a running `npm start` stack (embedded defaults,
 * the demo key, the demo servers), over HTTP only. Each gives a 4xx, and the SSRF ones never make the service
 * fetch the caller's URL. The integration tests (outbound-requests, hostile-inputs, ingest-upload-guards, ...)
 * cover each rule in depth; this one shows that the stack a user runs is the one they test.
 */
describe('issue 13 reproductions on npm start', () => {
  let stack: NpmStartStack;
  let call: ReturnType<typeof apiClient>;
  let projectId: string;
  let httpServerId: string;
  let httpServerUrl: string;
  /** The caller's own listener: every request the service makes to it is recorded. */
  let listener: Server;
  const received: IncomingMessage[] = [];
  let listenerUrl: string;

  beforeAll(async () => {
    listener = createServer((req, res) => {
      received.push(req);
      // What an attacker's "authorization server" would answer: metadata naming an internal token endpoint.
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          issuer: listenerUrl,
          token_endpoint: 'http://169.254.169.254/latest/meta-data/',
          authorization_endpoint: `${listenerUrl}/authorize`,
        }),
      );
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;

    // The attacker's burst of requests is not what is under test here: the key's rate limit is raised.
    stack = await startNpmStart({ RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_MINUTE: '60000' });
    call = apiClient(stack.apiUrl, stack.demoKey);
    projectId = (await call('GET', '/projects')).body.items[0].id;
    const servers = (await call('GET', `/projects/${projectId}/servers`)).body.items as {
      id: string;
      name: string;
      url: string;
    }[];
    ({ id: httpServerId, url: httpServerUrl } = servers.find((s) => s.name === 'everything (http)')!);
  }, 200_000);
  afterAll(async () => {
    await stack?.stop();
    listener?.close();
  });

  const expect4xx = (reply: ApiReply, status = 400) => {
    expect(reply.status).toBe(status);
    expect(reply.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  };

  it('§1 SSRF: a caller-chosen authorization server is refused, and the service never fetches it', async () => {
    const reply = await call('POST', `/projects/${projectId}/servers/${httpServerId}/oauth/import-tokens`, {
      serverUrl: httpServerUrl,
      tokens: { access_token: 'a', refresh_token: 'r', token_type: 'Bearer', expires_in: 0 },
      authorizationServerUrl: listenerUrl,
      oauthResourceUrl: listenerUrl,
    });
    expect4xx(reply);
    // The demo server advertises no authorization server, so the caller's cannot match what discovery gives.
    expect(reply.body.details).toMatchObject({ reason: 'AUTHORIZATION_SERVER_MISMATCH' });
    // Any server operation afterwards (a refresh would happen here) still never reaches the caller's listener.
    await call('POST', `/projects/${projectId}/servers/${httpServerId}/check-oauth`, {});
    await call('POST', `/projects/${projectId}/servers/${httpServerId}/tools`, {});
    expect(received).toEqual([]);
  });

  it('§2 a forged upload URL is refused before its body is read, and so is a compressed body', async () => {
    const forged = `${stack.apiUrl}/eval-ingest/uploads?token=${'x'.repeat(43)}`;
    const plain = await fetch(forged, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(plain.status).toBeGreaterThanOrEqual(400);
    expect(plain.status).toBeLessThan(500);
    const minted = await call('POST', `/projects/${projectId}/eval-ingest/artifacts/upload-url`, {
      format: 'jest-json',
      suiteName: 'uploads',
    });
    expect(minted.status).toBe(200);
    const gzip = await fetch(minted.body.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.alloc(7 * 1024 * 1024)),
    });
    expect(gzip.status).toBe(400);
    expect(await gzip.json()).toMatchObject({ details: { reason: 'CONTENT_ENCODING_NOT_ACCEPTED' } });
  });

  it('§3 work has bounds: a request past a limit is a 400 naming the limit, and writes nothing', async () => {
    const tests = Array.from({ length: 101 }, (_, i) => ({ title: `t${i}`, query: `q${i}`, expectedToolCalls: [] }));
    const suite = await call('POST', `/projects/${projectId}/eval-suites`, {
      name: 'too big',
      serverIds: [httpServerId],
      model: 'gpt-4.1-mini',
      tests,
    });
    expect4xx(suite);
    expect(suite.body.message).toMatch(/body\.tests.*100/);
    const report = await call('POST', `/projects/${projectId}/eval-ingest/report`, {
      suiteName: 'too many',
      externalRunId: 'many-1',
      results: sampleResults(201),
    });
    expect4xx(report);
    expect(report.body.message).toMatch(/body\.results.*200/);
    const names = (await call('GET', `/projects/${projectId}/eval-suites`)).body.items.map(
      (s: { name: string }) => s.name,
    );
    expect(names).not.toContain('too big');
    expect(names).not.toContain('too many');
  });

  it('§4 the inputs that answered 500 answer 400', async () => {
    expect4xx(await call('GET', `/chat-sessions?cursor=${encodeURIComponent(`abc.${'é'.repeat(43)}`)}`));
    expect4xx(
      await call(
        'POST',
        `/projects/${projectId}/servers/${httpServerId}/tools/call`,
        '['.repeat(200_000) + ']'.repeat(200_000),
      ),
    );
    // An instant past the year 9999 is clamped to it now (a list filter the hosted document gives no 400): never a 500.
    expect((await call('GET', '/chat-sessions?before=9000000000000000')).status).toBe(200);
    const result = sampleResults(1)[0];
    expect4xx(
      await call('POST', `/projects/${projectId}/eval-ingest/report`, {
        suiteName: 'big',
        externalRunId: 'big-1',
        results: [{ ...result, tokens: { input: 1e12 } }],
      }),
    );
    const surrogate = JSON.stringify({
      suiteName: 'sur',
      externalRunId: 'sur-1',
      results: [{ ...result, metadata: { note: '@' } }],
    }).replace('"@"', '"\\ud800"');
    expect4xx(await call('POST', `/projects/${projectId}/eval-ingest/report`, surrogate));
    // Nothing of the refused reports was stored.
    const suites = (await call('GET', `/projects/${projectId}/eval-suites`)).body.items.map(
      (s: { name: string }) => s.name,
    );
    expect(suites).not.toContain('big');
    expect(suites).not.toContain('sur');
  });

  it('stays healthy: no reply above was a 5xx and the API still answers', async () => {
    expect((await call('GET', '/me')).status).toBe(200);
    expect(stack.output()).not.toMatch(/INTERNAL_ERROR/);
  });
});
