import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { ConnectionPool } from '../../domain/mcp/index.js';
import { getSavedServersByIds, setClientProfile } from '../../db/servers.js';
import { startClientFeaturesServer } from '../fixtures/mcp/client-features.js';
import type { StartedHttpServer } from '../fixtures/mcp/serve.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { mcpOperationsOn } from '../helpers/stack.js';
import type { ApiReply } from '../helpers/http.js';
import { fixtureOverStdio, saveServer } from '../helpers/mcpServers.js';

const RUN_KEY = 'sk-run-client-features';

/**
 * Elicitation, sampling and roots: what Runway's MCP client declares (a server's client profile, a suite's host)
 * and how it answers the requests a server sends it, through tools/call and in an eval run. The fixture's tools
 * answer with what the client said, so every assertion reads what the server received.
 */
describe('MCP client features: elicitation, sampling, roots', () => {
  let world: EvalWorld;
  let http: StartedHttpServer;
  const servers: Record<string, string> = {};

  const callTool = (server: string, toolName: string, body: Record<string, unknown> = {}) =>
    world.call('POST', `/projects/${world.org.projectId}/servers/${servers[server]}/tools/call`, { toolName, ...body });
  /** The tool's text answer (what the fixture server got back from Runway). */
  const answerOf = (reply: ApiReply) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.content[0].text as string;
  };
  const accepted = (answer: string) => {
    expect(answer).toMatch(/^accept /);
    return JSON.parse(answer.slice('accept '.length));
  };
  const declared = async (server: string, body: Record<string, unknown> = {}) =>
    JSON.parse(answerOf(await callTool(server, 'client_capabilities', body)));

  beforeAll(async () => {
    // Sessions are opened per client profile, each a stdio child started through tsx: slow on a busy machine.
    const slowStart = { MCP_CONNECT_TIMEOUT_MS: '60000', MCP_INITIALIZE_TIMEOUT_MS: '60000' };
    [world, http] = await Promise.all([startEvalWorld(slowStart), startClientFeaturesServer()]);
    const save = async (name: string, input: Record<string, unknown>) =>
      (servers[name] = await saveServer(world.stack.sql, world.stack.box, {
        projectId: world.org.projectId,
        name,
        ...input,
      } as never));
    await Promise.all([
      // The host of the eval below lists file:///workspace: an operator allowed it for this server (rootsFence.ts).
      save('plain', { ...fixtureOverStdio('client-features'), allowedRoots: ['file:///workspace'] }),
      save('declining', { ...fixtureOverStdio('client-features'), clientProfile: { elicitation: {}, sampling: {} } }),
      save('defaults', {
        ...fixtureOverStdio('client-features'),
        clientProfile: {
          elicitation: { answer: { mode: 'defaults' }, url: true },
          roots: [{ uri: 'file:///srv/project', name: 'project' }],
        },
      }),
      save('http', { transportType: 'http', url: http.url }),
      save('edited', fixtureOverStdio('client-features')),
    ]);
  });
  afterAll(async () => {
    await world?.stop();
    await http?.close();
  });

  it('declares nothing without a profile, and answers every request it does not support with a JSON-RPC error', async () => {
    const capabilities = await declared('plain');
    expect(capabilities).not.toHaveProperty('elicitation');
    expect(capabilities).not.toHaveProperty('sampling');
    expect(capabilities).not.toHaveProperty('roots');
    expect(answerOf(await callTool('plain', 'order_coffee'))).toMatch(/^error -32601 /);
    expect(answerOf(await callTool('plain', 'summarize', { parameters: { text: 'x' } }))).toMatch(/^error -32601 /);
    expect(answerOf(await callTool('plain', 'list_roots'))).toMatch(/^error -32601 /);
    expect(answerOf(await callTool('defaults', 'ask_unknown'))).toMatch(/^error -32601 /);
    // Without a host, the client introduces itself as Runway.
    expect(JSON.parse(answerOf(await callTool('plain', 'client_info')))).toMatchObject({ name: 'runway' });
  });

  it("declares what the server's profile declares, and declines elicitation and sampling by default", async () => {
    expect(await declared('declining')).toMatchObject({ elicitation: { form: {} }, sampling: {} });
    expect(answerOf(await callTool('declining', 'order_coffee'))).toBe('decline');
    // The spec's "user rejected sampling request".
    expect(answerOf(await callTool('declining', 'summarize', { parameters: { text: 'x' } }))).toMatch(/^error -1 /);
    // Not declared: roots and URL-mode elicitation.
    expect(answerOf(await callTool('declining', 'list_roots'))).toMatch(/^error -32601 /);
    expect(answerOf(await callTool('declining', 'open_login'))).toMatch(/^error -32602 /);
  });

  it("accepts with the form's defaults (SEP-1034), cancels a form they cannot complete, declines URL mode, lists the roots", async () => {
    expect(await declared('defaults')).toMatchObject({
      elicitation: { form: {}, url: {} },
      roots: { listChanged: false },
    });
    expect(accepted(answerOf(await callTool('defaults', 'order_coffee')))).toEqual({
      size: 'medium',
      shots: 2,
      decaf: false,
    });
    // `email` is required and has no default: nobody filled the form in.
    expect(answerOf(await callTool('defaults', 'register_user'))).toBe('cancel');
    expect(answerOf(await callTool('defaults', 'open_login'))).toBe('decline');
    expect(answerOf(await callTool('defaults', 'list_roots'))).toBe(
      'roots [{"uri":"file:///srv/project","name":"project"}]',
    );
  });

  it('takes an elicitation answer from the tools/call body, checked against the requested schema', async () => {
    const content = { size: 'large', shots: 3, decaf: true, note: 'oat milk' };
    expect(
      accepted(answerOf(await callTool('plain', 'order_coffee', { elicitation: { action: 'accept', content } }))),
    ).toEqual(content);
    expect(
      accepted(
        answerOf(
          await callTool('plain', 'order_coffee', {
            elicitation: { mode: 'defaults', content: { shots: 1, note: 'to go' } },
          }),
        ),
      ),
    ).toEqual({
      size: 'medium',
      shots: 1,
      decaf: false,
      note: 'to go',
    });
    expect(answerOf(await callTool('plain', 'order_coffee', { elicitation: { action: 'decline' } }))).toBe('decline');
    expect(answerOf(await callTool('plain', 'order_coffee', { elicitation: { action: 'cancel' } }))).toBe('cancel');
    // The request's answer wins over the server's policy.
    expect(
      accepted(answerOf(await callTool('declining', 'order_coffee', { elicitation: { action: 'accept', content } }))),
    ).toEqual(content);
    // Content the form does not allow is never sent: the server gets an error saying why.
    const refused = answerOf(
      await callTool('plain', 'order_coffee', {
        elicitation: { action: 'accept', content: { size: 'huge', shots: 2 } },
      }),
    );
    expect(refused).toMatch(/^error -32602 .*size/);
    // The answer and the capability it needs were for that call only.
    expect(await declared('plain')).not.toHaveProperty('elicitation');
    expect(await declared('plain', { elicitation: { action: 'decline' } })).toMatchObject({
      elicitation: { form: {} },
    });
    expect(answerOf(await callTool('plain', 'order_coffee'))).toMatch(/^error -32601 /);
  });

  it('refuses a malformed elicitation answer with 400', async () => {
    for (const elicitation of [
      { action: 'maybe' },
      { action: 'accept' },
      { action: 'accept', content: { size: { nested: true } } },
      { mode: 'defaults', extra: 1 },
      'decline',
    ]) {
      const reply = await callTool('plain', 'order_coffee', { elicitation });
      expect(reply.status, JSON.stringify(elicitation)).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('gives each of several concurrent calls its own answer', async () => {
    const orders = [1, 2, 3, 4].flatMap((shots) =>
      ['small', 'large'].map((size) => ({ size, shots, decaf: shots % 2 === 0 })),
    );
    const answers = await Promise.all(
      orders.map((content) => callTool('http', 'order_coffee', { elicitation: { action: 'accept', content } })),
    );
    expect(answers.map((reply) => accepted(answerOf(reply)))).toEqual(orders);
  });

  it('lends at most maxLentSessions sessions of a server and profile at once; other calls wait their turn', async () => {
    const { stack } = world;
    // A pool of its own, composed like the API's, lending one session at a time.
    const log = createLogger('silent');
    const pool = new ConnectionPool({ idleTimeoutMs: 60_000, log, maxLentSessions: 1 });
    const mcp = mcpOperationsOn(stack, pool, log);
    const [server] = await getSavedServersByIds(stack.sql, stack.box, world.org.projectId, [servers.http]);
    const before = http.openSessions();
    try {
      const orders = [1, 2, 3, 4].map((shots) => ({ size: 'small', shots }));
      const results = await Promise.all(
        orders.map((content) =>
          mcp.callTool(server, 'order_coffee', {}, { answers: { elicitation: { action: 'accept', content } } }),
        ),
      );
      expect(results.map((result) => accepted((result.content[0] as { text: string }).text))).toEqual(orders);
      expect(pool.size).toBe(1);
      expect(http.openSessions()).toBe(before + 1);
    } finally {
      await pool.close();
    }
  });

  it("opens a new session when an operator changes a server's profile", async () => {
    // The Tasks extension is declared whatever the profile (Runway polls a task a tool answers with).
    const tasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    expect(await declared('edited')).toEqual(tasks);
    await setClientProfile(world.stack.sql, servers.edited, { sampling: {}, roots: [] });
    expect(await declared('edited')).toEqual({ ...tasks, sampling: {}, roots: { listChanged: false } });
    expect(answerOf(await callTool('edited', 'list_roots'))).toBe('roots []');
  });

  it("runs an eval: the suite's host declares the features, cases script elicitation, the run's model answers sampling", async () => {
    const { call, model, org } = world;
    // A host that declares roots, sampling and elicitation, given a roots list, and its own identity.
    const host = await call('POST', `/projects/${org.projectId}/hosts`, { name: 'Inspector', template: 'mcpjam' });
    expect(host.status).toBe(201);
    const roots = [{ uri: 'file:///workspace', name: 'workspace' }];
    const patched = await call('PATCH', `/projects/${org.projectId}/hosts/${host.body.id}`, {
      config: { ...host.body.config, roots },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);

    model.setScript('scripted-cf', {
      byQuery: {
        'Order my usual': [
          {
            toolCalls: [
              { name: 'order_coffee', arguments: {} },
              { name: 'summarize', arguments: { text: 'Runway runs evals of MCP servers.' } },
              { name: 'list_roots', arguments: {} },
              { name: 'client_info', arguments: {} },
            ],
          },
          { text: 'Ordered, summarized and listed.' },
        ],
        'Order without asking': [{ toolCalls: [{ name: 'order_coffee', arguments: {} }] }, { text: 'Declined.' }],
        'Summarize:': [{ text: 'Runway evaluates MCP servers.', usage: { prompt_tokens: 11, completion_tokens: 7 } }],
      },
    });
    const order = { size: 'small', shots: 1, decaf: true };
    const suite = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Client features',
      serverIds: [servers.plain],
      hostId: host.body.id,
      model: 'scripted-cf',
      provider: 'openai',
      tests: [
        {
          title: 'usual',
          query: 'Order my usual coffee, summarize the order and list my roots',
          elicitation: { action: 'accept', content: order },
          expectedToolCalls: ['order_coffee', 'summarize', 'list_roots', 'client_info'],
        },
      ],
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteId: suite.body.suiteId,
      modelApiKeys: { openai: RUN_KEY },
      // An inline case without a script: the host declares elicitation, so it is declined.
      tests: [
        {
          title: 'unscripted',
          query: 'Order without asking',
          model: 'scripted-cf',
          provider: 'openai',
          expectedToolCalls: [{ toolName: 'order_coffee' }],
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const run = await waitForRun(call, org.projectId, created.body.runId);
    expect(run).toMatchObject({ status: 'completed', result: 'passed', hostId: host.body.id });

    const iterations = await allIterations(call, org.projectId, created.body.runId);
    const traceOf = async (title: string) => {
      const iteration = iterations.find((i) => i.title === title);
      const trace = await call(
        'GET',
        `/projects/${org.projectId}/eval-runs/${created.body.runId}/iterations/${iteration.id}/trace`,
      );
      expect(trace.status).toBe(200);
      // What each tool answered (what its server got back from Runway), as the model saw it.
      const answers: Record<string, string> = {};
      for (const message of trace.body.messages) {
        if (message.role !== 'tool') continue;
        for (const part of message.content) answers[part.toolName] = part.output.value;
      }
      return { iteration, trace: trace.body, answers };
    };

    const usual = await traceOf('usual');
    expect(
      usual.iteration.actualToolCalls.map((c: { toolName: string; isError: boolean }) => [c.toolName, c.isError]),
    ).toEqual([
      ['order_coffee', false],
      ['summarize', false],
      ['list_roots', false],
      ['client_info', false],
    ]);
    expect(accepted(usual.answers.order_coffee)).toEqual(order);
    expect(usual.answers.summarize).toBe('sampled scripted-cf: Runway evaluates MCP servers.');
    expect(usual.answers.list_roots).toBe(`roots ${JSON.stringify(roots)}`);
    // The client introduced itself as the host does (mcpProfile.initialize.clientInfo), not as Runway.
    expect(JSON.parse(usual.answers.client_info)).toEqual(host.body.config.mcpProfile.initialize.clientInfo);
    // The sampling request is a span of its own, under the tool call that caused it, with its tokens.
    const spans = usual.trace.spans as {
      id: string;
      parentId?: string;
      name: string;
      category: string;
      toolName?: string;
      inputTokens?: number;
      outputTokens?: number;
    }[];
    const sampling = spans.find((s) => s.name === 'sampling');
    expect(sampling).toMatchObject({
      category: 'llm',
      status: 'ok',
      modelId: 'scripted-cf',
      inputTokens: 11,
      outputTokens: 7,
    });
    expect(spans.find((s) => s.id === sampling!.parentId)).toMatchObject({ category: 'tool', toolName: 'summarize' });
    // ... and its tokens count in the iteration's usage, with the agent's own model calls.
    const llm = spans.filter((s) => s.category === 'llm');
    expect(llm.length).toBe(3);
    expect(usual.iteration.usage).toEqual({
      inputTokens: llm.reduce((n, s) => n + s.inputTokens!, 0),
      outputTokens: llm.reduce((n, s) => n + s.outputTokens!, 0),
      totalTokens: llm.reduce((n, s) => n + s.inputTokens! + s.outputTokens!, 0),
      cachedInputTokens: 0,
    });
    const sampled = world.model.calls('scripted-cf').filter((c) => c.lastUserText.startsWith('Summarize: '));
    expect(sampled).toHaveLength(1);
    expect(sampled[0]).toMatchObject({ apiKey: RUN_KEY, tools: [] });
    expect(sampled[0].messages[0]).toMatchObject({ role: 'system', content: 'You write one-sentence summaries.' });

    expect((await traceOf('unscripted')).answers).toEqual({ order_coffee: 'decline' });
  });

  it('refuses an unknown host and a malformed scripted answer', async () => {
    const { call, org } = world;
    const base = { suiteName: 'Bad', serverIds: [servers.plain], modelApiKeys: { openai: RUN_KEY } };
    const test = { title: 't', query: 'q', model: 'scripted-cf', provider: 'openai' };
    const unknownHost = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      ...base,
      hostId: 'host_nope',
      tests: [test],
    });
    expect(unknownHost).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const badAnswer = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      ...base,
      tests: [{ ...test, elicitation: { action: 'accept' } }],
    });
    expect(badAnswer).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
  });
});
