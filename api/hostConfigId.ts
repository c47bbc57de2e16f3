import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/canonicalJson.js';

/**
 * A host config's content address (`hostConfigId`): `hcfg_` + base64url(SHA-256(canonical JSON of the config)),
 * where the config is the one the API returns, header values redacted, and canonical JSON is RFC 8785 (sorted
 * keys, no whitespace). Equal configs get equal ids, whatever host holds them and whatever key order they were
 * sent in, and a client can recompute the id from a host it read. Header values never enter the hash, so none can
 * be recovered from an id by trying candidates; a change to a header value alone keeps the id.
 */
export function hostConfigId(visibleConfig: unknown): string {
  return `hcfg_${createHash('sha256').update(canonicalJson(visibleConfig)).digest('base64url')}`;
}
