import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonicalJson.js';
import type { ClientCapabilities } from '@modelcontextprotocol/client';

/** A value of an accepted elicitation form (MCP ElicitResult content). */
export type ElicitationValue = string | number | boolean | string[];

/**
 * How Runway answers a server's elicitation/create request: accept with this content, decline, cancel, or accept
 * the form's defaults (SEP-1034) with `content` filling in or overriding fields.
 */
export type ElicitationAnswer =
  | { action: 'accept'; content: Record<string, ElicitationValue> }
  | { action: 'decline' | 'cancel' }
  | { mode: 'defaults'; content?: Record<string, ElicitationValue> };

/** A root the client exposes (MCP roots/list). */
export interface ClientRoot {
  uri: string;
  name?: string;
}

/**
 * What Runway's MCP client declares to a server, and how it answers the requests the server sends it. A feature is
 * declared exactly when its key is present.
 */
export interface ClientProfile {
  /** who the client says it is in `initialize` (a suite's host); absent: Runway's own clientInfo */
  clientInfo?: { name: string; version: string; title?: string };
  /** form mode; `url` also declares URL mode (whose requests are declined); `answer` defaults to decline */
  elicitation?: { answer?: ElicitationAnswer; url?: boolean };
  /** sampling requests of a server operation are declined; in an eval run, the run's model answers them */
  sampling?: Record<string, never>;
  /** what roots/list answers */
  roots?: ClientRoot[];
}

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
 * The profile an operation needs: an operation that brings its own elicitation answers (a tools/call body, a test
 * case's script) declares elicitation, so the server may ask, whatever the profile says.
 */
export function profileFor(
  profile: ClientProfile,
  answers: { elicitation?: ElicitationAnswer; elicit?: { declares: boolean } } | undefined,
): ClientProfile {
  const ownAnswers = answers?.elicitation !== undefined || answers?.elicit?.declares === true;
  return ownAnswers && !profile.elicitation ? { ...profile, elicitation: {} } : profile;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * The identity a host config gives its client: `mcpProfile.initialize.clientInfo` (host config v2), else the
 * top-level `clientInfo` of configs saved before v2. Only `name`, `version` and `title` are taken (what MCP's
 * `Implementation` needs and shows); without a name and a version, Runway introduces itself as itself.
 */
function hostClientInfo(config: Record<string, unknown> | undefined): ClientProfile['clientInfo'] {
  const given = record(record(record(config?.mcpProfile)?.initialize)?.clientInfo) ?? record(config?.clientInfo);
  if (!given || !nonEmptyString(given.name) || !nonEmptyString(given.version)) return undefined;
  return { name: given.name, version: given.version, ...(nonEmptyString(given.title) ? { title: given.title } : {}) };
}

/**
 * The client profile of a host config: its identity (above) and the MCP client capabilities in top-level
 * `clientCapabilities` (the same place in v2 and before); the roots to list are the config's top-level `roots`
 * (Runway's own key). Roots are declared when either names them; only form (and URL) elicitation and plain sampling
 * are taken, as that is what Runway answers (no sampling tools or context, no tasks). The protocol revisions a host
 * offers (`mcpProfile.initialize.supportedProtocolVersions`) are not: the MCP SDK always offers its newest one.
 */
export function hostClientProfile(config: unknown): ClientProfile {
  const host = record(config);
  const capabilities = record(host?.clientCapabilities) ?? {};
  const listed = host?.roots;
  const roots = Array.isArray(listed)
    ? listed.filter((root): root is ClientRoot => typeof record(root)?.uri === 'string')
    : undefined;
  const elicitation = record(capabilities.elicitation);
  const clientInfo = hostClientInfo(host);
  return {
    ...(clientInfo ? { clientInfo } : {}),
    ...(elicitation ? { elicitation: elicitation.url !== undefined ? { url: true } : {} } : {}),
    ...(record(capabilities.sampling) ? { sampling: {} } : {}),
    ...(roots || record(capabilities.roots)
      ? { roots: (roots ?? []).map((r) => ({ uri: r.uri, ...(typeof r.name === 'string' ? { name: r.name } : {}) })) }
      : {}),
  };
}
