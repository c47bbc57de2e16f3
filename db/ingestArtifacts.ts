import type { Db, Tx } from './connection.js';
import { newId } from '../domain/ids.js';
import { camelRow, type Camel, type RowIsNoun, type Same } from './rows.js';
import type { ArtifactFormat, ArtifactSlot } from '../domain/ingest/artifactSlot.js';
import type { NewArtifactSlot } from '../domain/ports/ingestStore.js';

/** The domain's report formats (domain/ingest/artifactSlot.ts), for the modules that still import them from here. */
export type { ArtifactFormat };

/** An upload slot and, once used, what was uploaded (the blob itself is never read back here). */
export interface ArtifactRow {
  id: string;
  organization_id: string;
  project_id: string;
  format: ArtifactFormat | null;
  suite_name: string | null;
  /** the run the artifact becomes, as the URL's minter named it; null: named after the content */
  external_run_id: string | null;
  expires_at: Date;
  used_at: Date | null;
  created_by_key_id: string | null;
  content_sha256: string | null;
  reply: Record<string, unknown> | null;
  /** past expires_at, by the database's clock */
  expired: boolean;
  /** the key that minted the URL can still act for its organization: not revoked, its owner still a member */
  minting_key_usable: boolean;
}

/** The row as the domain's ArtifactSlot (domain/ingest/artifactSlot.ts): a column and its field go together. */
type _ArtifactSlotIsRow = RowIsNoun<Same<Camel<ArtifactRow>, ArtifactSlot>>;

/** The URL is the minting key's capability, delegated: it lapses with the key (revoked, or its owner gone). */
const mintingKeyUsable = (sql: Db) => sql`EXISTS (
  SELECT FROM api_keys k JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.user_id
  WHERE k.id = ingest_artifacts.created_by_key_id AND k.organization_id = ingest_artifacts.organization_id AND k.revoked_at IS NULL)`;

const columns = (sql: Db) =>
  sql`id, organization_id, project_id, format, suite_name, external_run_id, expires_at, used_at, created_by_key_id, content_sha256, reply,
      expires_at <= now() AS expired, ${mintingKeyUsable(sql)} AS minting_key_usable`;

/**
 * A slot an upload URL points at. Only the token's hash is stored: the database alone cannot mint a usable URL.
 * Expiry uses the database clock, like the check in claimArtifactSlot.
 */
export async function createArtifactSlot(sql: Db, input: NewArtifactSlot): Promise<ArtifactSlot> {
  const [row] = await sql<ArtifactRow[]>`
    INSERT INTO ingest_artifacts (id, organization_id, project_id, token_hash, format, suite_name, external_run_id, expires_at, created_by_key_id)
    VALUES (${newId('art')}, ${input.organizationId}, ${input.projectId}, ${input.tokenHash}, ${input.format}, ${input.suiteName}, ${input.externalRunId},
            now() + ${input.ttlMs} * interval '1 millisecond', ${input.createdByKeyId})
    RETURNING ${columns(sql)}`;
  return camelRow(row);
}

/**
 * Stores the blob in an unused, unexpired slot whose minting key is still usable and marks it used, in one
 * statement. Two concurrent uploads to one URL meet on the row lock: the second re-checks `used_at` after the
 * first commits and claims nothing.
 */
export async function claimArtifactSlot(
  tx: Tx,
  tokenHash: string,
  blob: { content: Buffer; contentType: string | null; sha256: string },
): Promise<ArtifactSlot | undefined> {
  const [row] = await tx<ArtifactRow[]>`
    UPDATE ingest_artifacts
    SET used_at = now(), content = ${blob.content}, content_type = ${blob.contentType}, content_sha256 = ${blob.sha256}
    WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > now() AND ${mintingKeyUsable(tx)}
    RETURNING ${columns(tx)}`;
  return camelRow(row);
}

export async function findArtifactSlot(sql: Db, tokenHash: string): Promise<ArtifactSlot | undefined> {
  const [row] = await sql<ArtifactRow[]>`SELECT ${columns(sql)} FROM ingest_artifacts WHERE token_hash = ${tokenHash}`;
  return camelRow(row);
}

/** The reply the upload got (replayed to a client that retries with the same bytes) and the run it became. */
export async function recordArtifactReply(
  tx: Tx,
  artifactId: string,
  outcome: { runId: string | null; reply: object },
): Promise<void> {
  await tx`UPDATE ingest_artifacts SET run_id = ${outcome.runId}, reply = ${tx.json(outcome.reply as never)} WHERE id = ${artifactId}`;
}
