import { createHash } from 'node:crypto';
import {
  findUploadSlot,
  hashUploadToken,
  ingestArtifact,
  readArtifact,
  refusalOf,
  type UploadOutcome,
  type UploadReply,
} from '../../ingest/uploads.js';
import type { IngestStore } from '../../ports/ingestStore.js';
import type { RunEnded } from '../../ports/runEnded.js';
import { collectRunEndings } from '../../ingest/runs.js';

/** The uploaded bytes, read only once the token proved to name a slot that takes them. */
export interface UploadBlob {
  content: Buffer;
  contentType: string | null;
}

/**
 * An upload to a minted URL. No key: the token is the capability. The slot is looked up before `receive` reads a
 * byte of the body; a URL never minted, expired, revoked or already used is refused (its UploadRefusal). The blob
 * is stored and, when the slot was opened with a format, ingested as a finalized run, in one transaction: an
 * artifact that cannot be read leaves the URL unused, so a fixed file can be sent to it again. The artifact is
 * read (and held to the bound on its tests) before the transaction opens, so parsing holds no connection. The
 * same bytes sent again (a client retrying a reply it lost) get the first reply back.
 */
export function uploadArtifact(deps: { ingest: IngestStore; runEnded?: RunEnded }) {
  return async function uploadArtifact(input: {
    token: string;
    receive: () => Promise<UploadBlob>;
  }): Promise<UploadOutcome> {
    const { ingest } = deps;
    const found = await findUploadSlot(ingest, input.token);
    if (found.kind !== 'slot') return found;
    const blob = await input.receive();
    const tokenHash = hashUploadToken(input.token);
    const sha256 = createHash('sha256').update(blob.content).digest('hex');
    if (found.slot.usedAt) return refusalOf(found.slot, sha256);
    const artifact = found.slot.format ? readArtifact(found.slot.format, blob.content) : undefined;
    const endings = collectRunEndings();
    const reply = await ingest.transaction(async (tx) => {
      const slot = await tx.claimSlot(tokenHash, { ...blob, sha256 });
      if (!slot) return undefined;
      const ingested =
        slot.format && artifact
          ? await ingestArtifact(tx, slot, slot.format, artifact, blob.content, endings.collect)
          : undefined;
      const stored: UploadReply = { ok: true, storageId: slot.id, ...ingested };
      await tx.recordReply(slot.id, { runId: ingested?.runId ?? null, reply: stored });
      return stored;
    });
    await endings.told(deps.runEnded);
    if (reply) return { kind: 'stored', reply };
    // Another upload, the expiry or a revocation came first: say which.
    return refusalOf(await ingest.slot(tokenHash), sha256);
  };
}

export type UploadArtifact = ReturnType<typeof uploadArtifact>;
