import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../../db/accounts.js';
import { getRun } from '../../../db/evalRuns.js';
import { createIngestStore } from '../../../db/ingestStore.js';
import { hashUploadToken, UPLOAD_URL_TTL_MS } from '../../../domain/ingest/uploads.js';
import type { Principal } from '../../../domain/principal.js';
import { createUploadUrl } from '../../../domain/useCases/ingest/createUploadUrl.js';
import { uploadArtifact, type UploadBlob } from '../../../domain/useCases/ingest/uploadArtifact.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { seedOrganization, type SeededOrganization } from '../../helpers/seed.js';

// The upload stories (domain/useCases/ingest): minting an upload URL and uploading to it, run without HTTP.

const artifact = (name: string) => readFileSync(new URL(`../../fixtures/artifacts/${name}`, import.meta.url));

const principalOf = (org: SeededOrganization, keyId = org.keyId): Principal => ({
  keyId,
  userId: org.userId,
  organizationId: org.organizationId,
  orgRole: 'owner',
});

describe('ingest use cases: upload URLs and uploads', () => {
  let db: TestDatabase;
  let org: SeededOrganization;
  let other: SeededOrganization;
  let principal: Principal;
  let mint: ReturnType<typeof createUploadUrl>;
  let upload: ReturnType<typeof uploadArtifact>;
  const none = { format: null, suiteName: null, externalRunId: null };

  /** A blob handed over when asked for; `reads` counts how often the body was read. */
  const body = (content: Buffer | string, contentType: string | null = 'application/xml') => {
    const blob = {
      reads: 0,
      receive: async (): Promise<UploadBlob> => ({ content: Buffer.from(content), contentType }),
    };
    const receive = blob.receive;
    blob.receive = async () => {
      blob.reads++;
      return await receive();
    };
    return blob;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    org = await seedOrganization(db.sql);
    other = await seedOrganization(db.sql);
    principal = principalOf(org);
    const ingest = createIngestStore(db.sql);
    mint = createUploadUrl({ ingest });
    upload = uploadArtifact({ ingest });
  });
  afterAll(async () => db?.drop());

  it('createUploadUrl answers a 43-character token, stores only its hash, and refuses other organizations projects', async () => {
    const before = Date.now();
    const { token, expiresAt } = await mint({ principal, projectId: org.projectId, ...none });
    expect(token).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(expiresAt.getTime()).toBeGreaterThan(before + UPLOAD_URL_TTL_MS - 60_000);
    const [row] =
      await db.sql`SELECT token_hash, created_by_key_id FROM ingest_artifacts WHERE project_id = ${org.projectId}`;
    expect(row).toEqual({ token_hash: hashUploadToken(token), created_by_key_id: org.keyId });
    await expect(mint({ principal, projectId: other.projectId, ...none })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'project not found',
    });
  });

  it('uploadArtifact stores a blob once; the same bytes again replay the reply, other bytes are refused', async () => {
    const { token } = await mint({ principal, projectId: org.projectId, ...none });
    const first = body('any blob');
    const stored = await upload({ token, receive: first.receive });
    expect(stored).toEqual({ kind: 'stored', reply: { ok: true, storageId: expect.stringMatching(/^art_/) } });
    expect(first.reads).toBe(1);
    expect(await upload({ token, receive: body('any blob').receive })).toEqual(stored);
    expect(await upload({ token, receive: body('other bytes').receive })).toEqual({
      kind: 'used',
      usedAt: expect.any(Date),
    });
  });

  it('uploadArtifact parses a slot with a format into a finalized run; the same artifact again is the same run', async () => {
    const junit = artifact('vitest-junit.xml');
    const { token } = await mint({
      principal,
      projectId: org.projectId,
      ...none,
      format: 'junit-xml',
      suiteName: 'CI',
    });
    const outcome = await upload({ token, receive: body(junit).receive });
    expect(outcome).toMatchObject({ kind: 'stored', reply: { ok: true, status: 'completed', result: 'failed' } });
    const reply = (outcome as { reply: { runId: string; suiteId: string } }).reply;
    expect(await getRun(db.sql, reply.runId)).toMatchObject({
      projectId: org.projectId,
      framework: 'junit',
      status: 'completed',
      externalRunId: expect.stringMatching(/^artifact:sha256:/),
    });
    const again = await mint({ principal, projectId: org.projectId, ...none, format: 'junit-xml', suiteName: 'CI' });
    expect(await upload({ token: again.token, receive: body(junit).receive })).toMatchObject({
      kind: 'stored',
      reply: { runId: reply.runId, suiteId: reply.suiteId, reused: true },
    });
  });

  it('an artifact that cannot be read leaves the URL unused, so a fixed file can be sent to it', async () => {
    const { token } = await mint({ principal, projectId: org.projectId, ...none, format: 'jest-json' });
    await expect(upload({ token, receive: body('not json').receive })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    expect(await upload({ token, receive: body(artifact('jest.json')).receive })).toMatchObject({
      kind: 'stored',
      reply: { ok: true, status: 'completed' },
    });
  });

  it('uploadArtifact refuses, before reading the body, a URL never minted, one expired and one whose key was revoked', async () => {
    const unread = body('never read');
    expect(await upload({ token: 'x'.repeat(43), receive: unread.receive })).toEqual({ kind: 'unknown' });

    const expiring = await mint({ principal, projectId: org.projectId, ...none });
    await db.sql`UPDATE ingest_artifacts SET expires_at = now() - interval '1 second' WHERE token_hash = ${hashUploadToken(expiring.token)}`;
    expect(await upload({ token: expiring.token, receive: unread.receive })).toEqual({
      kind: 'expired',
      expiredAt: expect.any(Date),
    });

    const key = await createApiKey(db.sql, { name: 'ci', organizationId: org.organizationId, userId: org.userId });
    const revoking = await mint({ principal: principalOf(org, key.id), projectId: org.projectId, ...none });
    await revokeApiKey(db.sql, key.key);
    expect(await upload({ token: revoking.token, receive: unread.receive })).toEqual({ kind: 'revoked' });
    expect(unread.reads).toBe(0);
  });
});
