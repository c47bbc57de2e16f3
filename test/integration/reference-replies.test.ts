import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatbox, createChatSession } from '../../db/catalog.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { apiClient, type ApiReply } from '../helpers/http.js';
import { everythingOverStdio, saveServer, startEverythingOverHttp, type RunningServer } from '../helpers/mcpServers.js';
import { OpenApiReplies, type DocumentedOperation } from '../helpers/openApiReplies.js';

/*
 * Real clients of this API are built on the real product's published OpenAPI document. Every operation of that
 * document is called here, with valid inputs and with invalid ones, and every reply is held to it: its status
 * must be one the document lists for the operation, and its body must match the document's schema for that status
 * (error envelopes included). Fields Runway adds are fine (replies are open); a field the document names for one of
 * Runway's own objects must be there (nullable ones as null), as typed clients read it.
 */

const reference = JSON.parse(
  readFileSync(new URL('../fixtures/reference/mcpjam-openapi-2026-06-19.json', import.meta.url), 'utf8'),
);

/** Reply schemas whose optional fields are optional by nature: MCP results as the server sent them, pages, the envelope. */
const optionalByNature = new Set([
  'Tool',
  'Prompt',
  'Resource',
  'ResourceContents',
  'CallToolResult',
  'GetPromptResult',
  'Error',
  'TunnelGrant',
]);

/** The component schemas replies use (directly or through others); request schemas keep their own `required`. */
function replyComponents(document: any): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    for (const [key, v] of Object.entries(value)) {
      const name = key === '$ref' && typeof v === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(v)?.[1] : undefined;
      if (name && !found.has(name)) {
        found.add(name);
        visit(document.components.schemas[name]);
      } else if (key === '$ref' && typeof v === 'string' && v.startsWith('#/components/responses/')) {
        visit(document.components.responses[v.split('/').pop()!]);
      } else {
        visit(v);
      }
    }
  };
  for (const item of Object.values(document.paths))
    for (const op of Object.values(item as object)) visit((op as { responses?: unknown }).responses);
  return found;
}

const inReplies = replyComponents(reference);
const checker = new OpenApiReplies(reference, {
  id: 'https://reference.invalid/mcpjam-openapi.json',
  required: (name, schema) =>
    inReplies.has(name) && !optionalByNature.has(name) && schema.properties && !name.endsWith('Page')
      ? Object.keys(schema.properties)
      : undefined,
});
const operations = checker.operations();

interface Allowance {
  operation: string;
  exchange: string;
  /** which finding of that exchange it allows */
  finding: RegExp;
}

/** Where Runway answers otherwise on purpose, each with its reason. */
const deliberateDifferences: (Allowance & { why: string })[] = [
  {
    operation: 'listEvalRunIterations',
    exchange: 'a malformed cursor',
    finding: /^status 400 is not documented/,
    why: 'a cursor Runway cannot read is refused (400), never answered as if it were absent (the first page again)',
  },
  ...['a project the key cannot reach', 'a projectId that is no id at all'].map((exchange) => ({
    operation: 'listChatSessions',
    exchange,
    finding: /^status 404 is not documented/,
    why: "a project outside the key's reach is 404 NOT_FOUND on every route (contract-notes, General rules): an empty page would hide a mistyped id",
  })),
  {
    operation: 'listChatSessions',
    exchange: 'a before that is neither an instant nor a nextCursor',
    finding: /^status 400 is not documented/,
    why: 'the document calls `before` a cursor (the previous nextCursor), and a cursor Runway cannot read is refused (400, contract-notes Corrections), never answered as the first page again',
  },
  ...['createTunnel', 'closeTunnel'].map((operation) => ({
    operation,
    exchange: 'a tunnel, which a self-hosted Runway does not offer',
    finding: /^status 422 is not documented/,
    why: 'Runway reaches saved servers directly and offers no relay: 422 FEATURE_NOT_SUPPORTED saying so (contract-notes, Corrections)',
  })),
];

type Params = Partial<Record<string, string>>;

interface Exchange {
  /** what the exchange shows, e.g. `unknown host` */
  name: string;
  /** valid inputs (the body is then held to the document's request schema too) or invalid ones */
  valid: boolean;
  params?: Params;
  query?: string;
  body?: unknown;
  /** no key at all */
  anonymous?: boolean;
  /** the status Runway means to answer */
  status: number;
  /** a contract rule the document's schema cannot express; returns what is wrong, if anything */
  check?: (reply: ApiReply) => string | undefined;
}

interface World {
  projectId: string;
  serverId: string;
  httpServerId: string;
  httpServerUrl: string;
  disabledServerId: string;
  hostId: string;
  doomedHostId: string;
  runId: string;
  iterationId: string;
  suiteId: string;
  /** a suite the rerun exchange runs again, so that suiteId's runs are all finished when they are listed */
  rerunSuiteId: string;
  ingestedRunId: string;
  /** a run created through POST /eval-runs whose model takes minutes: it is still running when it is read */
  runningRunId: string;
  untracedIterationId: string;
  chatboxId: string;
  hostlessChatboxId: string;
  resourceUri: string;
  promptName: string;
  call: ReturnType<typeof apiClient>;
}

const unknown = (kind: string) => `${kind}_unknown0000`;
const hostConfigV2 = JSON.parse(
  readFileSync(new URL('../fixtures/reference/host-config-v2-claude.json', import.meta.url), 'utf8'),
);
const echoCase = {
  title: 'echo works',
  query: 'echo hello',
  runs: 1,
  model: 'scripted-1',
  provider: 'openai',
  expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
};

const emptyPage = (reply: ApiReply) =>
  Array.isArray(reply.body?.items) && reply.body.items.length === 0 && reply.body.nextCursor === undefined
    ? undefined
    : `not an empty page: ${JSON.stringify(reply.body).slice(0, 200)}`;

const runningWithoutVerdict = (reply: ApiReply) =>
  reply.body?.status === 'running' && reply.body.result === null
    ? undefined
    : `status ${JSON.stringify(reply.body?.status)} and result ${JSON.stringify(reply.body?.result)}, not running without a verdict`;

/** The exchanges of each operation of the document, by its operationId. */
const exchanges: Record<string, (w: World) => Promise<Exchange[]> | Exchange[]> = {
  listHosts: () => [
    { name: "the project's hosts", valid: true, status: 200 },
    { name: 'unknown project', valid: false, params: { projectId: unknown('prj') }, status: 404 },
  ],
  createHost: () => [
    {
      name: 'from a template, with a theme',
      valid: true,
      body: { name: 'Claude', template: 'claude', theme: 'dark' },
      status: 201,
    },
    {
      name: 'a host config v2 as the real product writes it',
      valid: true,
      body: { name: 'Claude v2', config: hostConfigV2 },
      status: 201,
      check: (reply) =>
        isDeepStrictEqual(reply.body?.config, hostConfigV2) ? undefined : 'the config is not returned as given',
    },
    { name: 'neither template nor config', valid: false, body: { name: 'Nothing' }, status: 400 },
    {
      name: 'unknown project',
      valid: false,
      params: { projectId: unknown('prj') },
      body: { name: 'x', template: 'claude' },
      status: 404,
    },
  ],
  getHost: () => [
    { name: 'a host', valid: true, status: 200 },
    { name: 'unknown host', valid: false, params: { hostId: unknown('host') }, status: 404 },
  ],
  updateHost: () => [
    { name: 'a rename', valid: true, body: { name: 'Renamed' }, status: 200 },
    { name: 'no field', valid: false, body: {}, status: 400 },
    { name: 'unknown host', valid: false, params: { hostId: unknown('host') }, body: { name: 'x' }, status: 404 },
  ],
  deleteHost: (w) => [
    { name: 'a host', valid: true, params: { hostId: w.doomedHostId }, status: 200 },
    { name: 'unknown host', valid: false, params: { hostId: unknown('host') }, status: 404 },
    { name: 'a body field', valid: false, body: { force: true }, status: 400 },
  ],
  validateServer: (w) => [
    { name: 'a server', valid: true, body: {}, status: 200 },
    { name: 'unknown server', valid: false, params: { serverId: unknown('srv') }, body: {}, status: 404 },
    { name: 'a disabled server', valid: false, params: { serverId: w.disabledServerId }, body: {}, status: 400 },
  ],
  runDoctor: () => [
    { name: 'a server', valid: true, body: {}, status: 200 },
    { name: 'unknown server', valid: false, params: { serverId: unknown('srv') }, body: {}, status: 404 },
  ],
  checkOAuth: (w) => [
    { name: 'an HTTP server', valid: true, params: { serverId: w.httpServerId }, body: {}, status: 200 },
    { name: 'a stdio server', valid: true, body: {}, status: 200 },
    { name: 'unknown server', valid: false, params: { serverId: unknown('srv') }, body: {}, status: 404 },
  ],
  ...Object.fromEntries(
    ['listTools', 'listPrompts', 'listResources'].map((operationId): [string, () => Exchange[]] => [
      operationId,
      () => [
        { name: 'the first page', valid: true, body: {}, status: 200 },
        { name: 'a cursor Runway never gave', valid: false, body: { cursor: 'not-a-cursor' }, status: 400 },
        { name: 'unknown server', valid: false, params: { serverId: unknown('srv') }, body: {}, status: 404 },
      ],
    ]),
  ),
  readResource: (w) => [
    { name: 'a listed resource', valid: true, body: { uri: w.resourceUri }, status: 200 },
    {
      name: 'a resource the server does not have',
      valid: false,
      body: { uri: 'demo://resource/static/document/nope.md' },
      status: 404,
    },
    { name: 'no uri', valid: false, body: {}, status: 400 },
  ],
  exportServer: (w) => [
    { name: 'a server', valid: true, body: {}, status: 200 },
    { name: 'a disabled server', valid: false, params: { serverId: w.disabledServerId }, body: {}, status: 400 },
    { name: 'unknown server', valid: false, params: { serverId: unknown('srv') }, body: {}, status: 404 },
  ],
  callTool: () => [
    { name: 'a tool', valid: true, body: { toolName: 'echo', parameters: { message: 'hi' } }, status: 200 },
    {
      name: 'a tool-level failure',
      valid: true,
      body: { toolName: 'get-sum', parameters: { a: 'one', b: 2 } },
      status: 200,
      check: (r) => (r.body?.isError === true ? undefined : 'isError is not true'),
    },
    { name: 'no toolName', valid: false, body: { parameters: {} }, status: 400 },
    {
      name: 'a task-augmented call (taskOptions)',
      valid: false,
      body: { toolName: 'echo', parameters: { message: 'hi' }, taskOptions: { ttl: 60000 } },
      status: 422,
    },
  ],
  getPrompt: (w) => [
    {
      name: 'a listed prompt',
      valid: true,
      body: { promptName: w.promptName, arguments: { city: 'Paris', state: 'France' } },
      status: 200,
    },
    { name: 'a prompt the server does not have', valid: false, body: { promptName: 'no-such-prompt' }, status: 404 },
    { name: 'no promptName', valid: false, body: {}, status: 400 },
  ],
  createEvalRun: (w) => [
    {
      name: 'a new suite with inline tests',
      valid: true,
      body: { suiteName: 'Reference run', serverIds: [w.serverId], tests: [echoCase] },
      status: 202,
    },
    { name: 'a rerun of a suite', valid: true, body: { suiteId: w.rerunSuiteId }, status: 202 },
    { name: 'tests without a suite', valid: false, body: { tests: [echoCase], serverIds: [w.serverId] }, status: 400 },
    {
      name: 'an unknown server',
      valid: false,
      body: { suiteName: 'Nowhere', serverIds: [unknown('srv')], tests: [echoCase] },
      status: 404,
    },
  ],
  getEvalRun: (w) => [
    { name: 'a finished run', valid: true, status: 200 },
    // The document's `result` is "Pass/fail verdict once terminal": null until then, for every kind of run.
    {
      name: 'a run created through the API, read while it runs',
      valid: true,
      params: { runId: w.runningRunId },
      status: 200,
      check: runningWithoutVerdict,
    },
    {
      name: 'an ingested run still receiving results',
      valid: true,
      params: { runId: w.ingestedRunId },
      status: 200,
      check: runningWithoutVerdict,
    },
    { name: 'unknown run', valid: false, params: { runId: unknown('run') }, status: 404 },
  ],
  listEvalRunIterations: (w) => [
    { name: 'a page', valid: true, query: 'limit=1', status: 200 },
    {
      name: "an ingested run's iterations, with what the reporter attached",
      valid: true,
      params: { runId: w.ingestedRunId },
      status: 200,
      check: (r) =>
        r.body?.items?.[0]?.metadata?.shard === 'a' && r.body.items[0].externalIterationId === 'ref-1'
          ? undefined
          : 'metadata or externalIterationId missing',
    },
    { name: 'a limit past 200, clamped', valid: true, query: 'limit=500', status: 200 },
    { name: 'a malformed cursor', valid: false, query: 'cursor=not-a-cursor', status: 400 },
    { name: 'unknown run', valid: false, params: { runId: unknown('run') }, status: 404 },
  ],
  getEvalIterationTrace: (w) => [
    { name: 'an executed iteration', valid: true, status: 200 },
    {
      name: 'an iteration reported without a trace',
      valid: false,
      params: { runId: w.ingestedRunId, iterationId: w.untracedIterationId },
      status: 404,
    },
    { name: 'unknown iteration', valid: false, params: { iterationId: unknown('itr') }, status: 404 },
  ],
  listEvalSuiteRuns: () => [
    { name: "a suite's runs", valid: true, status: 200 },
    { name: 'a limit past 100, clamped', valid: true, query: 'limit=500', status: 200 },
    { name: 'unknown suite', valid: false, params: { suiteId: unknown('sui') }, status: 404 },
  ],
  importOAuthTokens: (w) => [
    {
      name: 'tokens for the server',
      valid: true,
      params: { serverId: w.httpServerId },
      body: { serverUrl: w.httpServerUrl, tokens: { access_token: 'at-1', expires_in: 3600 } },
      status: 200,
    },
    {
      name: "another server's URL",
      valid: false,
      params: { serverId: w.httpServerId },
      body: { serverUrl: 'https://elsewhere.example.test/mcp', tokens: { access_token: 'at-1' } },
      status: 400,
    },
    {
      name: 'unknown server',
      valid: false,
      params: { serverId: unknown('srv') },
      body: { serverUrl: w.httpServerUrl, tokens: { access_token: 'at-1' } },
      status: 404,
    },
  ],
  getMe: () => [{ name: 'the key owner', valid: true, status: 200 }],
  listProjects: () => [
    { name: 'the projects', valid: true, status: 200 },
    { name: "another organization's id", valid: true, query: `organizationId=${unknown('org')}`, status: 200 },
    {
      name: 'an organizationId that is no id at all',
      valid: false,
      query: 'organizationId=not%20an%20id!',
      status: 200,
      check: emptyPage,
    },
  ],
  listProjectServers: () => [
    { name: "the project's servers", valid: true, status: 200 },
    { name: 'unknown project', valid: false, params: { projectId: unknown('prj') }, status: 404 },
  ],
  listEvalSuites: () => [
    { name: "the project's suites", valid: true, status: 200 },
    { name: 'unknown project', valid: false, params: { projectId: unknown('prj') }, status: 404 },
  ],
  createEvalSuite: (w) => {
    const suite = {
      name: 'Authored',
      serverIds: [w.serverId],
      model: 'scripted-1',
      provider: 'openai',
      tests: [{ title: 'echo', query: 'echo hello', expectedToolCalls: ['echo'] }],
    };
    return [
      { name: 'a suite', valid: true, body: suite, status: 201 },
      { name: 'a name already in use', valid: true, body: suite, status: 201 },
      { name: 'a name only', valid: false, body: { name: 'Bare' }, status: 400 },
      { name: 'unknown project', valid: false, params: { projectId: unknown('prj') }, body: suite, status: 404 },
    ];
  },
  listChatSessions: async (w) => {
    const first = await w.call('GET', '/chat-sessions?limit=2');
    expect(first.body.nextCursor, 'three sessions make a second page').toEqual(expect.any(String));
    return [
      { name: 'the first page', valid: true, query: 'limit=2', status: 200 },
      {
        name: "the next page, by the previous page's nextCursor in before",
        valid: true,
        query: `limit=2&before=${encodeURIComponent(first.body.nextCursor)}`,
        status: 200,
        check: (r) =>
          r.body?.items?.length === 1 && !first.body.items.some((s: { id: string }) => s.id === r.body.items[0].id)
            ? undefined
            : 'not the rest of the sessions',
      },
      {
        name: "a project's archived sessions",
        valid: true,
        query: `projectId=${w.projectId}&status=archived`,
        status: 200,
      },
      { name: 'a limit past 200, clamped', valid: true, query: 'limit=500', status: 200 },
      // A filter value no session has selects none (the document lists no 400 here).
      {
        name: 'a status the document does not name',
        valid: false,
        query: 'status=bogus',
        status: 200,
        check: emptyPage,
      },
      {
        name: 'an instant past the year 9999 in before, clamped',
        valid: false,
        query: 'before=99999999999999999999',
        status: 200,
      },
      {
        name: 'a before that is neither an instant nor a nextCursor',
        valid: false,
        query: 'before=yesterday',
        status: 400,
      },
      { name: 'a project the key cannot reach', valid: false, query: `projectId=${unknown('prj')}`, status: 404 },
      { name: 'a projectId that is no id at all', valid: false, query: 'projectId=not%20an%20id!', status: 404 },
    ];
  },
  listChatboxes: () => [
    { name: "the project's chatboxes", valid: true, status: 200 },
    { name: 'unknown project', valid: false, params: { projectId: unknown('prj') }, status: 404 },
  ],
  getChatbox: (w) => [
    { name: 'a chatbox with a host', valid: true, status: 200 },
    {
      name: 'a chatbox without a host',
      valid: true,
      params: { chatboxId: w.hostlessChatboxId },
      status: 200,
      check: (r) =>
        r.body?.hostId === null && r.body?.hostName === null
          ? undefined
          : `hostId ${JSON.stringify(r.body?.hostId)} and hostName ${JSON.stringify(r.body?.hostName)} are not null`,
    },
    { name: 'unknown chatbox', valid: false, params: { chatboxId: unknown('cbx') }, status: 404 },
  ],
  createTunnel: () => [
    {
      name: 'a tunnel, which a self-hosted Runway does not offer',
      valid: true,
      body: { name: 'everything' },
      status: 422,
    },
  ],
  closeTunnel: () => [
    { name: 'a tunnel, which a self-hosted Runway does not offer', valid: true, body: {}, status: 422 },
  ],
};

/** Every operation is also called without a key: 401 in the envelope. */
const withoutKey: Exchange = { name: 'no key', valid: false, anonymous: true, status: 401 };

describe("replies against the real product's OpenAPI document", () => {
  let world: EvalWorld;
  let httpEverything: RunningServer;
  let w: World;
  const findings = new Map<string, string[]>();

  beforeAll(async () => {
    [world, httpEverything] = await Promise.all([
      startEvalWorld({ HOSTED_MODELS: 'openai/hosted-mini', MAX_CONCURRENT_RUNS: '10' }),
      startEverythingOverHttp('streamableHttp'),
    ]);
    const { stack, org, call, serverId, model } = world;
    model.setScript('scripted-1', {
      byQuery: {
        'echo hello': [{ toolCalls: [{ name: 'echo', arguments: { message: 'hello' } }] }, { text: 'It said hello.' }],
        // minutes: the run that asks it is read while it runs, then cancelled
        'wait a while': [{ text: 'late', delayMs: 300_000 }],
      },
    });
    const save = (name: string, input: object) =>
      saveServer(stack.sql, stack.box, { projectId: org.projectId, name, ...input } as never);
    const [httpServerId, disabledServerId] = await Promise.all([
      save('remote', { transportType: 'http', url: httpEverything.url }),
      save('disabled', { ...everythingOverStdio(), enabled: false }),
    ]);
    const host = async (name: string) =>
      (await call('POST', `/projects/${org.projectId}/hosts`, { name, template: 'claude' })).body.id as string;
    const [hostId, doomedHostId] = [await host('Fixture host'), await host('Doomed host')];

    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Fixture suite',
      serverIds: [serverId],
      tests: [echoCase],
    });
    expect(created.status).toBe(202);
    await waitForRun(call, org.projectId, created.body.runId);
    const [iteration] = await allIterations(call, org.projectId, created.body.runId);
    const running = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Running suite',
      serverIds: [serverId],
      tests: [{ ...echoCase, title: 'waits', query: 'wait a while', expectedToolCalls: [] }],
    });
    expect(running.status).toBe(202);
    const rerunSuite = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Rerun suite',
      serverIds: [serverId],
      model: 'scripted-1',
      provider: 'openai',
      tests: [echoCase],
    });
    expect(rerunSuite.status).toBe(201);

    const ingest = (suffix: string, body: unknown) =>
      call('POST', `/projects/${org.projectId}/eval-ingest/${suffix}`, body);
    const started = await ingest('runs/start', { suiteName: 'Reported suite', externalRunId: 'ref-run' });
    const result = {
      caseTitle: 'reported',
      query: 'q',
      passed: true,
      externalIterationId: 'ref-1',
      metadata: { shard: 'a', attempt: 2, retried: false },
    };
    expect((await ingest('runs/iterations', { runId: started.body.runId, results: [result] })).status).toBe(200);
    const [reported] = await allIterations(call, org.projectId, started.body.runId);

    const withHost = await createChatbox(stack.sql, {
      projectId: org.projectId,
      name: 'Support',
      hostId,
      modelId: 'openai/hosted-mini',
      serverIds: [httpServerId],
    });
    const hostless = await createChatbox(stack.sql, {
      projectId: org.projectId,
      name: 'Bare',
      modelId: 'openai/hosted-mini',
    });
    for (const [i, status] of (['active', 'active', 'active', 'archived'] as const).entries()) {
      await createChatSession(stack.sql, {
        projectId: org.projectId,
        userId: org.userId,
        title: `Session ${i}`,
        status,
        lastActivityAt: new Date(Date.now() - i * 60_000),
      });
    }
    const resources = await call('POST', `/projects/${org.projectId}/servers/${serverId}/resources`, {});
    const prompts = await call('POST', `/projects/${org.projectId}/servers/${serverId}/prompts`, {});
    w = {
      projectId: org.projectId,
      serverId,
      httpServerId,
      httpServerUrl: httpEverything.url,
      disabledServerId,
      hostId,
      doomedHostId,
      runId: created.body.runId,
      iterationId: iteration.id,
      suiteId: created.body.suiteId,
      rerunSuiteId: rerunSuite.body.suiteId,
      ingestedRunId: started.body.runId,
      runningRunId: running.body.runId,
      untracedIterationId: reported.id,
      chatboxId: withHost.id,
      hostlessChatboxId: hostless.id,
      resourceUri: resources.body.items[0].uri,
      promptName: prompts.body.items.find((p: { name: string }) => p.name === 'args-prompt').name,
      call,
    };
  });
  afterAll(async () => {
    if (w) await w.call('POST', `/projects/${w.projectId}/eval-runs/${w.runningRunId}/cancel`, {});
    await world?.stop();
    await httpEverything?.stop();
  });

  it('exercises every operation of the document, each with valid and invalid inputs, and nothing else', () => {
    const documented = operations.map((op) => op.operationId);
    expect(
      Object.keys(exchanges).filter((id) => !documented.includes(id)),
      'exchanges for operations the document lacks',
    ).toEqual([]);
    for (const id of documented) expect(exchanges[id], `${id}: no exchanges`).toBeDefined();
    expect(
      deliberateDifferences.filter((a) => !documented.includes(a.operation)),
      'allowances for unknown operations',
    ).toEqual([]);
  });

  async function exchange(op: DocumentedOperation, x: Exchange): Promise<string[]> {
    const params: Params = {
      projectId: w.projectId,
      serverId: w.serverId,
      hostId: w.hostId,
      runId: w.runId,
      iterationId: w.iterationId,
      suiteId: w.suiteId,
      chatboxId: w.chatboxId,
      ...x.params,
    };
    const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = params[name];
      if (value === undefined) throw new Error(`${op.operationId}: no value for {${name}}`);
      return encodeURIComponent(value);
    });
    const body = x.body ?? (op.method === 'get' ? undefined : {});
    if (x.valid)
      expect(
        checker.requestProblems(op, body),
        `${op.operationId} / ${x.name}: a valid exchange sends what the document takes`,
      ).toEqual([]);
    const send = x.anonymous ? apiClient(world.stack.baseUrl) : w.call;
    const reply = await send(op.method.toUpperCase(), `${path}${x.query ? `?${x.query}` : ''}`, body);
    const problems =
      reply.status === x.status
        ? []
        : [`status: Runway meant ${x.status}, answered ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`];
    problems.push(...checker.replyProblems(op, reply.status, reply.body));
    if (reply.status === x.status && x.check) {
      const wrong = x.check(reply);
      if (wrong) problems.push(`contract: ${wrong}`);
    }
    return problems;
  }

  for (const op of operations) {
    it(`${op.operationId}: ${op.method.toUpperCase()} ${op.path}`, async () => {
      const list = [...(await (exchanges[op.operationId]?.(w) ?? [])), withoutKey];
      expect(
        list.some((x) => x.valid) && list.some((x) => !x.valid),
        `${op.operationId} has valid and invalid exchanges`,
      ).toBe(true);
      const unexplained: string[] = [];
      for (const x of list) {
        const problems = await exchange(op, x);
        findings.set(`${op.operationId} / ${x.name}`, problems);
        const allowedBy = (a: Allowance) => a.operation === op.operationId && a.exchange === x.name;
        for (const problem of problems) {
          if (!deliberateDifferences.some((a) => allowedBy(a) && a.finding.test(problem)))
            unexplained.push(`${x.name}: ${problem}`);
        }
      }
      expect(unexplained, `${op.operationId}: replies the document does not allow`).toEqual([]);
      // An allowance that matches nothing is stale: the difference is gone, so the entry goes too.
      const stale = deliberateDifferences.filter(
        (a) =>
          a.operation === op.operationId &&
          !findings.get(`${a.operation} / ${a.exchange}`)?.some((p) => a.finding.test(p)),
      );
      expect(
        stale.map((a) => `${a.exchange}: ${a.finding}`),
        `${op.operationId}: allowances that no longer match a finding`,
      ).toEqual([]);
    });
  }
});
