/**
 * The "client command" the MCP conformance suite runs for each client scenario: `adapter.ts <scenario server URL>`,
 * with MCP_CONFORMANCE_SCENARIO (and, for some, MCP_CONFORMANCE_CONTEXT) set. It runs on the suite's Node 22, which
 * strips the types itself (so: erasable TypeScript only, and no runtime imports but Node's own; type-only imports vanish).
 * It never speaks MCP: it saves the URL as a server in the test's Runway stack (the operator's part, through the
 * test's operator endpoint, which writes with the admin CLI's db module) and drives everything else through
 * Runway's HTTP API. Every API call and what it answered is written to the report the test reads; the process
 * exits 1 when any answer was not the expected one.
 *
 * Environment (set by the test): RUNWAY_CONFORMANCE_API (…/api/v1), RUNWAY_CONFORMANCE_API_KEY,
 * RUNWAY_CONFORMANCE_PROJECT, RUNWAY_CONFORMANCE_OPERATOR (the operator endpoint), RUNWAY_CONFORMANCE_REPORTS (a
 * directory).
 */
import type { ClientProfile } from '../../db/servers.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ApiCall {
  step: string;
  path: string;
  request?: unknown;
  status: number;
  body: unknown;
  /** how long the API took to answer */
  ms: number;
  /** what was wrong with the answer; absent when it was the expected one */
  problem?: string;
}

export interface AdapterReport {
  scenario: string;
  /** when the adapter started (after its boot) and wrote this report, epoch ms */
  startedAt: number;
  endedAt: number;
  serverId?: string;
  calls: ApiCall[];
  /** the plan ran to its end with every answer as expected */
  ok: boolean;
  error?: string;
}

/** What the operator saves for a scenario (the fields of `server create`). */
export interface OperatorServer {
  url: string;
  useOAuth?: boolean;
  oauthGrant?: 'caller' | 'client_credentials';
  oauthClientId?: string;
  clientSecret?: string;
  /** PEM; its algorithm is the key's usual one unless signingAlg says otherwise */
  privateKey?: string;
  signingAlg?: string;
  oauthScopes?: string[];
  /** what Runway's client declares to the server and how it answers its requests (`server client-profile`) */
  clientProfile?: ClientProfile;
}

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the adapter runs under test/conformance/client-scenarios.test.ts`);
  return value;
};

/** A check of an answer's body: a problem in words, or undefined. */
type Expect = (body: any) => string | undefined;

const has = (expected: string, actual: unknown) =>
  actual === expected ? undefined : `expected ${expected}, got ${JSON.stringify(actual)}`;

class Runway {
  readonly calls: ApiCall[] = [];
  serverId = '';
  readonly #api: string;
  readonly #key: string;
  readonly #project: string;

  constructor(api: string, key: string, project: string) {
    this.#api = api;
    this.#key = key;
    this.#project = project;
  }

  /** One API call on the saved server; a status or body that is not the expected one stops the plan. */
  async op(step: string, suffix: string, request: unknown, status: number, expect?: Expect): Promise<any> {
    const path = `/projects/${this.#project}/servers/${this.serverId}/${suffix}`;
    const started = Date.now();
    const response = await fetch(this.#api + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.#key}`, 'content-type': 'application/json' },
      body: JSON.stringify(request ?? {}),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text
    }
    const problem = response.status !== status ? `expected HTTP ${status}, got ${response.status}` : expect?.(body);
    this.calls.push({
      step,
      path,
      ...(request !== undefined ? { request } : {}),
      status: response.status,
      body,
      ms: Date.now() - started,
      ...(problem ? { problem } : {}),
    });
    if (problem) throw new Error(`${step}: ${problem}`);
    return body;
  }
}

/** What the scenario gives the adapter: the URL, and the context of MCP_CONFORMANCE_CONTEXT. */
interface Target {
  url: string;
  context: Record<string, string>;
  save(server: OperatorServer): Promise<void>;
}

type Plan = (runway: Runway, target: Target) => Promise<void>;

/**
 * A grant whose access token has expired, as a caller that completed the browser flow a while ago imports it (the
 * scenarios' authorization servers take any refresh token). Without `client`, Runway refreshes it as the client the
 * operator saved with the server.
 */
const expiredGrant = (url: string, client?: { clientId: string; clientSecret?: string }) => ({
  serverUrl: url,
  tokens: {
    access_token: 'expired-access-token',
    refresh_token: 'refresh-token-from-the-browser-flow',
    expires_in: 0,
    token_type: 'Bearer',
  },
  ...(client ? { clientInformation: client } : {}),
});

const toolNamed =
  (name: string): Expect =>
  (body) =>
    body?.items?.some((t: { name: string }) => t.name === name)
      ? undefined
      : `no tool ${name} in ${JSON.stringify(body)}`;
const text =
  (expected: string): Expect =>
  (body) =>
    has(expected, body?.content?.[0]?.text);

/** The OAuth metadata and refresh scenarios: doctor discovers, an expired grant is imported, a call refreshes it. */
const discoverAndRefresh =
  (client: { clientId: string; clientSecret?: string }): Plan =>
  async (runway, { url, save }) => {
    await save({ url, useOAuth: true });
    await runway.op('doctor', 'doctor', {}, 200, (body) =>
      body.status === 'oauth_required' && body.oauth?.required && body.oauth.authorizationServerMetadataUrl
        ? undefined
        : `not oauth_required with the metadata found: ${JSON.stringify(body.oauth)}`,
    );
    await runway.op('import-tokens', 'oauth/import-tokens', expiredGrant(url, client), 200);
    await runway.op('tools', 'tools', {}, 200, toolNamed('test-tool'));
    await runway.op('tools/call', 'tools/call', { toolName: 'test-tool', parameters: {} }, 200, text('test'));
    await runway.op('check-oauth', 'check-oauth', {}, 200, (body) =>
      body.tokens?.lastRefreshAt && body.tokens.lastError === null
        ? undefined
        : `not refreshed cleanly: ${JSON.stringify(body.tokens)}`,
    );
  };

/** A machine-to-machine server: saved with the scenario's client; no import, Runway gets its own token. */
const machineToMachine =
  (client: (context: Record<string, string>) => Partial<OperatorServer>): Plan =>
  async (runway, { url, context, save }) => {
    await save({
      url,
      useOAuth: true,
      oauthGrant: 'client_credentials',
      oauthClientId: context.client_id,
      ...client(context),
    });
    await runway.op('check-oauth (before)', 'check-oauth', {}, 200, (body) =>
      body.tokenSource === 'client_credentials' && body.tokens === null ? undefined : JSON.stringify(body),
    );
    await runway.op('tools', 'tools', {}, 200, toolNamed('test-tool'));
    await runway.op('tools/call', 'tools/call', { toolName: 'test-tool', parameters: {} }, 200, text('test'));
    await runway.op('check-oauth (after)', 'check-oauth', {}, 200, (body) =>
      body.tokens?.imported === false && body.tokens.lastError === null && body.tokens.expiresAt > Date.now()
        ? undefined
        : JSON.stringify(body.tokens),
    );
    await runway.op('doctor', 'doctor', {}, 200, (body) => has('ready', body.status));
  };

const PLANS: Record<string, Plan> = {
  initialize: async (runway, { url, save }) => {
    await save({ url });
    await runway.op('validate', 'validate', {}, 200, (body) =>
      body.initInfo?.serverInfo?.name === 'test-server' ? undefined : JSON.stringify(body.initInfo),
    );
    await runway.op('doctor', 'doctor', {}, 200, (body) => has('ready', body.status));
    await runway.op('check-oauth', 'check-oauth', {}, 200, (body) => has('false', String(body.useOAuth)));
  },

  tools_call: async (runway, { url, save }) => {
    await save({ url });
    await runway.op('tools', 'tools', {}, 200, toolNamed('add_numbers'));
    await runway.op(
      'tools/call',
      'tools/call',
      { toolName: 'add_numbers', parameters: { a: 5, b: 3 } },
      200,
      text('The sum of 5 and 3 is 8'),
    );
    await runway.op('doctor', 'doctor', {}, 200, (body) => has('ready', body.status));
  },

  'elicitation-sep1034-client-defaults': async (runway, { url, save }) => {
    // An operator declares form elicitation for the server, answered with the schema's defaults (SEP-1034).
    await save({ url, clientProfile: { elicitation: { answer: { mode: 'defaults' } } } });
    await runway.op(
      'tools/call',
      'tools/call',
      { toolName: 'test_client_elicitation_defaults', parameters: {} },
      200,
      (body) =>
        String(body?.content?.[0]?.text).startsWith('Elicitation completed')
          ? undefined
          : `the tool says: ${JSON.stringify(body?.content)}`,
    );
  },

  'sse-retry': async (runway, { url, save }) => {
    await save({ url });
    await runway.op('tools', 'tools', {}, 200, toolNamed('test_reconnection'));
    await runway.op(
      'tools/call',
      'tools/call',
      { toolName: 'test_reconnection', parameters: {} },
      200,
      text('Reconnection test completed successfully'),
    );
  },

  'auth/metadata-default': discoverAndRefresh({ clientId: 'runway-conformance' }),
  'auth/metadata-var1': discoverAndRefresh({ clientId: 'runway-conformance' }),
  'auth/metadata-var2': discoverAndRefresh({ clientId: 'runway-conformance' }),
  'auth/metadata-var3': discoverAndRefresh({ clientId: 'runway-conformance' }),
  'auth/2025-03-26-oauth-metadata-backcompat': discoverAndRefresh({
    clientId: 'runway-conformance',
    clientSecret: 'caller-secret',
  }),
  'auth/2025-03-26-oauth-endpoint-fallback': async (runway, { url, save }) => {
    // No metadata anywhere: doctor finds nothing to report but the 401; refresh falls back to the server's /token.
    await save({ url, useOAuth: true });
    await runway.op('doctor', 'doctor', {}, 200, (body) => has('oauth_required', body.status));
    await runway.op(
      'import-tokens',
      'oauth/import-tokens',
      expiredGrant(url, { clientId: 'runway-conformance', clientSecret: 'caller-secret' }),
      200,
    );
    await runway.op('tools', 'tools', {}, 200, toolNamed('test-tool'));
    await runway.op('check-oauth', 'check-oauth', {}, 200, (body) =>
      body.tokens?.lastRefreshAt && body.tokens.lastError === null ? undefined : JSON.stringify(body.tokens),
    );
  },
  'auth/token-endpoint-auth-basic': discoverAndRefresh({
    clientId: 'runway-conformance',
    clientSecret: 'caller-secret',
  }),
  'auth/token-endpoint-auth-post': discoverAndRefresh({
    clientId: 'runway-conformance',
    clientSecret: 'caller-secret',
  }),
  'auth/token-endpoint-auth-none': discoverAndRefresh({ clientId: 'runway-conformance' }),

  'auth/pre-registration': async (runway, { url, context, save }) => {
    // The operator saved the pre-registered client; the caller's grant comes without a client of its own.
    await save({ url, useOAuth: true, oauthClientId: context.client_id, clientSecret: context.client_secret });
    await runway.op('doctor', 'doctor', {}, 200, (body) =>
      body.status === 'oauth_required' && JSON.stringify(body.oauth?.registrationStrategies) === '["preregistered"]'
        ? undefined
        : JSON.stringify(body.oauth),
    );
    await runway.op('import-tokens', 'oauth/import-tokens', expiredGrant(url), 200);
    await runway.op('tools', 'tools', {}, 200, toolNamed('test-tool'));
    await runway.op('check-oauth', 'check-oauth', {}, 200, (body) =>
      body.tokens?.lastRefreshAt && body.tokens.lastError === null ? undefined : JSON.stringify(body.tokens),
    );
  },

  'auth/resource-mismatch': async (runway, { url, save }) => {
    // The protected-resource metadata is about another resource: no authorization server of it is trusted.
    await save({ url, useOAuth: true, oauthClientId: 'runway-conformance', clientSecret: 'operator-secret' });
    await runway.op('doctor', 'doctor', {}, 200, (body) => has('oauth_required', body.status));
    const grant = expiredGrant(url, { clientId: 'runway-conformance' });
    await runway.op(
      'import-tokens (claiming its authorization server)',
      'oauth/import-tokens',
      { ...grant, authorizationServerUrl: new URL('/', url).origin },
      400,
      (body) =>
        body.details?.reason === 'AUTHORIZATION_SERVER_UNVERIFIED' && body.details.discovery === 'resource_mismatch'
          ? undefined
          : JSON.stringify(body),
    );
    await runway.op('import-tokens', 'oauth/import-tokens', grant, 200);
    // Its refresh is refused before anything is sent, and the expired token goes nowhere.
    await runway.op('tools', 'tools', {}, 401, (body) =>
      body.code === 'OAUTH_REQUIRED' &&
      body.details?.reason === 'TOKEN_EXPIRED' &&
      body.details.lastError === 'resource_mismatch'
        ? undefined
        : JSON.stringify(body),
    );
    await runway.op('check-oauth', 'check-oauth', {}, 200, (body) => has('resource_mismatch', body.tokens?.lastError));
  },

  'auth/scope-step-up': async (runway, { url, save }) => {
    await save({ url, useOAuth: true });
    await runway.op('import-tokens', 'oauth/import-tokens', expiredGrant(url, { clientId: 'runway-conformance' }), 200);
    // The refreshed token carries no scope: the server asks for mcp:basic, then for mcp:write on tools/call.
    await runway.op('tools', 'tools', {}, 401, (body) =>
      body.code === 'OAUTH_REQUIRED' &&
      body.details?.reason === 'INSUFFICIENT_SCOPE' &&
      body.details.scope === 'mcp:basic'
        ? undefined
        : JSON.stringify(body),
    );
  },

  'auth/client-credentials-basic': machineToMachine((context) => ({ clientSecret: context.client_secret })),
  'auth/client-credentials-jwt': machineToMachine((context) => ({
    privateKey: context.private_key_pem,
    signingAlg: context.signing_algorithm,
  })),
};

async function main(): Promise<void> {
  const url = process.argv.at(-1) ?? '';
  const scenario = env('MCP_CONFORMANCE_SCENARIO');
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>;
  const runway = new Runway(
    env('RUNWAY_CONFORMANCE_API'),
    env('RUNWAY_CONFORMANCE_API_KEY'),
    env('RUNWAY_CONFORMANCE_PROJECT'),
  );
  const started = Date.now();
  const report: AdapterReport = { scenario, startedAt: started, endedAt: 0, calls: runway.calls, ok: false };
  const save = async (server: OperatorServer) => {
    const response = await fetch(env('RUNWAY_CONFORMANCE_OPERATOR'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scenario, ...server }),
    });
    if (!response.ok) throw new Error(`saving the server failed: HTTP ${response.status} ${await response.text()}`);
    runway.serverId = report.serverId = ((await response.json()) as { id: string }).id;
  };
  try {
    const plan = PLANS[scenario];
    if (!plan) throw new Error(`no plan for scenario ${scenario}`);
    await plan(runway, { url, context, save });
    report.ok = true;
  } catch (error) {
    report.error = error instanceof Error ? error.message : String(error);
  }
  report.endedAt = Date.now();
  writeFileSync(
    join(env('RUNWAY_CONFORMANCE_REPORTS'), `${scenario.replaceAll('/', '_')}.json`),
    JSON.stringify(report, null, 2),
  );
  process.exitCode = report.ok ? 0 : 1;
}

await main();
