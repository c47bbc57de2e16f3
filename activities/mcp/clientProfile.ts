import { createHash } from 'node:crypto';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ClientProfile, ClientRoot, ElicitationAnswer } from '../../db/servers.js';

export type { ClientProfile, ClientRoot, ElicitationAnswer } from '../../db/servers.js';

/** What the client declares in `initialize` for a profile: each feature exactly when the profile has it. */
export function declaredCapabilities(profile: ClientProfile): ClientCapabilities {
  return {
    ...(profile.elicitation ? { elicitation: { form: {}, ...(profile.elicitation.url ? { url: {} } : {}) } } : {}),
    ...(profile.sampling ? { sampling: {} } : {}),
    // The list never changes during a session: a changed profile is a new session (pool key).
    ...(profile.roots ? { roots: { listChanged: false } } : {}),
  };
}

/** Names a profile in the pool key: a session opened with one profile never serves another. */
export function profileKey(profile: ClientProfile): string {
  const declared = canonicalJson(profile);
  return declared === '{}' ? '-' : createHash('sha256').update(declared).digest('base64url').slice(0, 22);
}

/**
 * The profile an operation needs: an operation that brings its own elicitation answer (a tools/call body, a test
 * case's script) declares elicitation, so the server may ask, whatever the profile says.
 */
export function profileFor(profile: ClientProfile, answers: { elicitation?: ElicitationAnswer } | undefined): ClientProfile {
  return answers?.elicitation && !profile.elicitation ? { ...profile, elicitation: {} } : profile;
}

/**
 * The client profile of a host config. Both the current config and the product's v2 shape hold the MCP client
 * capabilities in top-level `clientCapabilities`; the roots to list are the config's top-level `roots`. Roots are
 * declared when either names them; only form (and URL) elicitation and plain sampling are taken, as that is what
 * Runway answers (no sampling tools or context, no tasks).
 */
export function hostClientProfile(config: unknown): ClientProfile {
  const record = (value: unknown): Record<string, unknown> | undefined =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const capabilities = record(record(config)?.clientCapabilities) ?? {};
  const listed = record(config)?.roots;
  const roots = Array.isArray(listed) ? listed.filter((root): root is ClientRoot => typeof record(root)?.uri === 'string') : undefined;
  const elicitation = record(capabilities.elicitation);
  return {
    ...(elicitation ? { elicitation: elicitation.url !== undefined ? { url: true } : {} } : {}),
    ...(record(capabilities.sampling) ? { sampling: {} } : {}),
    ...(roots || record(capabilities.roots) ? { roots: (roots ?? []).map((r) => ({ uri: r.uri, ...(typeof r.name === 'string' ? { name: r.name } : {}) })) } : {}),
  };
}

/** JSON with object keys sorted, so equal profiles always give the same key. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
