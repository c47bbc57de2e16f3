import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateConfig } from '../../api/hostTemplates.js';
import { createHost } from '../../db/hosts.js';
import { snapshotDatabase } from '../helpers/dbSnapshot.js';
import { apiClient, type ApiReply } from '../helpers/http.js';
import { sampleResults } from '../helpers/ingest.js';
import { saveServer } from '../helpers/mcpServers.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recordingServer.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/**
 * The strict-body rule (issue 20): a request field Runway does not know is a 400 VALIDATION_ERROR with
 * details.reason UNKNOWN_FIELD, where it is and what was probably meant; never dropped, so a misspelt option can
 * never pass unnoticed. Every refused request here writes nothing and reaches no MCP server. Replies stay open.
 */
describe('the strict-body rule: an unknown field is refused with a hint, never dropped', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let mcp: RecordingServer;
  let serverId: string;
  let hostId: string;
  let project: string;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '100000', RATE_LIMIT_PER_MINUTE: '6000000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    project = `/projects/${org.projectId}`;
    // An MCP server that only writes down what reaches it: a refused request must never get there.
    mcp = await startRecordingServer();
    serverId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'recorder',
      transportType: 'http',
      url: `${mcp.origin}/mcp`,
    });
    hostId = (
      await createHost(stack.sql, stack.box, {
        projectId: org.projectId,
        name: 'h',
        template: 'claude',
        config: templateConfig('claude'),
      })
    ).id;
  });
  afterAll(async () => {
    await mcp?.close();
    await stack?.stop();
  });

  interface Expected {
    /** the unknown field's path, e.g. `body.tests.0.expectedToolcalls` */
    path: string;
    hint: string;
  }

  /** Sends a request that must be refused for `expected`: 400 UNKNOWN_FIELD with the hint, nothing written. */
  async function refused(
    method: string,
    path: string,
    body: unknown,
    expected: Expected,
    client = call,
  ): Promise<ApiReply> {
    const before = await snapshotDatabase(stack.sql);
    const reply = await client(method, path, body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'UNKNOWN_FIELD' } });
    const field = expected.path.split('.').at(-1);
    expect(reply.body.details.issues).toContainEqual({
      path: expected.path,
      field,
      hint: expected.hint,
      message: `unknown field \`${expected.path}\`; ${expected.hint}`,
    });
    expect(reply.body.message).toContain(`unknown field \`${reply.body.details.issues[0].path}\``);
    expect(await snapshotDatabase(stack.sql)).toEqual(before);
    expect(mcp.requests).toEqual([]);
    return reply;
  }

  describe('server operations', () => {
    const server = () => `${project}/servers/${serverId}`;

    it("tools/call with the MCP `arguments` instead of `parameters` names Runway's field, and the tool is not called", async () => {
      const reply = await refused(
        'POST',
        `${server()}/tools/call`,
        { toolName: 'echo', arguments: { message: 'hi' } },
        {
          path: 'body.arguments',
          hint: "did you mean `parameters`? (Runway's name for the MCP `arguments`)",
        },
      );
      expect(reply.body.message).toBe(
        "unknown field `body.arguments`; did you mean `parameters`? (Runway's name for the MCP `arguments`)",
      );
      await refused(
        'POST',
        `${server()}/tools/call`,
        { name: 'echo', parameters: {} },
        { path: 'body.name', hint: "did you mean `toolName`? (Runway's name for the MCP `name`)" },
      );
      await refused(
        'POST',
        `${server()}/tools/call`,
        { toolName: 'echo', parameters: {}, elicitation: { acton: 'decline' } },
        { path: 'body.elicitation.acton', hint: 'did you mean `action`?' },
      );
    });

    it('prompts/get, resources/read and the lists', async () => {
      await refused(
        'POST',
        `${server()}/prompts/get`,
        { promptName: 'p', argumnts: { a: 'x' } },
        { path: 'body.argumnts', hint: 'did you mean `arguments`?' },
      );
      await refused(
        'POST',
        `${server()}/prompts/get`,
        { name: 'p' },
        { path: 'body.name', hint: "did you mean `promptName`? (Runway's name for the MCP `name`)" },
      );
      await refused(
        'POST',
        `${server()}/resources/read`,
        { URI: 'test://x' },
        { path: 'body.URI', hint: 'did you mean `uri`?' },
      );
      for (const list of ['tools', 'prompts', 'resources'])
        await refused(
          'POST',
          `${server()}/${list}`,
          { cursr: 'c' },
          { path: 'body.cursr', hint: 'did you mean `cursor`?' },
        );
    });

    it('oauth/import-tokens, in the nested token and client objects too', async () => {
      const body = { serverUrl: `${mcp.origin}/mcp`, tokens: { access_token: 'at' } };
      await refused(
        'POST',
        `${server()}/oauth/import-tokens`,
        { ...body, tokens: { accessToken: 'at' } },
        { path: 'body.tokens.accessToken', hint: 'did you mean `access_token`?' },
      );
      await refused(
        'POST',
        `${server()}/oauth/import-tokens`,
        { ...body, clientInformation: { client_id: 'c' } },
        { path: 'body.clientInformation.client_id', hint: 'did you mean `clientId`?' },
      );
      await refused(
        'POST',
        `${server()}/oauth/import-tokens`,
        { ...body, serverURL: 'x' },
        { path: 'body.serverURL', hint: 'did you mean `serverUrl`?' },
      );
    });

    it('operations that read no body refuse any field in one', async () => {
      for (const operation of ['validate', 'doctor', 'check-oauth', 'export']) {
        await refused(
          'POST',
          `${server()}/${operation}`,
          { timeoutMs: 5000 },
          { path: 'body.timeoutMs', hint: 'no fields are accepted here' },
        );
      }
      // An empty body is what they take: past validation, an unknown run is 404.
      expect((await call('POST', `${project}/eval-runs/run_missing/cancel`, {})).status).toBe(404);
    });
  });

  describe('eval suites and runs', () => {
    const testCase = {
      title: 'echo',
      query: 'say hi',
      model: 'gpt-4.1',
      provider: 'openai',
      expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hi' } }],
    };
    const run = { suiteName: 'strict', serverIds: [] as string[], tests: [testCase] };
    beforeAll(() => {
      run.serverIds = [serverId];
    });

    it('POST /eval-runs with `expectedToolCall` is refused, so no run passes without its expectations', async () => {
      const { expectedToolCalls, ...rest } = testCase;
      await refused(
        'POST',
        `${project}/eval-runs`,
        { ...run, tests: [{ ...rest, expectedToolCall: expectedToolCalls }] },
        {
          path: 'body.tests.0.expectedToolCall',
          hint: 'did you mean `expectedToolCalls`?',
        },
      );
      await refused(
        'POST',
        `${project}/eval-runs`,
        { ...run, tests: [{ ...rest, expectedToolcalls: expectedToolCalls }] },
        {
          path: 'body.tests.0.expectedToolcalls',
          hint: 'did you mean `expectedToolCalls`?',
        },
      );
    });

    it('every nested object of a test case: expected calls, matchOptions, advancedConfig, elicitation, passCriteria', async () => {
      const withCase = (patch: object) => ({ ...run, tests: [{ ...testCase, ...patch }] });
      await refused(
        'POST',
        `${project}/eval-runs`,
        withCase({ expectedToolCalls: [{ toolName: 'echo', argumnts: {} }] }),
        { path: 'body.tests.0.expectedToolCalls.0.argumnts', hint: 'did you mean `arguments`?' },
      );
      await refused('POST', `${project}/eval-runs`, withCase({ matchOptions: { maxExtraToolCall: 0 } }), {
        path: 'body.tests.0.matchOptions.maxExtraToolCall',
        hint: 'did you mean `maxExtraToolCalls`?',
      });
      await refused('POST', `${project}/eval-runs`, withCase({ matchOptions: { toolCallOrdr: 'strict' } }), {
        path: 'body.tests.0.matchOptions.toolCallOrdr',
        hint: 'did you mean `toolCallOrder`?',
      });
      await refused('POST', `${project}/eval-runs`, withCase({ advancedConfig: { systemPrompt: 'be brief' } }), {
        path: 'body.tests.0.advancedConfig.systemPrompt',
        hint: 'did you mean `system`?',
      });
      await refused(
        'POST',
        `${project}/eval-runs`,
        withCase({ elicitation: { action: 'accept', content: {}, contents: {} } }),
        { path: 'body.tests.0.elicitation.contents', hint: 'did you mean `content`?' },
      );
      await refused(
        'POST',
        `${project}/eval-runs`,
        { ...run, passCritera: { minimumPassRate: 50 } },
        { path: 'body.passCritera', hint: 'did you mean `passCriteria`?' },
      );
      await refused(
        'POST',
        `${project}/eval-runs`,
        { ...run, passCriteria: { minPassRate: 50 } },
        { path: 'body.passCriteria.minPassRate', hint: 'the fields accepted here are `minimumPassRate`' },
      );
    });

    it('POST /eval-suites, a bare tool name among expected calls included', async () => {
      const suite = {
        name: 'strict suite',
        serverIds: [serverId],
        model: 'gpt-4.1',
        tests: [{ title: 't', query: 'q', expectedToolCalls: ['echo'] }],
      };
      await refused(
        'POST',
        `${project}/eval-suites`,
        { ...suite, tests: [{ title: 't', query: 'q', expectedToolcalls: ['echo'] }] },
        { path: 'body.tests.0.expectedToolcalls', hint: 'did you mean `expectedToolCalls`?' },
      );
      await refused(
        'POST',
        `${project}/eval-suites`,
        {
          ...suite,
          tests: [{ title: 't', query: 'q', expectedToolCalls: ['echo', { toolName: 'echo', argumnts: {} }] }],
        },
        {
          path: 'body.tests.0.expectedToolCalls.1.argumnts',
          hint: 'did you mean `arguments`?',
        },
      );
      await refused(
        'POST',
        `${project}/eval-suites`,
        { ...suite, passCritera: { minimumPassRate: 50 } },
        { path: 'body.passCritera', hint: 'did you mean `passCriteria`?' },
      );
    });

    it('cancel reads no body', async () => {
      await refused(
        'POST',
        `${project}/eval-runs/run_missing/cancel`,
        { force: true },
        { path: 'body.force', hint: 'no fields are accepted here' },
      );
    });
  });

  describe('eval ingest', () => {
    const ingest = (route: string) => `${project}/eval-ingest/${route}`;

    it('report, runs/start, runs/iterations and runs/finalize', async () => {
      const [result] = sampleResults(1);
      await refused(
        'POST',
        ingest('report'),
        { suiteName: 's', externalRunId: 'e1', results: [{ ...result, expectedToolcalls: [] }] },
        { path: 'body.results.0.expectedToolcalls', hint: 'did you mean `expectedToolCalls`?' },
      );
      await refused(
        'POST',
        ingest('report'),
        { suiteName: 's', externalRunId: 'e1', ci: { commit_sha: 'abc' }, results: [result] },
        { path: 'body.ci.commit_sha', hint: 'did you mean `commitSha`?' },
      );
      await refused(
        'POST',
        ingest('runs/start'),
        { suiteName: 's', externalRunId: 'e2', passCritera: { minimumPassRate: 50 } },
        { path: 'body.passCritera', hint: 'did you mean `passCriteria`?' },
      );
      await refused(
        'POST',
        ingest('runs/iterations'),
        { runId: 'run_missing', results: [{ ...result, tokens: { inputTokens: 1 } }] },
        {
          path: 'body.results.0.tokens.inputTokens',
          hint: 'the fields accepted here are `input`, `output`, `total`',
        },
      );
      await refused(
        'POST',
        ingest('runs/iterations'),
        { runId: 'run_missing', results: [{ ...result, expectedToolCalls: [{ tool: 'echo' }] }] },
        {
          path: 'body.results.0.expectedToolCalls.0.tool',
          hint: 'the fields accepted here are `toolName`, `arguments`',
        },
      );
      await refused(
        'POST',
        ingest('runs/finalize'),
        { runID: 'run_missing' },
        { path: 'body.runID', hint: 'did you mean `runId`?' },
      );
    });

    it('artifacts/upload-url', async () => {
      await refused(
        'POST',
        ingest('artifacts/upload-url'),
        { formt: 'junit-xml' },
        { path: 'body.formt', hint: 'did you mean `format`?' },
      );
    });

    it('the /sdk/v1 alias refuses too, with the hint in the `error` string the SDK reads', async () => {
      const sdk = apiClient(`${stack.origin}/sdk/v1`, org.apiKey);
      const reply = await refused(
        'POST',
        '/evals/runs/start',
        { suiteName: 's', externalRunId: 'e3', framwork: 'vitest' },
        { path: 'body.framwork', hint: 'did you mean `framework`?' },
        sdk,
      );
      expect(reply.body.error).toBe('unknown field `body.framwork`; did you mean `framework`?');
    });

    it('takes every field the MCPJam SDK reporter sends, and stores none of the ones Runway does not use (replay credentials)', async () => {
      const [result] = sampleResults(1);
      const reply = await call('POST', ingest('report'), {
        suiteName: 'sdk fields',
        externalRunId: 'sdk-fields',
        serverReplayConfigs: [
          {
            serverId: 'weather',
            url: 'https://mcp.example.test/mcp',
            accessToken: 'replay-secret-access',
            refreshToken: 'replay-secret-refresh',
            clientSecret: 'replay-secret-client',
          },
        ],
        results: [
          {
            ...result,
            advancedConfig: { system: 'be brief' },
            matchOptions: { toolCallOrder: 'any' },
            widgetSnapshots: [
              {
                toolCallId: 'c1',
                toolName: 'forecast',
                protocol: 'mcp-apps',
                serverId: 'weather',
                resourceUri: 'ui://f',
                toolMetadata: {},
                widgetCsp: null,
                widgetPermissions: null,
                widgetPermissive: false,
                prefersBorder: true,
              },
            ],
          },
        ],
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const dump = await stack.sql<{ text: string }[]>`
        SELECT string_agg(t::text, ' ') AS text FROM (SELECT row_to_json(r)::text AS t FROM eval_runs r UNION ALL SELECT row_to_json(i)::text FROM eval_iterations i
          UNION ALL SELECT row_to_json(s)::text FROM eval_suites s UNION ALL SELECT row_to_json(x)::text FROM eval_traces x) rows(t)`;
      expect(dump[0].text).toContain('sdk-fields');
      expect(dump[0].text).not.toMatch(/replay-secret/);
    });
  });

  describe('hosts', () => {
    it('create, update and delete are strict at the top level; delete reads no body', async () => {
      await refused(
        'POST',
        `${project}/hosts`,
        { name: 'x', templte: 'claude' },
        { path: 'body.templte', hint: 'did you mean `template`?' },
      );
      await refused(
        'POST',
        `${project}/hosts`,
        { name: 'x', config: { modelId: 'm' }, configs: {} },
        { path: 'body.configs', hint: 'did you mean `config`?' },
      );
      await refused(
        'PATCH',
        `${project}/hosts/${hostId}`,
        { nmae: 'renamed' },
        { path: 'body.nmae', hint: 'did you mean `name`?' },
      );
      await refused(
        'DELETE',
        `${project}/hosts/${hostId}`,
        { force: true },
        { path: 'body.force', hint: 'no fields are accepted here' },
      );
    });

    it('keeps the config open: a host config v2 holds keys Runway does not read, and they are kept', async () => {
      const config = {
        ...templateConfig('claude'),
        hostContext: { theme: 'dark', futureKey: 1 },
        connectionDefaults: { headers: {}, requestTimeout: 1000, extra: true },
      };
      const reply = await call('POST', `${project}/hosts`, { name: 'open', config });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body.config).toEqual(config);
    });

    it("takes `theme`, a field of the real product's create body", async () => {
      const reply = await call('POST', `${project}/hosts`, { name: 'dark claude', template: 'claude', theme: 'dark' });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect((await call('POST', `${project}/hosts`, { name: 'x', template: 'claude', theme: 'sepia' })).status).toBe(
        400,
      );
    });
  });

  describe('query parameters', () => {
    it('the catalog and eval reads refuse an unknown parameter instead of answering as if it were absent', async () => {
      await refused('GET', '/projects?organisationId=org_x', undefined, {
        path: 'query.organisationId',
        hint: 'did you mean `organizationId`?',
      });
      await refused('GET', `/chat-sessions?projectID=${org.projectId}`, undefined, {
        path: 'query.projectID',
        hint: 'did you mean `projectId`?',
      });
      await refused('GET', `${project}/eval-runs/run_missing/iterations?limt=5`, undefined, {
        path: 'query.limt',
        hint: 'did you mean `limit`?',
      });
      await refused('GET', `${project}/eval-suites/sui_missing/runs?limits=5`, undefined, {
        path: 'query.limits',
        hint: 'did you mean `limit`?',
      });
      await refused('GET', '/me?verbose=1', undefined, { path: 'query.verbose', hint: 'no fields are accepted here' });
      await refused(
        'POST',
        `${project}/servers/${serverId}/tools?cursor=c`,
        {},
        { path: 'query.cursor', hint: 'no fields are accepted here' },
      );
    });

    it('documented parameters still work', async () => {
      expect((await call('GET', `/projects?organizationId=${org.organizationId}`)).status).toBe(200);
      expect(
        (await call('GET', `/chat-sessions?projectId=${org.projectId}&status=active&limit=5&before=${Date.now()}`))
          .status,
      ).toBe(200);
    });
  });

  describe('replies stay open', () => {
    it('the document describes request bodies as closed and replies as open to additive fields', async () => {
      const document = (await apiClient(stack.baseUrl)('GET', '/openapi.json')).body;
      const body =
        document.paths['/projects/{projectId}/eval-runs'].post.requestBody.content['application/json'].schema;
      expect(document.components.schemas[body.$ref.split('/').at(-1)]).toMatchObject({ additionalProperties: false });
      const reply =
        document.paths['/projects/{projectId}/eval-runs/{runId}'].get.responses['200'].content['application/json']
          .schema;
      expect(document.components.schemas[reply.$ref.split('/').at(-1)]).not.toHaveProperty('additionalProperties');
    });
  });

  describe("the real product's document (test/fixtures/reference)", () => {
    it('every field it names for a route Runway serves is accepted, bar the ones listed here with a reason', async () => {
      const { refused, checked } = await referenceFields(
        apiClient(stack.baseUrl, org.apiKey),
        (await apiClient(stack.baseUrl)('GET', '/openapi.json')).body,
      );
      expect(refused).toEqual(NOT_YET_ACCEPTED);
      // What was sent: the nested fields and the query parameters too.
      expect(checked).toEqual(
        expect.arrayContaining([
          'POST /projects/{projectId}/eval-runs tests.0.expectedToolCalls.0.arguments',
          'POST /projects/{projectId}/eval-suites tests.0.expectedToolCalls.0.toolName',
          'POST /projects/{projectId}/servers/{serverId}/oauth/import-tokens tokens.id_token',
          'POST /projects/{projectId}/hosts theme',
          'POST /projects/{projectId}/servers/{serverId}/tools/call parameters',
          'GET /chat-sessions query.before',
          'GET /projects/{projectId}/eval-runs/{runId}/iterations query.cursor',
        ]),
      );
      expect(checked.length).toBeGreaterThan(60);
    });

    it('and every field the MCPJam SDK reporter sends to eval ingest', async () => {
      const refusedFields: string[] = [];
      for (const [route, fields] of Object.entries(SDK_FIELDS)) {
        for (const field of fields) {
          const reply = await call(
            'POST',
            route.replace('{projectId}', 'prj_missing'),
            withValueAt(field, sampleValue(field)),
          );
          if (reply.body?.details?.reason === 'UNKNOWN_FIELD')
            refusedFields.push(`${route} ${field}: ${reply.body.message}`);
        }
      }
      expect(refusedFields).toEqual([]);
    });
  });
});

/**
 * Fields the real product's document names that Runway refuses, each with the reason. A field accepted later must
 * leave this list (the test fails until it does).
 */
const NOT_YET_ACCEPTED: Record<string, string> = {};

/**
 * What the MCPJam SDK reporter (@mcpjam/sdk 1.14.0, its `ReportEvalResultsInput` and `EvalResultInput` types and
 * the bodies `reportEvalResults` builds) sends to each ingest route. The real product's API document does not
 * describe /sdk/v1, so this list stands in for it.
 */
const RUN_FIELDS = [
  'suiteName',
  'suiteDescription',
  'serverNames',
  'serverReplayConfigs',
  'notes',
  'passCriteria.minimumPassRate',
  'externalRunId',
  'framework',
  'ci.provider',
  'ci.pipelineId',
  'ci.jobId',
  'ci.runUrl',
  'ci.branch',
  'ci.commitSha',
  'expectedIterations',
  'tags',
  'hostConfig',
  'hostConfigHash',
];
const RESULT_FIELDS = [
  'caseTitle',
  'query',
  'passed',
  'durationMs',
  'provider',
  'model',
  'expectedToolCalls.0.toolName',
  'expectedToolCalls.0.arguments',
  'actualToolCalls.0.toolName',
  'actualToolCalls.0.arguments',
  'tokens.input',
  'tokens.output',
  'tokens.total',
  'error',
  'errorDetails',
  'trace',
  'externalIterationId',
  'externalCaseId',
  'metadata',
  'isNegativeTest',
  'advancedConfig',
  'widgetSnapshots',
  'matchOptions',
  'hostSnapshot',
].map((f) => `results.0.${f}`);
const SDK_FIELDS: Record<string, string[]> = {
  '/projects/{projectId}/eval-ingest/report': [...RUN_FIELDS, ...RESULT_FIELDS],
  '/projects/{projectId}/eval-ingest/runs/start': RUN_FIELDS,
  '/projects/{projectId}/eval-ingest/runs/iterations': ['runId', ...RESULT_FIELDS],
  '/projects/{projectId}/eval-ingest/runs/finalize': ['runId', 'externalRunId'],
};

/** A value of a plausible type for a field, by its name (the check is only that the name is accepted). */
function sampleValue(field: string): unknown {
  const name = field.split('.').at(-1)!;
  if (/^(passed|isNegativeTest)$/.test(name)) return true;
  if (/^(minimumPassRate|durationMs|expectedIterations|input|output|total)$/.test(name)) return 1;
  if (/^(serverNames|serverReplayConfigs|tags|widgetSnapshots)$/.test(name)) return [];
  if (/^(arguments|metadata|advancedConfig|matchOptions|hostSnapshot|hostConfig)$/.test(name)) return {};
  return 'x';
}

/** `{}` with `value` at the dotted `path` (`0` makes an array). */
function withValueAt(path: string, value: unknown): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let node: Record<string | number, unknown> = root;
  const steps = path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  steps.forEach((step, i) => {
    if (i === steps.length - 1) node[step] = value;
    else node = (node[step] ??= typeof steps[i + 1] === 'number' ? [] : {}) as Record<string | number, unknown>;
  });
  return root;
}

type JsonSchema = Record<string, any>;

/**
 * For every operation of the reference document that Runway serves (by its own document), each body field (nested
 * ones too, following $ref) and each query parameter is sent alone, to a project that does not exist (the body is
 * checked before the project is looked up, and nothing is written); a field refused as unknown is listed.
 */
async function referenceFields(
  call: ReturnType<typeof apiClient>,
  runway: JsonSchema,
): Promise<{ refused: Record<string, string>; checked: string[] }> {
  const reference = JSON.parse(
    readFileSync(new URL('../fixtures/reference/mcpjam-openapi-2026-06-19.json', import.meta.url), 'utf8'),
  ) as JsonSchema;
  const resolve = (node: JsonSchema): JsonSchema =>
    node?.$ref
      ? resolve(
          node.$ref
            .replace('#/', '')
            .split('/')
            .reduce((at: JsonSchema, key: string) => at[key], reference),
        )
      : node;
  const fields = (node: JsonSchema, path: string[], into: Map<string, unknown>) => {
    const schema = resolve(node);
    for (const branch of [...(schema.oneOf ?? []), ...(schema.anyOf ?? []), ...(schema.allOf ?? [])])
      fields(branch, path, into);
    for (const [name, child] of Object.entries<JsonSchema>(schema.properties ?? {})) {
      const resolved = resolve(child);
      const type = [resolved.type].flat()[0];
      into.set(
        [...path, name].join('.'),
        resolved.enum?.[0] ??
          { string: 'x', integer: 1, number: 1, boolean: true, array: [], object: {} }[type as string] ??
          'x',
      );
      fields(resolved, [...path, name], into);
    }
    if (schema.items) fields(schema.items, [...path, '0'], into);
  };
  const served = (method: string, path: string) => Boolean(runway.paths[path]?.[method]);
  const refused: Record<string, string> = {};
  const checked: string[] = [];
  for (const [path, item] of Object.entries<JsonSchema>(reference.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op || !served(method, path)) continue;
      const concrete = path.replace(/\{(\w+)\}/g, (_m, name: string) => `${name.replace(/Id$/, '')}_missing`);
      const body = new Map<string, unknown>();
      const schema = op.requestBody && resolve(op.requestBody).content?.['application/json']?.schema;
      if (schema) fields(schema, [], body);
      for (const [field, value] of body) {
        checked.push(`${method.toUpperCase()} ${path} ${field}`);
        const reply = await call(method.toUpperCase(), concrete, withValueAt(field, value));
        if (reply.body?.details?.reason === 'UNKNOWN_FIELD')
          refused[`${method.toUpperCase()} ${path} ${field}`] =
            NOT_YET_ACCEPTED[`${method.toUpperCase()} ${path} ${field}`] ?? reply.body.message;
      }
      for (const parameter of (op.parameters ?? []).map(resolve).filter((p: JsonSchema) => p.in === 'query')) {
        const value = parameter.schema?.enum?.[0] ?? (['integer', 'number'].includes(parameter.schema?.type) ? 1 : 'x');
        checked.push(`${method.toUpperCase()} ${path} query.${parameter.name}`);
        const reply = await call(
          method.toUpperCase(),
          `${concrete}?${parameter.name}=${encodeURIComponent(String(value))}`,
          method === 'get' ? undefined : {},
        );
        if (reply.body?.details?.reason === 'UNKNOWN_FIELD')
          refused[`${method.toUpperCase()} ${path} query.${parameter.name}`] = reply.body.message;
      }
    }
  }
  return { refused, checked };
}
