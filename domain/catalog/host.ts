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
