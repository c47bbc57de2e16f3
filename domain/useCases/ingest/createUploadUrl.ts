import { requireProject } from '../../access/project.js';
import type { ArtifactFormat } from '../../ingest/artifactSlot.js';
import { hashUploadToken, newUploadToken, UPLOAD_URL_TTL_MS } from '../../ingest/uploads.js';
import type { IngestStore } from '../../ports/ingestStore.js';
import type { Principal } from '../../principal.js';

/**
 * Opens a single-use upload slot in a project the caller may see: the token it answers is the whole capability
 * (the caller turns it into a URL), valid for UPLOAD_URL_TTL_MS, once, while the minting key is. Only the token's
 * hash is stored.
 */
export function createUploadUrl(deps: { ingest: Pick<IngestStore, 'visibleProject' | 'openSlot'> }) {
  return async function createUploadUrl(input: {
    principal: Principal;
    projectId: string;
    /** with a format, the upload is parsed into a finalized run */
    format: ArtifactFormat | null;
    suiteName: string | null;
    externalRunId: string | null;
  }): Promise<{ token: string; expiresAt: Date }> {
    const { ingest } = deps;
    const project = await requireProject(ingest, input.principal, input.projectId);
    const token = newUploadToken();
    const slot = await ingest.openSlot({
      organizationId: project.organizationId,
      projectId: project.id,
      tokenHash: hashUploadToken(token),
      format: input.format,
      suiteName: input.suiteName,
      externalRunId: input.externalRunId,
      ttlMs: UPLOAD_URL_TTL_MS,
      createdByKeyId: input.principal.keyId,
    });
    return { token, expiresAt: slot.expiresAt };
  };
}

export type CreateUploadUrl = ReturnType<typeof createUploadUrl>;
