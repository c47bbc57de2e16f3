/** A host config (v2, or one saved before v2): an open object, stored as the caller gave it. */
export type HostConfig = Record<string, unknown>;

/** A config as a caller gives it, once the edge checked the members Runway reads (api/schemas/hosts.ts). */
export type GivenHostConfig = HostConfig & { serverIds?: string[] };

/**
 * A host (a model plus client capability profiles) as callers see it: header values in
 * `config.connectionDefaults.headers` read as the redaction marker, their values sealed apart (db/hosts.ts).
 */
export interface Host {
  id: string;
  projectId: string;
  name: string;
  /** the built-in template it was created from, if any */
  template: string | null;
  config: HostConfig;
  createdAt: Date;
  updatedAt: Date;
}

/** What a header value reads as, and what a caller sends back to keep the stored value. */
export const REDACTED = '[redacted]';

/**
 * A config gave the marker for headers with no stored value to keep: the caller must give those values. Raised by the
 * host store (domain/ports/hostStore.ts), which alone reads the stored values; a use case refuses the request.
 */
export class HeadersWithoutValueError extends Error {
  override name = 'HeadersWithoutValueError';
  constructor(readonly names: string[]) {
    super(
      `"${REDACTED}" keeps a header's stored value, and ${names.join(', ')} ${names.length > 1 ? 'have' : 'has'} none; give the value`,
    );
  }
}
