import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, removeMembership, revokeApiKey } from '../../db/accounts.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

describe('authentication', () => {
  let stack: TestStack;
  let org: SeededOrganization;

  beforeAll(async () => {
    stack = await startTestStack({ worker: false });
    org = await seedOrganization(stack.sql);
  });
  afterAll(async () => stack?.stop());

  it.each([
    ['no header', {}],
    ['another scheme', { authorization: 'Basic c2tfdGVzdDpzZWNyZXQ=' }],
    ['a key without the sk_ prefix', { authorization: 'Bearer pk_abcdef' }],
    ['an unknown sk_ key', { authorization: 'Bearer sk_unknownunknownunknownunknown' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('answers 401 UNAUTHORIZED for %s', async (_label, headers) => {
    const reply = await apiClient(stack.baseUrl)('GET', '/me', undefined, headers as Record<string, string>);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) });
  });

  it('revocation is immediate: the next request is 401', async () => {
    const key = await createApiKey(stack.sql, {
      name: 'short-lived',
      organizationId: org.organizationId,
      userId: org.userId,
    });
    const call = apiClient(stack.baseUrl, key.key);
    expect((await call('GET', '/me')).status).toBe(200);
    await revokeApiKey(stack.sql, key.id);
    const after = await call('GET', '/me');
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('UNAUTHORIZED');
    // A self-hosted Runway has no settings page: the message names the command that makes keys.
    expect(after.body.message).toBe(
      'this API key has been revoked; an operator creates a new one with `npm run -s admin -- key create`',
    );
  });

  it('a key whose organization is gone is 401 with reason ORPHANED_KEY', async () => {
    const doomed = await seedOrganization(stack.sql);
    await stack.sql`DELETE FROM organizations WHERE id = ${doomed.organizationId}`;
    const reply = await apiClient(stack.baseUrl, doomed.apiKey)('GET', '/projects');
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'ORPHANED_KEY' } });
  });

  it('a key whose owner left the organization is orphaned too', async () => {
    const other = await seedOrganization(stack.sql);
    await removeMembership(stack.sql, other.organizationId, other.userId);
    const reply = await apiClient(stack.baseUrl, other.apiKey)('GET', '/me');
    expect(reply.status).toBe(401);
    expect(reply.body.details).toEqual({ reason: 'ORPHANED_KEY' });
  });

  it.each(['GET /api-keys', 'POST /api-keys', 'DELETE /api-keys/key_123', 'GET /api-keys/key_123/usage'])(
    'the key-management surface refuses sk_ bearers: %s is 403 FORBIDDEN',
    async (route) => {
      const [method, path] = route.split(' ');
      const reply = await apiClient(stack.baseUrl, org.apiKey)(
        method,
        path,
        method === 'POST' ? { name: 'x' } : undefined,
      );
      expect(reply.status).toBe(403);
      expect(reply.body.code).toBe('FORBIDDEN');
      expect(reply.body.message).toContain('npm run -s admin -- key create');
      expect(reply.body.message).not.toContain('settings page');
    },
  );

  it('stores only a hash of each key', async () => {
    const rows = await stack.sql<
      { key_hash: string; key_prefix: string }[]
    >`SELECT key_hash, key_prefix FROM api_keys WHERE id = ${org.keyId}`;
    expect(rows[0].key_hash).not.toContain(org.apiKey);
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await stack.sql`SELECT * FROM api_keys`)).not.toContain(org.apiKey);
  });
});
