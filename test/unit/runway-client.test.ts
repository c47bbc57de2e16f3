import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRunwayClient, RunwayApiError, type RetryEvent } from '../../api/client.js';

// A stand-in API on loopback that answers each request with the next scripted reply.
type Reply = { status: number; body: unknown; headers?: Record<string, string> };

describe('the typed client: what it sends again and what it does not', () => {
  let server: Server;
  let origin: string;
  let replies: Reply[] = [];
  let requests = 0;

  beforeAll(async () => {
    const app = express();
    app.use((_req, res) => {
      requests++;
      const reply = replies.shift() ?? { status: 200, body: { items: [] } };
      res
        .status(reply.status)
        .set(reply.headers ?? {})
        .json(reply.body);
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    requests = 0;
  });

  const client = (retries: RetryEvent[]) =>
    createRunwayClient({
      baseUrl: origin,
      apiKey: 'sk_test',
      sleep: async () => {},
      onRetry: (event) => retries.push(event),
    });
  const unreachable = (details: Record<string, unknown>) => ({
    status: 502,
    body: {
      code: 'SERVER_UNREACHABLE',
      message: "server 'x': fetch failed",
      details: { phase: 'connect', ...details },
    },
  });

  it.each([
    ['a host name that does not resolve', { reason: 'NETWORK_ERROR', errno: 'ENOTFOUND' }],
    ["the server's own error, marked not retryable", { reason: 'SERVER_ERROR', retryable: false }],
    ['refused credentials', { reason: 'SERVER_REFUSED_CREDENTIALS', status: 401, retryable: false }],
    ['a stdio command that cannot start', { reason: 'SPAWN_FAILED', errno: 'ENOENT' }],
  ])('a 502 for %s is answered at once, not sent again', async (_what, details) => {
    replies = [unreachable(details), { status: 200, body: { items: [] } }];
    const retries: RetryEvent[] = [];
    const failure = await client(retries)
      .servers.allTools('default', 'srv_1')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RunwayApiError);
    expect(failure).toMatchObject({ status: 502, code: 'SERVER_UNREACHABLE', details });
    expect(requests).toBe(1);
    expect(retries).toEqual([]);
    replies = [];
  });

  it('a 502 a restart can cure (connection refused) is sent again, and the retry says why', async () => {
    replies = [
      unreachable({ reason: 'NETWORK_ERROR', errno: 'ECONNREFUSED' }),
      { status: 200, body: { items: [{ name: 'echo' }] } },
    ];
    const retries: RetryEvent[] = [];
    expect(await client(retries).servers.allTools('default', 'srv_1')).toEqual([{ name: 'echo' }]);
    expect(requests).toBe(2);
    expect(retries).toEqual([
      expect.objectContaining({ status: 502, reason: "HTTP 502 SERVER_UNREACHABLE: server 'x': fetch failed" }),
    ]);
  });

  it("the organization's run cap is not a rate limit: answered at once with its details and Retry-After", async () => {
    replies = [
      {
        status: 429,
        headers: { 'retry-after': '10' },
        body: {
          code: 'RATE_LIMITED',
          message: 'this organization already has 2 running eval runs (limit 2); wait for one to finish',
          details: { reason: 'CONCURRENT_RUN_LIMIT', maxConcurrentRuns: 2, activeRuns: 2 },
        },
      },
    ];
    const retries: RetryEvent[] = [];
    const failure = await client(retries)
      .evalRuns.create('default', { suiteId: 'sui_1' })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      retryAfterMs: 10_000,
      details: { reason: 'CONCURRENT_RUN_LIMIT', activeRuns: 2 },
    });
    expect(requests).toBe(1);
    expect(retries).toEqual([]);
  });

  it('a request-rate 429 is still sent again', async () => {
    replies = [
      { status: 429, headers: { 'retry-after': '1' }, body: { code: 'RATE_LIMITED', message: 'slow down' } },
      { status: 200, body: { items: [] } },
    ];
    const retries: RetryEvent[] = [];
    expect(await client(retries).servers.list('default')).toEqual({ items: [] });
    expect(requests).toBe(2);
    expect(retries).toEqual([expect.objectContaining({ status: 429, reason: 'rate limited' })]);
  });
});
