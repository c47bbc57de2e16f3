import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/http.js';
import { seedOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('per-key rate limit shared by two API instances on one database', () => {
  let first: TestStack;
  let second: TestStack;

  // One token every 10 s (6 a minute), bursts of 10: slow enough that a loaded machine's slowness never refills a
  // token in the middle of a burst, which at the default rate (1 a second) it can.
  const config = { RATE_LIMIT_PER_MINUTE: '6' };
  beforeAll(async () => {
    first = await startTestStack({ worker: false, config });
    second = await startTestStack({ worker: false, database: first.db, config });
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('lets a burst of 10 through, answers the 11th with 429 and Retry-After, and refills at the configured rate', async () => {
    const org = await seedOrganization(first.sql);
    const clients = [apiClient(first.baseUrl, org.apiKey), apiClient(second.baseUrl, org.apiKey)];
    const burst = [];
    for (let i = 0; i < 10; i++) burst.push(await clients[i % 2]('GET', '/me'));
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));

    const limited = await clients[0]('GET', '/me');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', message: expect.any(String) });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(9);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect((await clients[1]('GET', '/me')).status).toBe(429);

    // One token comes back every 10 s: after Retry-After exactly one request passes, the next is limited again.
    await sleep(retryAfter * 1000 + 100);
    expect((await clients[1]('GET', '/me')).status).toBe(200);
    expect((await clients[0]('GET', '/me')).status).toBe(429);
  });

  it('keeps each key in its own bucket', async () => {
    const a = await seedOrganization(first.sql);
    const b = await seedOrganization(first.sql);
    for (let i = 0; i < 10; i++) await apiClient(first.baseUrl, a.apiKey)('GET', '/me');
    expect((await apiClient(second.baseUrl, a.apiKey)('GET', '/me')).status).toBe(429);
    expect((await apiClient(second.baseUrl, b.apiKey)('GET', '/me')).status).toBe(200);
  });

  it('holds under concurrent requests: exactly the burst passes', async () => {
    const org = await seedOrganization(first.sql);
    const clients = [apiClient(first.baseUrl, org.apiKey), apiClient(second.baseUrl, org.apiKey)];
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => clients[i % 2]('GET', '/me')));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(20);
  });

  it('is configurable by the operator', async () => {
    const strict = await startTestStack({
      worker: false,
      database: first.db,
      config: { RATE_LIMIT_BURST: '2', RATE_LIMIT_PER_MINUTE: '6' },
    });
    try {
      const org = await seedOrganization(first.sql);
      const call = apiClient(strict.baseUrl, org.apiKey);
      expect((await call('GET', '/me')).status).toBe(200);
      expect((await call('GET', '/me')).status).toBe(200);
      const limited = await call('GET', '/me');
      expect(limited.status).toBe(429);
      // 6 per minute: a token every 10 s
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(9);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(10);
    } finally {
      await strict.stop();
    }
  });
});
