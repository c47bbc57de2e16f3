/**
 * Every client scenario of the MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16) and where Runway
 * stands on it. The suite starts a scenario server and runs test/conformance/adapter.ts against it; the adapter
 * saves the scenario's URL as a server and does everything else through Runway's HTTP API.
 *
 * - `passes`: every check of the suite passes and every API call the adapter makes answers as it should.
 * - `waits`: an expected failure until the named work is done; flip it to `passes` then. Its test passes only while
 *   the scenario fails with the named symptom (any other failure fails it); one that passes already is reported in
 *   the test's summary ("passes now"). No scenario waits today.
 * - `notApplicable`: nothing in the scenario is Runway's to do (see the reason); not run.
 *
 * `callerChecks`: the scenario as a whole needs the caller's browser flow (dynamic registration, the authorization
 * request, PKCE), which in Runway's design happens outside Runway: the caller completes it and imports the tokens.
 * Those checks are not applicable; every other check of the scenario (discovery, the token request Runway makes
 * when it refreshes, the resource parameter, ...) is Runway's and must pass.
 */

import type { ApiCall } from './adapter.js';

/** What a run of a scenario showed: the adapter's API calls and the suite's checks. */
export interface ObservedRun {
  calls: ApiCall[];
  checks: { id: string; status: string }[];
}

export type ScenarioStatus =
  | { kind: 'passes' }
  | { kind: 'waits'; items: string[]; reason: string; symptom: (run: ObservedRun) => boolean }
  | { kind: 'notApplicable'; reason: string };

export interface ClientScenario {
  status: ScenarioStatus;
  callerChecks?: { ids: string[]; reason: string };
}

const passes: ScenarioStatus = { kind: 'passes' };

const BROWSER_FLOW =
  "the caller's browser flow (dynamic client registration and the authorization request); Runway receives its result through import-tokens";
const browserFlow = (ids: string[]) => ({ ids, reason: BROWSER_FLOW });

export const CLIENT_SCENARIOS: Record<string, ClientScenario> = {
  initialize: { status: passes },
  tools_call: { status: passes },
  'elicitation-sep1034-client-defaults': { status: passes },
  'sse-retry': { status: passes },

  // OAuth discovery (doctor) and refresh (Runway's own token requests). The adapter imports an expired grant, as a
  // caller that completed the browser flow earlier would, so the first call makes Runway refresh it.
  'auth/metadata-default': {
    status: passes,
    callerChecks: browserFlow(['client-registration', 'authorization-request']),
  },
  'auth/metadata-var1': { status: passes, callerChecks: browserFlow(['client-registration', 'authorization-request']) },
  'auth/metadata-var2': { status: passes, callerChecks: browserFlow(['client-registration', 'authorization-request']) },
  'auth/metadata-var3': { status: passes, callerChecks: browserFlow(['client-registration', 'authorization-request']) },
  'auth/2025-03-26-oauth-metadata-backcompat': {
    status: passes,
    callerChecks: browserFlow(['client-registration', 'authorization-request']),
  },
  'auth/2025-03-26-oauth-endpoint-fallback': {
    status: passes,
    callerChecks: browserFlow(['client-registration', 'authorization-request']),
  },
  'auth/token-endpoint-auth-basic': {
    status: passes,
    callerChecks: browserFlow(['resource-parameter-in-authorization']),
  },
  'auth/token-endpoint-auth-post': {
    status: passes,
    callerChecks: browserFlow(['resource-parameter-in-authorization']),
  },
  'auth/token-endpoint-auth-none': {
    status: passes,
    callerChecks: browserFlow(['resource-parameter-in-authorization']),
  },
  'auth/pre-registration': { status: passes },
  'auth/resource-mismatch': { status: passes },
  'auth/scope-step-up': {
    status: passes,
    callerChecks: browserFlow(['scope-step-up-initial', 'scope-step-up-escalation']),
  },

  // Machine to machine (issue 19 item 7): Runway obtains the tokens itself.
  'auth/client-credentials-basic': { status: passes },
  'auth/client-credentials-jwt': { status: passes },

  'auth/basic-cimd': {
    status: {
      kind: 'notApplicable',
      reason: `its only check is the client id of the authorization request (Client ID Metadata Documents): ${BROWSER_FLOW}`,
    },
  },
  'auth/scope-from-www-authenticate': {
    status: {
      kind: 'notApplicable',
      reason: `its only check is the scope of the authorization request: ${BROWSER_FLOW}`,
    },
  },
  'auth/scope-from-scopes-supported': {
    status: {
      kind: 'notApplicable',
      reason: `its only check is the scope of the authorization request: ${BROWSER_FLOW}`,
    },
  },
  'auth/scope-omitted-when-undefined': {
    status: {
      kind: 'notApplicable',
      reason: `its only check is the scope of the authorization request: ${BROWSER_FLOW}`,
    },
  },
  'auth/scope-retry-limit': {
    status: {
      kind: 'notApplicable',
      reason: `its only check counts the caller's repeated authorization requests after 403 insufficient_scope: ${BROWSER_FLOW}`,
    },
  },
  'auth/offline-access-scope': {
    status: {
      kind: 'notApplicable',
      reason: `its checks are the scope of the authorization request and the client's registration metadata: ${BROWSER_FLOW}`,
    },
  },
  'auth/offline-access-not-supported': {
    status: {
      kind: 'notApplicable',
      reason: `its only check is the scope of the authorization request: ${BROWSER_FLOW}`,
    },
  },
  'auth/cross-app-access-complete-flow': {
    status: {
      kind: 'notApplicable',
      reason:
        "enterprise-managed authorization (SEP-990) exchanges a signed-in user's ID token from their identity provider: a user's grant, which Runway does not hold",
    },
  },
};
