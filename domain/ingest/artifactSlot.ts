/** The test-framework reports an upload may hold (domain/ingest/artifacts reads each). */
export type ArtifactFormat = 'junit-xml' | 'jest-json' | 'vitest-json';

/**
 * An upload slot, as an upload URL names it by its token's hash, and, once used, what was uploaded (the blob itself
 * is never read back). db/ingestArtifacts.ts maps its row to it.
 */
export interface ArtifactSlot {
  id: string;
  organizationId: string;
  projectId: string;
  /** with a format, the upload is parsed into a finalized run; null: the blob is only stored */
  format: ArtifactFormat | null;
  suiteName: string | null;
  /** the run the artifact becomes, as the URL's minter named it; null: named after the content */
  externalRunId: string | null;
  expiresAt: Date;
  usedAt: Date | null;
  createdByKeyId: string | null;
  contentSha256: string | null;
  /** the reply the upload got (an UploadReply, domain/ingest/uploads.ts), replayed to a client sending the same bytes */
  reply: Record<string, unknown> | null;
  /** past expiresAt, by the database's clock */
  expired: boolean;
  /** the key that minted the URL can still act for its organization: not revoked, its owner still a member */
  mintingKeyUsable: boolean;
}
