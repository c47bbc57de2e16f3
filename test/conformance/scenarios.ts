/**
 * Every client scenario of the MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16) and where Runway
 * stands on it. The suite starts a scenario server and runs test/conformance/adapter.ts against it; the adapter
 * saves the scenario's URL as a server and does everything else through Runway's HTTP API.
 *
 * - `passes`: every check of the suite passes and every API call the adapter makes answers as it should.
 * - `waits`: an expected failure until the named items of issue 19 are merged; flip it to `passes` then. Its test
 *   passes only while the scenario fails with the named symptom (any other failure fails it). One that passes
 *   already is reported in the test's summary ("passes now"); it is not a failure, because the closed-session race
 *   of item 1 lets a scenario through now and then.
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

const BROWSER_FLOW = "the caller's browser flow (dynamic client registration and the authorization request); Runway receives its result through import-tokens";
const browserFlow = (ids: string[]) => ({ ids, reason: BROWSER_FLOW });

/** Issue 19's items other branches are fixing; a scenario waiting on one names it. */
const ITEM_1 = 'issue 19 item 1 (a 404 on the optional GET event stream must not end the session)';
const ITEM_2 = 'issue 19 item 2 (SSE stream resumption: the retry field and Last-Event-ID, SEP-1699)';
const ITEM_3 = 'issue 19 item 3 (elicitation, with the accept-with-defaults policy of SEP-1034)';
const ITEM_6 = 'issue 19 item 6 (403 insufficient_scope answered 401 OAUTH_REQUIRED with reason INSUFFICIENT_SCOPE and the scope)';

const reason = (call: ApiCall) => (call.body as { details?: { reason?: string } } | null)?.details?.reason;
/** Item 1's symptom: a call came back 502 CONNECTION_CLOSED (the scenario server answers its GET stream 404). */
const closedSession = (run: ObservedRun) => run.calls.some((call) => call.status === 502 && reason(call) === 'CONNECTION_CLOSED');
/** The scenario's servers answer POST only (GET 404): Runway closes the session under the calls. */
const waitsForItem1 = (why = 'the scenario server answers POST only (GET 404), so Runway closes the session and the calls fail with 502 CONNECTION_CLOSED'): ScenarioStatus => ({
  kind: 'waits',
  items: [ITEM_1],
  reason: why,
  symptom: closedSession,
});

export const CLIENT_SCENARIOS: Record<string, ClientScenario> = {
  initialize: { status: passes },
  tools_call: { status: waitsForItem1() },
  'elicitation-sep1034-client-defaults': {
    status: {
      kind: 'waits',
      items: [ITEM_3],
      reason: 'Runway declares no elicitation capability yet, so the tool reports that elicitation failed; once the policy exists, the adapter saves the server with accept-with-defaults',
      symptom: (run) => run.calls.some((call) => /^Elicitation (error|was not accepted)/.test(String((call.body as { content?: { text?: string }[] }).content?.[0]?.text))),
    },
  },
  'sse-retry': {
    status: {
      kind: 'waits',
      items: [ITEM_2],
      reason: 'the tools/call response stream is closed after its priming event; without resumption the call fails with 502',
      symptom: (run) => run.calls.some((call) => call.step === 'tools/call' && call.status === 502),
    },
  },

  // OAuth discovery (doctor) and refresh (Runway's own token requests). The adapter imports an expired grant, as a
  // caller that completed the browser flow earlier would, so the first call makes Runway refresh it.
  'auth/metadata-default': { status: waitsForItem1(), callerChecks: browserFlow(['client-registration', 'authorization-request']) },
  'auth/metadata-var1': { status: waitsForItem1(), callerChecks: browserFlow(['client-registration', 'authorization-request']) },
  'auth/metadata-var2': { status: waitsForItem1(), callerChecks: browserFlow(['client-registration', 'authorization-request']) },
  'auth/metadata-var3': { status: waitsForItem1(), callerChecks: browserFlow(['client-registration', 'authorization-request']) },
  'auth/2025-03-26-oauth-metadata-backcompat': { status: waitsForItem1(), callerChecks: browserFlow(['client-registration', 'authorization-request']) },
  'auth/2025-03-26-oauth-endpoint-fallback': { status: waitsForItem1(), callerChecks: browserFlow(['client-registration', 'authorization-request']) },
  'auth/token-endpoint-auth-basic': { status: waitsForItem1(), callerChecks: browserFlow(['resource-parameter-in-authorization']) },
  'auth/token-endpoint-auth-post': { status: waitsForItem1(), callerChecks: browserFlow(['resource-parameter-in-authorization']) },
  'auth/token-endpoint-auth-none': { status: waitsForItem1(), callerChecks: browserFlow(['resource-parameter-in-authorization']) },
  'auth/pre-registration': { status: waitsForItem1() },
  'auth/resource-mismatch': { status: passes },
  'auth/scope-step-up': {
    status: {
      kind: 'waits',
      items: [ITEM_1, ITEM_6],
      reason: "the server's 403 insufficient_scope comes back as 502 (or the session closes first, item 1); the caller cannot learn which scope to step up to",
      symptom: (run) => run.calls.some((call) => call.step === 'tools' && call.status === 502),
    },
    callerChecks: browserFlow(['scope-step-up-initial', 'scope-step-up-escalation']),
  },

  // Machine to machine (issue 19 item 7): Runway obtains the tokens itself. Both pass once item 1 is in.
  'auth/client-credentials-basic': { status: waitsForItem1() },
  'auth/client-credentials-jwt': { status: waitsForItem1() },

  'auth/basic-cimd': {
    status: { kind: 'notApplicable', reason: `its only check is the client id of the authorization request (Client ID Metadata Documents): ${BROWSER_FLOW}` },
  },
  'auth/scope-from-www-authenticate': {
    status: { kind: 'notApplicable', reason: `its only check is the scope of the authorization request: ${BROWSER_FLOW}` },
  },
  'auth/scope-from-scopes-supported': {
    status: { kind: 'notApplicable', reason: `its only check is the scope of the authorization request: ${BROWSER_FLOW}` },
  },
  'auth/scope-omitted-when-undefined': {
    status: { kind: 'notApplicable', reason: `its only check is the scope of the authorization request: ${BROWSER_FLOW}` },
  },
  'auth/scope-retry-limit': {
    status: { kind: 'notApplicable', reason: `its only check counts the caller's repeated authorization requests after 403 insufficient_scope: ${BROWSER_FLOW}` },
  },
  'auth/offline-access-scope': {
    status: { kind: 'notApplicable', reason: `its checks are the scope of the authorization request and the client's registration metadata: ${BROWSER_FLOW}` },
  },
  'auth/offline-access-not-supported': {
    status: { kind: 'notApplicable', reason: `its only check is the scope of the authorization request: ${BROWSER_FLOW}` },
  },
  'auth/cross-app-access-complete-flow': {
    status: {
      kind: 'notApplicable',
      reason: "enterprise-managed authorization (SEP-990) exchanges a signed-in user's ID token from their identity provider: a user's grant, which Runway does not hold",
    },
  },
};
