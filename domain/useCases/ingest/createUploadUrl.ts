import type { Db } from '../../../db/connection.js';
import { createArtifactSlot, type ArtifactFormat } from '../../../db/ingestArtifacts.js';
import { createCatalogStore } from '../../../db/catalogStore.js';
import { requireProject } from '../../access/project.js';
import { hashUploadToken, newUploadToken, UPLOAD_URL_TTL_MS } from '../../ingest/uploads.js';
import type { Principal } from '../../principal.js';

/**
 * Opens a single-use upload slot in a project the caller may see: the token it answers is the whole capability
 * (the caller turns it into a URL), valid for UPLOAD_URL_TTL_MS, once, while the minting key is. Only the token's
 * hash is stored.
 */
export function createUploadUrl(deps: { sql: Db }) {
  return async function createUploadUrl(input: {
    principal: Principal;
    projectId: string;
    /** with a format, the upload is parsed into a finalized run */
    format: ArtifactFormat | null;
    suiteName: string | null;
    externalRunId: string | null;
  }): Promise<{ token: string; expiresAt: Date }> {
    const { sql } = deps;
    const project = await requireProject(createCatalogStore(sql), input.principal, input.projectId);
    const token = newUploadToken();
    const slot = await createArtifactSlot(sql, {
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
