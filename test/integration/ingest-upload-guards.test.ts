import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, removeMembership, revokeApiKey } from '../../db/accounts.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const artifact = (name: string) => readFileSync(new URL(`../fixtures/artifacts/${name}`, import.meta.url));

/** Sends raw bytes to an upload URL the way a CI step would: no key, any content type. */
async function upload(url: string, body: Buffer | string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream', ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as any };
}

/**
 * Starts an upload whose body never ends: a first chunk goes out and the request stays open. Resolves with the
 * reply, so a reply at all proves the service answered without waiting for (or reading) the rest of the body.
 */
function uploadThatNeverEnds(url: string, headers: Record<string, string>, firstChunk: Buffer) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: any }>((resolve, reject) => {
    const req = request(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked', ...headers },
    });
    // Once the service answers and closes the connection, writing more fails; that is expected.
    req.on('error', () => {});
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
        req.destroy();
      });
    });
    req.flushHeaders();
    req.write(firstChunk);
  });
}

/** 7 MiB of zeros: 7 KB on the wire with gzip, more than the 6 MiB an upload may hold once inflated. */
const inflatesPastTheLimit = gzipSync(Buffer.alloc(7 * 1024 * 1024));

describe('eval ingest: what an upload URL costs before it proves to be one', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
  });
  afterAll(async () => stack?.stop());

  const forged = () => `${stack.origin}/api/v1/eval-ingest/uploads?token=${'x'.repeat(43)}`;
  const mint = async (body: Record<string, unknown> = {}, key = org.apiKey) => {
    const reply = await apiClient(stack.baseUrl, key)(
      'POST',
      `/projects/${org.projectId}/eval-ingest/artifacts/upload-url`,
      body,
    );
    expect(reply.status).toBe(200);
    return reply.body.uploadUrl as string;
  };
  const storedUploads = async () =>
    (await stack.sql`SELECT count(*)::int AS n FROM ingest_artifacts WHERE used_at IS NOT NULL`)[0].n as number;

  it('a forged URL is answered 404 before a byte of its body is read: a body that never ends still gets its reply', async () => {
    expect(inflatesPastTheLimit.length).toBeLessThan(10_000);
    const reply = await uploadThatNeverEnds(forged(), {}, Buffer.alloc(64 * 1024, 'a'));
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({
      code: 'NOT_FOUND',
      error: expect.stringContaining('never issued'),
      details: { reason: 'UPLOAD_URL_UNKNOWN' },
    });
    // The unread body is not kept streaming in: the service closes the connection.
    expect(reply.headers.connection).toBe('close');
  }, 20_000);

  it('a forged URL with a body past the size limit is 404, not 400 BODY_TOO_LARGE: its body was never read', async () => {
    const reply = await upload(forged(), Buffer.alloc(6 * 1024 * 1024 + 1, 'a'));
    expect(reply).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND', details: { reason: 'UPLOAD_URL_UNKNOWN' } },
    });
  });

  it('an expired URL is answered 403 without reading its body', async () => {
    const url = await mint({ format: 'junit-xml' });
    await stack.sql`UPDATE ingest_artifacts SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`;
    const reply = await uploadThatNeverEnds(url, {}, Buffer.from('<testsuites>'));
    expect(reply).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN', details: { reason: 'UPLOAD_URL_EXPIRED' } },
    });
  }, 20_000);

  it.each(['gzip', 'deflate', 'br', 'GZIP', 'gzip, identity', 'x-anything'])(
    'Content-Encoding %s is refused with 400 CONTENT_ENCODING_NOT_ACCEPTED before the body is read; the URL stays usable',
    async (encoding) => {
      const url = await mint({ format: 'jest-json', suiteName: `Encoded ${encoding}` });
      const before = await storedUploads();
      const reply = await upload(url, gzipSync(artifact('jest.json')), { 'content-encoding': encoding });
      expect(reply).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_ERROR',
          error: expect.stringContaining('Content-Encoding'),
          details: { reason: 'CONTENT_ENCODING_NOT_ACCEPTED', contentEncoding: encoding },
        },
      });
      expect(await storedUploads()).toBe(before);
      expect((await upload(url, artifact('jest.json'), { 'content-encoding': 'identity' })).status).toBe(200);
    },
  );

  it('a gzip body that would inflate past the limit is never inflated, to a forged URL or a real one, even when it never ends', async () => {
    for (const url of [forged(), await mint()]) {
      const whole = await upload(url, inflatesPastTheLimit, { 'content-encoding': 'gzip' });
      expect(whole).toMatchObject({ status: 400, body: { details: { reason: 'CONTENT_ENCODING_NOT_ACCEPTED' } } });
      const endless = await uploadThatNeverEnds(url, { 'content-encoding': 'gzip' }, inflatesPastTheLimit);
      expect(endless).toMatchObject({ status: 400, body: { details: { reason: 'CONTENT_ENCODING_NOT_ACCEPTED' } } });
    }
  }, 30_000);

  it('an upload whose minting key was revoked since is refused (403 UPLOAD_URL_REVOKED) before its body is read; nothing is stored', async () => {
    const key = await createApiKey(stack.sql, { name: 'ci', organizationId: org.organizationId, userId: org.userId });
    const url = await mint({ format: 'junit-xml', suiteName: 'Revoked key' }, key.key);
    await revokeApiKey(stack.sql, key.id);
    const before = await storedUploads();
    const reply = await upload(url, artifact('pytest-junit.xml'));
    expect(reply).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN', error: expect.stringContaining('revoked'), details: { reason: 'UPLOAD_URL_REVOKED' } },
    });
    const endless = await uploadThatNeverEnds(url, {}, Buffer.from('<testsuites>'));
    expect(endless).toMatchObject({ status: 403, body: { details: { reason: 'UPLOAD_URL_REVOKED' } } });
    expect(await storedUploads()).toBe(before);
    const runs =
      await stack.sql`SELECT r.id FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id WHERE s.name = 'Revoked key'`;
    expect(runs).toHaveLength(0);
  }, 20_000);

  it('so is one whose minting key no longer acts for the organization (its owner left it)', async () => {
    const other = await seedOrganization(stack.sql);
    const minted = await apiClient(stack.baseUrl, other.apiKey)(
      'POST',
      '/projects/default/eval-ingest/artifacts/upload-url',
      {},
    );
    await removeMembership(stack.sql, other.organizationId, other.userId);
    const reply = await upload(minted.body.uploadUrl, 'blob');
    expect(reply).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN', details: { reason: 'UPLOAD_URL_REVOKED' } },
    });
  });

  it('an upload URL of a live key still works, and sending the same bytes again still gets the first reply', async () => {
    const url = await mint({ format: 'jest-json', suiteName: 'Live key' });
    const first = await upload(url, artifact('jest.json'));
    expect(first.status).toBe(200);
    expect(await upload(url, artifact('jest.json'))).toEqual(first);
    expect((await upload(url, 'other bytes')).status).toBe(409);
    expect((await call('GET', `/projects/${org.projectId}/eval-runs/${first.body.runId}`)).body.status).toBe(
      'completed',
    );
  });
});
