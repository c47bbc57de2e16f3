import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids.js';
import { checkArtifactResults } from '../limits.js';
import type { IngestStore } from '../ports/ingestStore.js';
import type { ArtifactFormat, ArtifactSlot } from './artifactSlot.js';
import { artifactSource, parseArtifact, type Artifact } from './artifacts/index.js';
import { reportRun, runOutcome } from './runs.js';
import type { RunEnded } from '../ports/runEnded.js';

/** How long an upload URL stays usable: long enough for a CI step, short enough that a leaked one soon dies. */
export const UPLOAD_URL_TTL_MS = 15 * 60 * 1000;

/** 256 bits of randomness: the token is the whole capability, so it must not be guessable. */
const TOKEN_LENGTH = 43;

export const hashUploadToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A fresh upload token: the caller stores only its hash (hashUploadToken) and turns the token into a URL. */
export const newUploadToken = () => randomBase62(TOKEN_LENGTH);

/** Why a URL takes no upload. */
export type UploadRefusal =
  /** no slot has this token: forged, mistyped or truncated */
  | { kind: 'unknown' }
  /** the key that minted it was revoked since, or its owner left the organization */
  | { kind: 'revoked' }
  | { kind: 'expired'; expiredAt: Date }
  /** used before, for other content */
  | { kind: 'used'; usedAt: Date };

/** What an upload answers, and replays to a client that sends the same bytes again. */
export type UploadReply = { ok: true; storageId: string } & Partial<Awaited<ReturnType<typeof ingestArtifact>>>;

export type UploadOutcome = { kind: 'stored'; reply: UploadReply } | UploadRefusal;

/**
 * The slot a token names, looked up before a byte of the body is read, or why the URL takes no upload. A used
 * slot is returned too: whether the upload is a retry of the same bytes depends on the body.
 */
export async function findUploadSlot(
  slots: Pick<IngestStore, 'slot'>,
  token: string,
): Promise<{ kind: 'slot'; slot: ArtifactSlot } | UploadRefusal> {
  const slot = await slots.slot(hashUploadToken(token));
  if (!slot) return { kind: 'unknown' };
  if (!slot.mintingKeyUsable) return { kind: 'revoked' };
  if (!slot.usedAt && slot.expired) return { kind: 'expired', expiredAt: slot.expiresAt };
  return { kind: 'slot', slot };
}

/** Why a slot takes no upload; a used one replays its reply to the bytes it took (`sha256`, once the body is read). */
export function refusalOf(slot: ArtifactSlot | undefined, sha256?: string): UploadOutcome {
  if (!slot) return { kind: 'unknown' };
  if (!slot.mintingKeyUsable) return { kind: 'revoked' };
  // The stored reply is the UploadReply uploadArtifact (domain/useCases/ingest) recorded.
  if (slot.usedAt)
    return slot.contentSha256 === sha256 && slot.reply
      ? { kind: 'stored', reply: slot.reply as UploadReply }
      : { kind: 'used', usedAt: slot.usedAt };
  return { kind: 'expired', expiredAt: slot.expiresAt };
}

/** The results of an artifact, within the bound on what one upload may hold; else a VALIDATION_ERROR. */
export function readArtifact(format: ArtifactFormat, content: Buffer): Artifact {
  const artifact = parseArtifact(format, content);
  checkArtifactResults(artifact.results.length, format);
  return artifact;
}

/**
 * The run an upload becomes, unless the URL named one: the same bytes, in the same format, for the same suite
 * name, are the same run (a CI step run again, or a report uploaded twice). A different suite name is another
 * run on purpose.
 */
export function artifactRunId(slot: Pick<ArtifactSlot, 'format' | 'suiteName'>, content: Buffer): string {
  const digest = createHash('sha256')
    .update(`${slot.format ?? ''}\u0000${slot.suiteName ?? ''}\u0000`)
    .update(content)
    .digest('hex');
  return `artifact:sha256:${digest}`;
}

/** The run an artifact becomes (reportRun, in the caller's transaction), and what its upload answers about it. */
export async function ingestArtifact(
  tx: IngestStore,
  slot: ArtifactSlot,
  format: ArtifactFormat,
  artifact: Artifact,
  content: Buffer,
  runEnded?: RunEnded,
) {
  const externalRunId = slot.externalRunId ?? artifactRunId(slot, content);
  const existing = await tx.runByExternalId(slot.projectId, externalRunId);
  const run = await reportRun(
    tx,
    {
      projectId: slot.projectId,
      organizationId: slot.organizationId,
      keyId: slot.createdByKeyId,
      suiteName: slot.suiteName ?? artifact.suiteName ?? artifactSource[format].suiteName,
      externalRunId,
      framework: artifactSource[format].framework,
    },
    artifact.results,
    runEnded,
  );
  const reused = existing !== undefined && existing.status !== 'running';
  return { ...runOutcome(run), skipped: artifact.results.filter((r) => r.skipped).length, ...(reused && { reused }) };
}
