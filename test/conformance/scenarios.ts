/**
 * Every client scenario of the MCP conformance suite (`@modelcontextprotocol/conformance` 0.2.0-alpha.12), at every
 * protocol revision the suite runs it at, and where Runway stands there. The suite starts a scenario server for the
 * revision and runs test/conformance/adapter.ts against it; the adapter saves the scenario's URL as a server and
 * does everything else through Runway's HTTP API.
 *
 * Revisions (`at`): the scenario's revisions among TESTED (`conformance list --client` tags each scenario). An
 * extension scenario is off the suite's timeline, and its requirement sets run it at each revision, so it runs at
 * both; a scenario of an older revision only (2025-03-26 backwards compatibility) runs at that one. The test checks
 * that `at` names exactly these.
 *
 * - `passes`: every check of the suite passes and every API call the adapter makes answers as it should.
 * - `waits`: an expected failure until the named work is done; flip it to `passes` then. Its test passes only while
 *   the scenario fails with the named symptom (any other failure fails it); one that passes already is reported in
 *   the test's summary ("passes now").
 * - `notApplicable`: nothing in the scenario is Runway's to do (see the reason); not run.
 *
 * `callerChecks`: the scenario as a whole needs the caller's browser flow (dynamic registration, the authorization
 * request, PKCE), which in Runway's design happens outside Runway: the caller completes it and imports the tokens.
 * Those checks are not applicable; every other check of the scenario (discovery, the token request Runway makes
 * when it refreshes, the resource parameter, ...) is Runway's and must pass.
 */

import type { ApiCall } from './adapter.js';

/** The protocol revisions Runway is tested at: the initialize handshake, and the stateless lifecycle. */
export const TESTED = ['2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof TESTED)[number] | '2025-03-26';

/** What a run of a scenario showed: the adapter's API calls and the suite's checks (but the caller's). */
export interface ObservedRun {
  calls: ApiCall[];
  checks: { id: string; status: string }[];
}

export type ScenarioStatus =
  | { kind: 'passes' }
  | { kind: 'waits'; items: string[]; reason: string; symptom: (run: ObservedRun) => boolean }
  | { kind: 'notApplicable'; reason: string };

export interface ClientScenario {
  /** each revision the suite runs the scenario at, and where Runway stands there */
  at: Partial<Record<Revision, ScenarioStatus>>;
  callerChecks?: { ids: string[]; reason: string };
}

/** The revisions the suite runs a scenario at, from its tags in `conformance list --client`. */
export function revisionsOf(tags: string[]): Revision[] {
  if (tags.includes('extension')) return [...TESTED];
  const tested = TESTED.filter((revision) => tags.includes(revision));
  return tested.length > 0 ? tested : (tags as Revision[]);
}

const passes: ScenarioStatus = { kind: 'passes' };

const notApplicable = (reason: string): ClientScenario => ({
  at: { '2025-11-25': { kind: 'notApplicable', reason }, '2026-07-28': { kind: 'notApplicable', reason } },
});
const only2026NotApplicable = (reason: string): ClientScenario => ({
  at: { '2026-07-28': { kind: 'notApplicable', reason } },
});

const BROWSER_FLOW =
  "the caller's browser flow (dynamic client registration and the authorization request); Runway receives its result through import-tokens";
const browserFlow = (ids: string[]) => ({ ids, reason: BROWSER_FLOW });
/** What the discovery scenarios check of the authorization request. */
const AUTHORIZATION_REQUEST = ['client-registration', 'authorization-request', 'resource-parameter-in-authorization'];
const ISS = `its only check is how the client treats the iss parameter of the authorization response (RFC 9207), which ${BROWSER_FLOW}`;

export const CLIENT_SCENARIOS: Record<string, ClientScenario> = {
  initialize: { at: { '2025-11-25': passes } },
  tools_call: {
    at: {
      '2025-11-25': passes,
      '2026-07-28': passes,
    },
  },
  'elicitation-sep1034-client-defaults': { at: { '2025-11-25': passes } },
  'sse-retry': { at: { '2025-11-25': passes } },
  'json-schema-2020-12-preservation': {
    at: {
      '2025-11-25': passes,
      '2026-07-28': passes,
    },
  },

  // The 2026-07-28 lifecycle (SEP-2575), multi-round-trip requests (SEP-2322), HTTP headers (SEP-2243), schemas.
  'request-metadata': {
    at: {
      '2026-07-28': passes,
    },
  },
  'sep-2322-client-request-state': {
    at: {
      '2026-07-28': passes,
    },
  },
  'http-standard-headers': {
    at: {
      '2026-07-28': passes,
    },
  },
  'http-custom-headers': {
    at: {
      '2026-07-28': passes,
    },
  },
  'http-invalid-tool-headers': {
    at: {
      '2026-07-28': passes,
    },
  },
  // Its server answers the 2025 handshake too, so Runway's client lists the tool today.
  'json-schema-ref-no-deref': { at: { '2026-07-28': passes } },

  // OAuth discovery (doctor) and refresh (Runway's own token requests). The adapter imports an expired grant, as a
  // caller that completed the browser flow earlier would, so the first call makes Runway refresh it.
  'auth/metadata-default': {
    at: { '2025-11-25': passes, '2026-07-28': passes },
    callerChecks: browserFlow(AUTHORIZATION_REQUEST),
  },
  'auth/metadata-var1': {
    at: { '2025-11-25': passes, '2026-07-28': passes },
    callerChecks: browserFlow(AUTHORIZATION_REQUEST),
  },
  'auth/metadata-var2': {
    at: { '2025-11-25': passes, '2026-07-28': passes },
    callerChecks: browserFlow(AUTHORIZATION_REQUEST),
  },
  'auth/metadata-var3': {
    at: { '2025-11-25': passes, '2026-07-28': passes },
    callerChecks: browserFlow(AUTHORIZATION_REQUEST),
  },
  'auth/2025-03-26-oauth-metadata-backcompat': {
    at: { '2025-03-26': passes },
    callerChecks: browserFlow(['client-registration', 'authorization-request']),
  },
  'auth/2025-03-26-oauth-endpoint-fallback': {
    at: { '2025-03-26': passes },
    callerChecks: browserFlow(['client-registration', 'authorization-request']),
  },
  'auth/token-endpoint-auth-basic': {
    at: { '2025-11-25': passes, '2026-07-28': passes },
    callerChecks: browserFlow(['resource-parameter-in-authorization']),
  },
  'auth/token-endpoint-auth-post': {
    at: { '2025-11-25': passes, '2026-07-28': passes },
    callerChecks: browserFlow(['resource-parameter-in-authorization']),
  },
  'auth/token-endpoint-auth-none': {
    at: { '2025-11-25': passes, '2026-07-28': passes },
    callerChecks: browserFlow(['resource-parameter-in-authorization']),
  },
  'auth/pre-registration': { at: { '2025-11-25': passes, '2026-07-28': passes } },
  // Refused before any MCP request: nothing of it depends on the lifecycle.
  'auth/resource-mismatch': { at: { '2026-07-28': passes } },
  'auth/scope-step-up': {
    at: {
      '2025-11-25': passes,
      '2026-07-28': passes,
    },
    callerChecks: browserFlow(['scope-step-up-initial', 'scope-step-up-escalation', 'sep-2350-scope-union-on-reauth']),
  },
  'auth/authorization-server-migration': {
    at: {
      '2026-07-28': passes,
    },
    callerChecks: browserFlow(['sep-2352-reregister-on-as-change']),
  },
  // Metadata naming another issuer (RFC 8414 §3.3) is not used: no refresh there, and the call is OAUTH_REQUIRED.
  'auth/metadata-issuer-mismatch': { at: { '2026-07-28': passes } },

  // Machine to machine (issue 19 item 7): Runway obtains the tokens itself.
  'auth/client-credentials-basic': { at: { '2025-11-25': passes, '2026-07-28': passes } },
  'auth/client-credentials-jwt': { at: { '2025-11-25': passes, '2026-07-28': passes } },

  // Only the caller's browser flow.
  'auth/basic-cimd': notApplicable(
    `its only check is the client id of the authorization request (Client ID Metadata Documents): ${BROWSER_FLOW}`,
  ),
  'auth/scope-from-www-authenticate': notApplicable(
    `its only check is the scope of the authorization request: ${BROWSER_FLOW}`,
  ),
  'auth/scope-from-scopes-supported': notApplicable(
    `its only check is the scope of the authorization request: ${BROWSER_FLOW}`,
  ),
  'auth/scope-omitted-when-undefined': notApplicable(
    `its only check is the scope of the authorization request: ${BROWSER_FLOW}`,
  ),
  'auth/scope-retry-limit': notApplicable(
    `its only check counts the caller's repeated authorization requests after 403 insufficient_scope: ${BROWSER_FLOW}`,
  ),
  'auth/offline-access-scope': only2026NotApplicable(
    `its checks are the scope of the authorization request and the client's registration metadata: ${BROWSER_FLOW}`,
  ),
  'auth/offline-access-not-supported': only2026NotApplicable(
    `its only check is the scope of the authorization request: ${BROWSER_FLOW}`,
  ),
  'auth/iss-supported': only2026NotApplicable(ISS),
  'auth/iss-not-advertised': only2026NotApplicable(ISS),
  'auth/iss-supported-missing': only2026NotApplicable(ISS),
  'auth/iss-wrong-issuer': only2026NotApplicable(ISS),
  'auth/iss-unexpected': only2026NotApplicable(ISS),
  'auth/iss-normalized': only2026NotApplicable(ISS),

  // Extensions Runway does not offer.
  'auth/enterprise-managed-authorization': notApplicable(
    "enterprise-managed authorization (SEP-990) exchanges a signed-in user's ID token from their identity provider: a user's grant, which Runway does not hold",
  ),
  'auth/dpop': notApplicable(
    "DPoP (SEP-1932) binds the access token to a key of the client that made the authorization code exchange, the caller's browser flow; import-tokens takes Bearer tokens and no proof key, so Runway has no bound token to present",
  ),
  'auth/dpop-nonce': notApplicable(
    "DPoP with server nonces (SEP-1932): the token is bound to the key of the caller's browser flow, as in auth/dpop",
  ),
  'auth/wif-jwt-bearer': notApplicable(
    "workload identity federation (SEP-1933): the client trades a JWT its own platform issued it for a token; Runway's machine-to-machine servers use client_credentials, and it has no workload identity of its own",
  ),
  'sep-2640-client-no-prefetch': notApplicable(
    "the skills extension (SEP-2640): when to load a skill and read its files is the host's (an agent's) decision; Runway reads a resource only when its caller asks, and has no skills/list",
  ),
  'sep-2640-client-verify-digest': notApplicable(
    "the skills extension (SEP-2640): verifying a loaded skill's files is the host's part; Runway loads no skills",
  ),
  'sep-2640-client-verify-size': notApplicable(
    "the skills extension (SEP-2640): verifying a loaded skill's files is the host's part; Runway loads no skills",
  ),
  'sep-2640-client-verify-frontmatter': notApplicable(
    "the skills extension (SEP-2640): verifying a loaded skill's files is the host's part; Runway loads no skills",
  ),
};
