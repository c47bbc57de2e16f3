/**
 * The "client command" the MCP conformance suite runs for each client scenario: `adapter.ts <scenario server URL>`,
 * with MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION (the revision the scenario runs at: 2025-11-25
 * and before use the initialize handshake, 2026-07-28 the stateless lifecycle) and, for some, MCP_CONFORMANCE_CONTEXT
 * (JSON: credentials, the tool calls to make) set. It runs on the suite's Node 22, which strips the types itself (so:
 * erasable TypeScript only, and no runtime imports but Node's own; type-only imports vanish).
 *
 * It never speaks MCP: it saves the URL as a server in the test's Runway stack (the operator's part, through the
 * test's operator endpoint, which writes with the admin CLI's db module) and drives everything else through
 * Runway's HTTP API, as a caller would. Every API call and what it answered is written to the report the test
 * reads; the process exits 1 when any answer was not the expected one.
 *
 * Environment (set by the test for each run): RUNWAY_CONFORMANCE_API (…/api/v1), RUNWAY_CONFORMANCE_API_KEY,
 * RUNWAY_CONFORMANCE_PROJECT, RUNWAY_CONFORMANCE_OPERATOR (the operator endpoint), RUNWAY_CONFORMANCE_REPORT (the
 * file to write the report to).
 */
import { writeFileSync } from 'node:fs';
import type { ClientProfile } from '../../domain/mcp/clientProfile.js';

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
  /** the protocol revision the suite ran the scenario at */
  revision: string;
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

  /** One API call on the saved server; a status (one of them) or body that is not the expected one stops the plan. */
  async op(step: string, suffix: string, request: unknown, status: number | number[], expect?: Expect): Promise<any> {
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
    const expected = [status].flat();
    const problem = !expected.includes(response.status)
      ? `expected HTTP ${expected.join(' or ')}, got ${response.status}`
      : expect?.(body);
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

  /** tools/call of one tool; its result's first text must be `expected` when given. */
  callTool(name: string, parameters: Record<string, unknown>, expected?: string, elicitation?: unknown) {
    return this.op(
      `tools/call ${name}`,
      'tools/call',
      { toolName: name, parameters, ...(elicitation ? { elicitation } : {}) },
      200,
      expected === undefined ? undefined : text(expected),
    );
  }
}

/** What the scenario gives the adapter: the URL, the revision it runs at, and the context of MCP_CONFORMANCE_CONTEXT. */
interface Target {
  url: string;
  revision: string;
  context: Record<string, unknown>;
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

const names = (body: any): string[] => (body?.items ?? []).map((item: { name: string }) => item.name);
const toolNamed =
  (name: string): Expect =>
  (body) =>
    names(body).includes(name) ? undefined : `no tool ${name} in ${JSON.stringify(body)}`;
const exactly =
  (expected: string[]): Expect =>
  (body) =>
    JSON.stringify(names(body).sort()) === JSON.stringify([...expected].sort())
      ? undefined
      : `expected exactly ${JSON.stringify(expected)}, got ${JSON.stringify(names(body))}`;
const text =
  (expected: string): Expect =>
  (body) =>
    has(expected, body?.content?.[0]?.text);
/** validate reports the revision the scenario runs at as the negotiated one. */
const negotiated =
  (revision: string): Expect =>
  (body) =>
    has(revision, body?.initInfo?.protocolVersion);

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
    await runway.callTool('test-tool', {}, 'test');
    await runway.op('check-oauth', 'check-oauth', {}, 200, (body) =>
      body.tokens?.lastRefreshAt && body.tokens.lastError === null
        ? undefined
        : `not refreshed cleanly: ${JSON.stringify(body.tokens)}`,
    );
  };

/** A machine-to-machine server: saved with the scenario's client; no import, Runway gets its own token. */
const machineToMachine =
  (client: (context: Record<string, unknown>) => Partial<OperatorServer>): Plan =>
  async (runway, { url, context, save }) => {
    await save({
      url,
      useOAuth: true,
      oauthGrant: 'client_credentials',
      oauthClientId: context.client_id as string,
      ...client(context),
    });
    await runway.op('check-oauth (before)', 'check-oauth', {}, 200, (body) =>
      body.tokenSource === 'client_credentials' && body.tokens === null ? undefined : JSON.stringify(body),
    );
    await runway.op('tools', 'tools', {}, 200, toolNamed('test-tool'));
    await runway.callTool('test-tool', {}, 'test');
    await runway.op('check-oauth (after)', 'check-oauth', {}, 200, (body) =>
      body.tokens?.imported === false && body.tokens.lastError === null && body.tokens.expiresAt > Date.now()
        ? undefined
        : JSON.stringify(body.tokens),
    );
    await runway.op('doctor', 'doctor', {}, 200, (body) => has('ready', body.status));
  };

/** A value of each required property of a JSON schema, as a caller filling in a tool's form would send. */
function sampleArguments(schema: any): Record<string, unknown> {
  const sample: Record<string, unknown> = {};
  for (const name of schema?.required ?? []) {
    const type = schema.properties?.[name]?.type;
    sample[name] =
      type === 'string'
        ? 'us-west1'
        : type === 'number' || type === 'integer'
          ? 1
          : type === 'boolean'
            ? true
            : type === 'array'
              ? []
              : type === 'null'
                ? null
                : {};
  }
  return sample;
}

/** The MRTR tools of sep-2322-client-request-state ask for a confirmation before they complete. */
const CONFIRM = { action: 'accept', content: { confirmed: true } };

const PLANS: Record<string, Plan> = {
  initialize: async (runway, { url, save }) => {
    await save({ url });
    await runway.op('validate', 'validate', {}, 200, (body) =>
      body.initInfo?.serverInfo?.name === 'test-server' ? undefined : JSON.stringify(body.initInfo),
    );
    await runway.op('doctor', 'doctor', {}, 200, (body) => has('ready', body.status));
    await runway.op('check-oauth', 'check-oauth', {}, 200, (body) => has('false', String(body.useOAuth)));
  },

  tools_call: async (runway, { url, revision, save }) => {
    await save({ url });
    await runway.op('validate', 'validate', {}, 200, negotiated(revision));
    await runway.op('tools', 'tools', {}, 200, toolNamed('add_numbers'));
    await runway.callTool('add_numbers', { a: 5, b: 3 }, 'The sum of 5 and 3 is 8');
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
    await runway.callTool('test_reconnection', {}, 'Reconnection test completed successfully');
  },

  'json-schema-2020-12-preservation': async (runway, { url, save }) => {
    // The caller hands the focal tool's inputSchema, as Runway listed it, back to the echo tool: what Runway kept.
    await save({ url });
    const tools = await runway.op('tools', 'tools', {}, 200, toolNamed('json_schema_2020_12_tool'));
    const focal = tools.items.find((tool: { name: string }) => tool.name === 'json_schema_2020_12_tool');
    await runway.callTool('json_schema_echo', { schema: focal.inputSchema }, 'echoed');
  },

  'json-schema-ref-no-deref': async (runway, { url, save }) => {
    // Listing, exporting and doctor read the schema with its network $ref; none of them may fetch it.
    await save({ url });
    await runway.op('tools', 'tools', {}, 200, (body) => {
      const tool = body?.items?.find((t: { name: string }) => t.name === 'lookup_user');
      return typeof tool?.inputSchema?.properties?.profile?.$ref === 'string'
        ? undefined
        : `lookup_user without its $ref as sent: ${JSON.stringify(tool)}`;
    });
    await runway.op('export', 'export', {}, 200, (body) =>
      body?.tools?.some((t: { name: string }) => t.name === 'lookup_user') ? undefined : JSON.stringify(body),
    );
    await runway.op('doctor', 'doctor', {}, 200, (body) => has('ready', body.status));
  },

  'request-metadata': async (runway, { url, revision, save }) => {
    // Every capability declared, so the suite sees each in every request's _meta. The suite refuses the first
    // request's version (-32022): Runway's client retries with a supported one. The server declares no
    // capabilities, so there is nothing to list.
    await save({
      url,
      clientProfile: {
        elicitation: { answer: { action: 'decline' } },
        sampling: {},
        roots: [{ uri: 'file:///workspace', name: 'workspace' }],
      },
    });
    await runway.op('validate', 'validate', {}, 200, negotiated(revision));
    await runway.op('doctor', 'doctor', {}, 200, (body) => has('ready', body.status));
  },

  'sep-2322-client-request-state': async (runway, { url, save }) => {
    // Multi-round-trip tool calls (SEP-2322): the server answers input_required with an elicitation; Runway answers
    // it with the call's elicitation and retries. The unrelated call runs alongside, and must carry nothing of it.
    await save({ url });
    await runway.op(
      'tools',
      'tools',
      {},
      200,
      exactly(['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type']),
    );
    await Promise.all([
      runway.callTool('test_mrtr_echo_state', {}, 'echo-state-ok', CONFIRM),
      runway.callTool('test_mrtr_unrelated', {}, 'unrelated-ok'),
    ]);
    await runway.callTool('test_mrtr_no_state', {}, 'no-state-ok', CONFIRM);
    await runway.callTool('test_mrtr_no_result_type', {}, 'no-result-type-test-ok');
  },

  'http-standard-headers': async (runway, { url, save }) => {
    // One request of each method the suite looks at (Mcp-Method), and a name of each kind (Mcp-Name): a hyphen in a
    // tool's name, a percent-encoded and a query-string resource URI.
    await save({ url });
    await runway.op('tools', 'tools', {}, 200, exactly(['test_headers', 'my-hyphenated-tool']));
    await runway.callTool('test_headers', {}, 'Headers test completed');
    await runway.callTool('my-hyphenated-tool', {}, 'Headers test completed');
    const resources = await runway.op('resources', 'resources', {}, 200, (body) =>
      body?.items?.length === 2 ? undefined : JSON.stringify(body),
    );
    for (const { uri } of resources.items as { uri: string }[]) {
      await runway.op(`resources/read ${uri}`, 'resources/read', { uri }, 200);
    }
    await runway.op('prompts', 'prompts', {}, 200, exactly(['test_prompt']));
    await runway.op('prompts/get', 'prompts/get', { promptName: 'test_prompt' }, 200);
  },

  'http-custom-headers': async (runway, { url, context, save }) => {
    // The suite names the calls (its arguments test each encoding of an Mcp-Param header); Runway's client mirrors
    // the x-mcp-header parameters of the tool's inputSchema, so it must know the tool as listed.
    await save({ url });
    await runway.op('tools', 'tools', {}, 200, exactly(['test_custom_headers', 'test_custom_headers_null']));
    const calls = context.toolCalls as { name: string; arguments: Record<string, unknown> }[];
    for (const call of calls) await runway.callTool(call.name, call.arguments, 'Custom headers test completed');
  },

  'http-invalid-tool-headers': async (runway, { url, save }) => {
    // The list is the server's, unchanged (a tester must see its broken tools); every tool is called, as an agent
    // would: a tool whose x-mcp-header declarations break the rules is refused by Runway (never sent), the valid one
    // is called.
    await save({ url });
    const tools = await runway.op('tools', 'tools', {}, 200, toolNamed('valid_tool'));
    for (const tool of tools.items as { name: string; inputSchema: unknown }[]) {
      if (tool.name === 'valid_tool') {
        await runway.callTool(tool.name, sampleArguments(tool.inputSchema), 'Tool call received');
        continue;
      }
      await runway.op(
        `tools/call ${tool.name}`,
        'tools/call',
        { toolName: tool.name, parameters: sampleArguments(tool.inputSchema) },
        502,
        (body) => (body.details?.reason === 'INVALID_TOOL_DEFINITION' ? undefined : JSON.stringify(body)),
      );
    }
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
    await save({
      url,
      useOAuth: true,
      oauthClientId: context.client_id as string,
      clientSecret: context.client_secret as string,
    });
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
    // The refreshed token carries no scope (scopes come from the caller's authorization request): the server
    // refuses tools/list with 403 insufficient_scope, challenging for mcp:write; Runway names it for the caller.
    await runway.op('tools', 'tools', {}, 401, (body) =>
      body.code === 'OAUTH_REQUIRED' &&
      body.details?.reason === 'INSUFFICIENT_SCOPE' &&
      body.details.scope === 'mcp:write'
        ? undefined
        : JSON.stringify(body),
    );
  },

  'auth/metadata-issuer-mismatch': async (runway, { url, save }) => {
    // The authorization server's metadata names another issuer (RFC 8414 §3.3): none of its endpoints may be used,
    // so the imported grant cannot be refreshed, and the caller is told to authorize again.
    await save({ url, useOAuth: true });
    await runway.op('doctor', 'doctor', {}, 200, (body) => has('oauth_required', body.status));
    await runway.op('import-tokens', 'oauth/import-tokens', expiredGrant(url, { clientId: 'runway-conformance' }), 200);
    await runway.op('tools', 'tools', {}, 401, (body) => has('OAUTH_REQUIRED', body.code));
    await runway.op('check-oauth', 'check-oauth', {}, 200, (body) =>
      body.tokens?.lastRefreshAt === null && body.tokens.lastError ? undefined : JSON.stringify(body.tokens),
    );
  },

  'auth/authorization-server-migration': async (runway, { url, save }) => {
    // The caller's grant is from the first authorization server (its client as the suite's first server registers
    // it). After one request with it the server names a second one and refuses that grant: Runway asks for a new
    // grant and never offers the first server's client to the second. The caller authorizes there and imports again.
    // Which call is refused depends on the lifecycle: the initialize handshake needs no token, server/discover does.
    await save({ url, useOAuth: true });
    await runway.op(
      'import-tokens (first authorization server)',
      'oauth/import-tokens',
      expiredGrant(url, { clientId: 'as1-client-id-LEAKED-IF-SEEN-AT-AS2', clientSecret: 'as1-client-secret' }),
      200,
    );
    const refused = (body: any) => has('OAUTH_REQUIRED', body.code);
    const listed = await runway.op('tools', 'tools', {}, [200, 401], (body) =>
      body.code ? refused(body) : toolNamed('test-tool')(body),
    );
    if (!listed.code) {
      await runway.op('tools/call (refused)', 'tools/call', { toolName: 'test-tool', parameters: {} }, 401, refused);
    }
    await runway.op(
      'import-tokens (second authorization server)',
      'oauth/import-tokens',
      expiredGrant(url, { clientId: 'as2-client-id', clientSecret: 'as2-client-secret' }),
      200,
    );
    await runway.callTool('test-tool', {}, 'test');
    await runway.op('check-oauth', 'check-oauth', {}, 200, (body) =>
      body.tokens?.lastRefreshAt && body.tokens.lastError === null ? undefined : JSON.stringify(body.tokens),
    );
  },

  'auth/client-credentials-basic': machineToMachine((context) => ({ clientSecret: context.client_secret as string })),
  'auth/client-credentials-jwt': machineToMachine((context) => ({
    privateKey: context.private_key_pem as string,
    signingAlg: context.signing_algorithm as string,
  })),
};

async function main(): Promise<void> {
  const url = process.argv.at(-1) ?? '';
  const scenario = env('MCP_CONFORMANCE_SCENARIO');
  const revision = env('MCP_CONFORMANCE_PROTOCOL_VERSION');
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>;
  const runway = new Runway(
    env('RUNWAY_CONFORMANCE_API'),
    env('RUNWAY_CONFORMANCE_API_KEY'),
    env('RUNWAY_CONFORMANCE_PROJECT'),
  );
  const started = Date.now();
  const report: AdapterReport = {
    scenario,
    revision,
    startedAt: started,
    endedAt: 0,
    calls: runway.calls,
    ok: false,
  };
  const save = async (server: OperatorServer) => {
    const response = await fetch(env('RUNWAY_CONFORMANCE_OPERATOR'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Server names are unique in a project, and a scenario runs once per revision.
      body: JSON.stringify({ name: `${scenario} @${revision}`, ...server }),
    });
    if (!response.ok) throw new Error(`saving the server failed: HTTP ${response.status} ${await response.text()}`);
    runway.serverId = report.serverId = ((await response.json()) as { id: string }).id;
  };
  try {
    const plan = PLANS[scenario];
    if (!plan) throw new Error(`no plan for scenario ${scenario}`);
    await plan(runway, { url, revision, context, save });
    report.ok = true;
  } catch (error) {
    report.error = error instanceof Error ? error.message : String(error);
  }
  report.endedAt = Date.now();
  writeFileSync(env('RUNWAY_CONFORMANCE_REPORT'), JSON.stringify(report, null, 2));
  process.exitCode = report.ok ? 0 : 1;
}

await main();
