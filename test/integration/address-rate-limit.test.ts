import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../db/accounts.js';
import { apiClient, type ApiReply } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

// A burst of 5, then a token every 10 s: long enough that no token comes back while a test runs.
const limits = { RATE_LIMIT_ANON_BURST: '5', RATE_LIMIT_ANON_PER_MINUTE: '6' };

/**
 * Every test request comes from 127.0.0.1. Behind TRUST_PROXY the service takes the client address from
 * X-Forwarded-For, which lets each test be its own client; a fresh address per test keeps their buckets apart.
 */
let addresses = 0;
const newAddress = () => `203.0.113.${++addresses}`;
const from = (address: string) => ({ 'x-forwarded-for': address });

describe('per-address rate limit on work without a usable key', () => {
  let first: TestStack;
  let second: TestStack;
  let org: SeededOrganization;

  beforeAll(async () => {
    first = await startTestStack({ worker: false, config: { ...limits, TRUST_PROXY: 'loopback' } });
    second = await startTestStack({
      worker: false,
      database: first.db,
      config: { ...limits, TRUST_PROXY: 'loopback' },
    });
    org = await seedOrganization(first.sql);
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  const expectLimited = (reply: ApiReply) => {
    expect(reply.status).toBe(429);
    expect(reply.body).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('without a valid API key'),
      details: { reason: 'ADDRESS_RATE_LIMIT' },
    });
    const retryAfter = Number(reply.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
  };
  const mint = async () =>
    (await apiClient(first.baseUrl, org.apiKey)('POST', '/projects/default/eval-ingest/artifacts/upload-url', {})).body
      .uploadUrl as string;
  const put = async (url: string, headers: Record<string, string>): Promise<ApiReply> => {
    const response = await fetch(url, { method: 'PUT', headers, body: 'blob' });
    return { status: response.status, body: await response.json(), headers: response.headers };
  };

  it('unknown keys get their 401s up to the burst, then 429 with Retry-After; so do revoked, missing and malformed keys', async () => {
    const address = from(newAddress());
    const anonymous = apiClient(first.baseUrl);
    for (let i = 0; i < 5; i++) {
      const reply = await anonymous('GET', '/me', undefined, {
        ...address,
        authorization: `Bearer sk_unknown${i}unknownunknownunknown`,
      });
      expect(reply).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
    }
    expectLimited(
      await anonymous('GET', '/me', undefined, {
        ...address,
        authorization: 'Bearer sk_unknown5unknownunknownunknown',
      }),
    );

    const revoked = await createApiKey(first.sql, {
      name: 'old',
      organizationId: org.organizationId,
      userId: org.userId,
    });
    await revokeApiKey(first.sql, revoked.id);
    expectLimited(await anonymous('GET', '/me', undefined, { ...address, authorization: `Bearer ${revoked.key}` }));
    expectLimited(await anonymous('GET', '/me', undefined, address));
    expectLimited(await anonymous('GET', '/projects', undefined, { ...address, authorization: 'Bearer pk_not_a_key' }));
  });

  it('valid keys are never limited by their address: another tenant behind the same address is unaffected', async () => {
    const address = from(newAddress());
    for (let i = 0; i < 6; i++)
      await apiClient(first.baseUrl, `sk_guess${i}guessguessguessguess`)('GET', '/me', undefined, address);
    expectLimited(await apiClient(first.baseUrl, 'sk_guessguessguessguessguess')('GET', '/me', undefined, address));
    const tenant = await seedOrganization(first.sql);
    const replies = [];
    for (let i = 0; i < 8; i++)
      replies.push(await apiClient(first.baseUrl, tenant.apiKey)('GET', '/me', undefined, address));
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    // Nor does their traffic refill or drain the address's bucket.
    expectLimited(await apiClient(first.baseUrl)('GET', '/me', undefined, address));
  });

  it('another address keeps its own bucket', async () => {
    const flooding = from(newAddress());
    for (let i = 0; i < 6; i++)
      await apiClient(first.baseUrl, 'sk_floodfloodfloodfloodflood')('GET', '/me', undefined, flooding);
    expectLimited(await apiClient(first.baseUrl, 'sk_floodfloodfloodfloodflood')('GET', '/me', undefined, flooding));
    const reply = await apiClient(first.baseUrl, 'sk_floodfloodfloodfloodflood')(
      'GET',
      '/me',
      undefined,
      from(newAddress()),
    );
    expect(reply.status).toBe(401);
  });

  it('upload URLs count against the address: forged tokens, then even a real URL waits (429) while other addresses upload', async () => {
    const address = from(newAddress());
    const forged = `${first.origin}/api/v1/eval-ingest/uploads?token=${'f'.repeat(43)}`;
    for (let i = 0; i < 5; i++) expect((await put(forged, address)).status).toBe(404);
    expectLimited(await put(forged, address));
    const url = await mint();
    const limited = await put(url, address);
    expectLimited(limited);
    // The limited upload left the URL unused: from another address it goes through.
    expect((await put(url, from(newAddress()))).status).toBe(200);
  });

  it('uploads and bad keys share one bucket per address', async () => {
    const address = from(newAddress());
    const forged = `${first.origin}/api/v1/eval-ingest/uploads?token=${'g'.repeat(43)}`;
    for (let i = 0; i < 3; i++) expect((await put(forged, address)).status).toBe(404);
    for (let i = 0; i < 2; i++)
      expect(
        (await apiClient(first.baseUrl, 'sk_badbadbadbadbadbadbad')('GET', '/me', undefined, address)).status,
      ).toBe(401);
    expectLimited(await put(forged, address));
    expectLimited(await apiClient(first.baseUrl, 'sk_badbadbadbadbadbadbad')('GET', '/me', undefined, address));
  });

  it('holds across two API processes on one database', async () => {
    const address = from(newAddress());
    const stacks = [first, second];
    const replies = [];
    for (let i = 0; i < 6; i++)
      replies.push(
        await apiClient(stacks[i % 2].baseUrl, 'sk_twotwotwotwotwotwotwo')('GET', '/me', undefined, address),
      );
    expect(replies.slice(0, 5).map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expectLimited(replies[5]);
    expectLimited(await apiClient(second.baseUrl)('GET', '/me', undefined, address));
  });

  it('holds under concurrent requests: exactly the burst gets through', async () => {
    const address = from(newAddress());
    const stacks = [first, second];
    const replies = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        apiClient(stacks[i % 2].baseUrl, `sk_racerace${i}raceraceracerace`)('GET', '/me', undefined, address),
      ),
    );
    expect(replies.filter((r) => r.status === 401)).toHaveLength(5);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(11);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: a caller cannot pick the address it is limited by', async () => {
    const direct = await startTestStack({ worker: false, database: first.db, config: limits });
    try {
      const replies = [];
      for (let i = 0; i < 6; i++)
        replies.push(
          await apiClient(direct.baseUrl, 'sk_spoofspoofspoofspoofspoof')('GET', '/me', undefined, from(newAddress())),
        );
      expect(replies.slice(0, 5).map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
      expectLimited(replies[5]);
    } finally {
      await direct.stop();
    }
  });
});
