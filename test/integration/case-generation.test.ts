import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CASE_GENERATION_PROMPT_VERSION } from '../../domain/evals/caseGeneration/prompt.js';
import { listCases } from '../../db/evalSuites.js';
import { SecretBox } from '../../db/secretBox.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import { seedOrganization } from '../helpers/seed.js';

const draft = (
  title: string,
  query: string,
  calls: { toolName: string; arguments?: Record<string, unknown> }[],
  isNegative = false,
) => ({ title, query, isNegative, expectedToolCalls: calls });
const answer = (...cases: unknown[]) => ({ text: JSON.stringify({ cases }) });

describe('POST /eval-suites/{s}/cases/generate', () => {
  let world: EvalWorld;
  let suiteId: string;
  const generate = (body: unknown, suite = suiteId) =>
    world.call('POST', `/projects/${world.org.projectId}/eval-suites/${suite}/cases/generate`, body);
  const casesOf = async (suite = suiteId) =>
    (await listCases(world.stack.sql, suite)).map((c) => ({
      title: c.title,
      query: c.query,
      expected: c.expectedToolCalls,
      negative: c.isNegativeTest,
    }));

  beforeAll(async () => {
    world = await startEvalWorld({ HOSTED_MODELS: 'openai/hosted-gen', MAX_CONCURRENT_RUNS: '5' });
    const created = await world.call('POST', `/projects/${world.org.projectId}/eval-suites`, {
      name: 'Generated',
      serverIds: [world.serverId],
      model: 'gen-1',
      provider: 'openai',
      tests: [
        {
          title: 'Existing echo',
          query: 'Echo "existing"',
          expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'existing' } }],
        },
      ],
    });
    expect(created.status).toBe(201);
    suiteId = created.body.suiteId;
  });
  afterAll(async () => world?.stop());

  it('saves the valid drafts and reports the others; the saved cases run with arguments the tools accept', async () => {
    world.model.setScript('gen-1', [
      answer(
        draft('Echo a greeting', 'Please echo the word "hello"', [
          { toolName: 'echo', arguments: { message: 'hello' } },
        ]),
        draft('Add two numbers', 'What is 2 plus 3?', [{ toolName: 'get-sum', arguments: { a: 2, b: 3 } }]),
        draft('Small talk', 'How are you today?', [], true),
        draft('Reverse text', 'Reverse "abc"', [{ toolName: 'reverse-text', arguments: { text: 'abc' } }]),
        draft('Add words', 'Add one and two', [{ toolName: 'get-sum', arguments: { a: 'one', b: 2 } }]),
        draft('Existing echo', 'Echo "existing"', [{ toolName: 'echo', arguments: { message: 'overwritten?' } }]),
        draft('Echo a greeting', 'Please echo the word "hello"', [
          { toolName: 'echo', arguments: { message: 'hello' } },
        ]),
      ),
    ]);
    const reply = await generate({ count: 7 });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      generationModel: 'gen-1',
      provider: 'openai',
      promptVersion: CASE_GENERATION_PROMPT_VERSION,
      counts: { normal: 2, negative: 1 },
      tools: { listed: expect.any(Number), inPrompt: expect.any(Number) },
      usage: { totalTokens: expect.any(Number) },
    });
    expect(reply.body.created).toEqual([
      {
        id: expect.any(String),
        suiteId: expect.any(String),
        title: 'Echo a greeting',
        kind: 'prompt',
        prompt: 'Please echo the word "hello"',
        expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
        iterations: 1,
        isNegative: false,
        models: [],
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
      expect.objectContaining({
        title: 'Add two numbers',
        expectedToolCalls: [{ toolName: 'get-sum', arguments: { a: 2, b: 3 } }],
        isNegative: false,
      }),
      expect.objectContaining({ title: 'Small talk', expectedToolCalls: [], isNegative: true }),
    ]);
    expect(reply.body.skipped).toEqual([
      { title: 'Reverse text', error: "no tool `reverse-text` on the suite's servers" },
      {
        title: 'Add words',
        error: expect.stringMatching(/^arguments of get-sum do not match its input schema: \/a must be number/),
      },
      { title: 'Echo a greeting', error: 'duplicate of an earlier draft (same title and query)' },
      { title: 'Existing echo', error: 'the suite already has a case with this title and query' },
    ]);

    // The suite holds the three new cases, and the existing one as it was.
    expect(await casesOf()).toEqual([
      {
        title: 'Existing echo',
        query: 'Echo "existing"',
        expected: [{ toolName: 'echo', arguments: { message: 'existing' } }],
        negative: false,
      },
      {
        title: 'Echo a greeting',
        query: 'Please echo the word "hello"',
        expected: [{ toolName: 'echo', arguments: { message: 'hello' } }],
        negative: false,
      },
      {
        title: 'Add two numbers',
        query: 'What is 2 plus 3?',
        expected: [{ toolName: 'get-sum', arguments: { a: 2, b: 3 } }],
        negative: false,
      },
      { title: 'Small talk', query: 'How are you today?', expected: [], negative: true },
    ]);

    // The model got the fixed prompt with the servers' real tools, on the organization's key.
    const [call] = world.model.calls('gen-1');
    expect(call.apiKey).toBe('org-key');
    expect(call.lastUserText).toMatch(/^Write 7 test cases: 5 normal and 2 negative\./);
    for (const tool of ['echo', 'get-sum', 'get-env']) expect(call.lastUserText).toContain(`### ${tool}\n`);

    // Every expected call's arguments are valid against the tool's input schema, as the server lists it...
    const listed = await world.call('POST', `/projects/${world.org.projectId}/servers/${world.serverId}/tools`, {});
    const schemas = new Map<string, Record<string, unknown>>(
      listed.body.items.map((t: { name: string; inputSchema: Record<string, unknown> }) => [t.name, t.inputSchema]),
    );
    const ajv = new Ajv({ strict: false });
    for (const c of reply.body.created) {
      for (const expected of c.expectedToolCalls)
        expect(
          ajv.validate(schemas.get(expected.toolName)!, expected.arguments),
          `${c.title}: ${ajv.errorsText()}`,
        ).toBe(true);
    }
    // ...and a run in which the model makes exactly the expected calls passes, the server accepting every call.
    world.model.setScript('gen-1', {
      byQuery: {
        'Echo "existing"': [
          { toolCalls: [{ name: 'echo', arguments: { message: 'existing' } }] },
          { text: 'existing' },
        ],
        'echo the word': [{ toolCalls: [{ name: 'echo', arguments: { message: 'hello' } }] }, { text: 'hello' }],
        '2 plus 3': [{ toolCalls: [{ name: 'get-sum', arguments: { a: 2, b: 3 } }] }, { text: '5' }],
        'How are you': [{ text: 'Fine, thanks.' }],
      },
    });
    const run = await world.call('POST', `/projects/${world.org.projectId}/eval-runs`, { suiteId });
    expect(run.status).toBe(202);
    const finished = await waitForRun(world.call, world.org.projectId, run.body.runId);
    expect(finished).toMatchObject({ status: 'completed', result: 'passed', summary: { total: 4, passed: 4 } });
    const iterations = await allIterations(world.call, world.org.projectId, run.body.runId);
    expect(
      iterations
        .flatMap((i) => i.actualToolCalls)
        .map((c: { toolName: string; isError: boolean }) => [c.toolName, c.isError]),
    ).toEqual(
      expect.arrayContaining([
        ['echo', false],
        ['get-sum', false],
      ]),
    );
  });

  it('saves nothing when the model does not answer with the JSON asked for', async () => {
    const before = await casesOf();
    world.model.setScript('gen-1', [{ text: 'Here are some ideas: 1) echo hello 2) add numbers' }]);
    const reply = await generate({});
    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({
      code: 'SERVER_UNREACHABLE',
      message: expect.stringContaining('the model did not answer with the JSON object of cases asked for'),
      details: { reason: 'MODEL_OUTPUT_INVALID', excerpt: 'Here are some ideas: 1) echo hello 2) add numbers' },
    });
    world.model.setScript('gen-1', [
      { text: JSON.stringify({ testCases: [draft('x', 'y', [{ toolName: 'echo', arguments: { message: 'x' } }])] }) },
    ]);
    expect((await generate({})).body.details).toMatchObject({ reason: 'MODEL_OUTPUT_INVALID' });
    expect(await casesOf()).toEqual(before);
  });

  it('asks for 5 cases by default, 1 to 20, and saves no more than asked for', async () => {
    const valid = Array.from({ length: 4 }, (_, i) =>
      draft(`Sum ${i}`, `What is ${i} plus ${i}?`, [{ toolName: 'get-sum', arguments: { a: i, b: i } }]),
    );
    world.model.setScript('gen-1', [answer(...valid)]);
    const byDefault = await generate(undefined);
    expect(byDefault.status).toBe(201);
    expect(world.model.calls('gen-1').at(-1)!.lastUserText).toMatch(/^Write 5 test cases: 4 normal and 1 negative\./);

    world.model.setScript('gen-1', [answer(...valid.map((d) => ({ ...d, title: `${d.title} again` })))]);
    const two = await generate({ count: 2 });
    expect(two.status).toBe(201);
    expect(two.body.created.map((c: { title: string }) => c.title)).toEqual(['Sum 0 again', 'Sum 1 again']);
    expect(two.body.skipped).toEqual([
      { title: 'Sum 2 again', error: 'beyond the 2 cases asked for' },
      { title: 'Sum 3 again', error: 'beyond the 2 cases asked for' },
    ]);

    const calls = world.model.calls('gen-1').length;
    for (const count of [0, 21, 2.5, '5', null]) {
      const reply = await generate({ count });
      expect(reply.status, `count ${JSON.stringify(count)}`).toBe(400);
      expect(reply.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { issues: [expect.objectContaining({ path: 'body.count' })] },
      });
    }
    const misspelt = await generate({ cuont: 3 });
    expect(misspelt.status).toBe(400);
    expect(misspelt.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'UNKNOWN_FIELD' },
      message: expect.stringContaining('count'),
    });
    expect(world.model.calls('gen-1')).toHaveLength(calls);
  });

  it("answers 404 for a suite that is not the key's to see", async () => {
    const other = await seedOrganization(world.stack.sql);
    const otherCall = apiClient(world.stack.baseUrl, other.apiKey);
    const theirs = await otherCall(
      'POST',
      `/projects/${world.org.projectId}/eval-suites/${suiteId}/cases/generate`,
      {},
    );
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('NOT_FOUND');
    // a suite id of another project, under the caller's own project
    const crossed = await otherCall('POST', `/projects/${other.projectId}/eval-suites/${suiteId}/cases/generate`, {});
    expect(crossed.status).toBe(404);
    expect(crossed.body).toMatchObject({ code: 'NOT_FOUND', details: { suiteId } });
    expect((await generate({}, 'sui_missing')).status).toBe(404);
  });

  it('refuses a model it cannot use as POST /eval-runs does, and names provider failures', async () => {
    const noKey = await generate({ model: 'claude-sonnet-4-5', provider: 'anthropic' });
    expect(noKey.status).toBe(400);
    expect(noKey.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'MODEL_KEY_MISSING', provider: 'anthropic', model: 'claude-sonnet-4-5' },
    });
    const notHosted = await generate({ model: 'openai/not-in-catalog' });
    expect(notHosted.status).toBe(400);
    expect(notHosted.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'NOT_HOSTED', hostedModels: ['openai/hosted-gen'] },
    });

    world.model.setScript('refusing', [{ error: { status: 401, message: 'invalid api key' } }]);
    const refused = await generate({ model: 'refusing', provider: 'openai' });
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({
      code: 'SERVER_UNREACHABLE',
      details: { reason: 'PROVIDER_AUTH_FAILED', status: 401, retryable: false },
    });

    // a hosted id runs on the catalog's entry
    world.model.setScript('hosted-gen', [
      answer(draft('Hosted echo', 'Echo "hosted"', [{ toolName: 'echo', arguments: { message: 'hosted' } }])),
    ]);
    const hosted = await generate({ model: 'openai/hosted-gen', count: 1 });
    expect(hosted.status).toBe(201);
    expect(hosted.body).toMatchObject({ generationModel: 'openai/hosted-gen', counts: { normal: 1, negative: 0 } });
  });

  it("opens the servers' secrets only once the request passed its checks (a refused model opens none)", async () => {
    const { projectId } = world.org;
    const sealed = await saveServer(world.stack.sql, world.stack.box, {
      projectId,
      name: 'sealed',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
      headers: { 'x-api-key': 'sealed' },
    });
    const sealedSuite = 'sui_Sealed';
    await world.stack
      .sql`INSERT INTO eval_suites (id, project_id, name, server_ids, default_model) VALUES (${sealedSuite}, ${projectId}, 'Sealed', ${[sealed]}, 'gen-1')`;
    // servers are opened with decryptJson (their env and headers); provider keys, which a model check needs, are not
    const opened = vi.spyOn(SecretBox.prototype, 'decryptJson');
    try {
      const refused = await generate({ model: 'claude-sonnet-4-5', provider: 'anthropic' }, sealedSuite);
      expect(refused).toMatchObject({ status: 400, body: { details: { reason: 'MODEL_KEY_MISSING' } } });
      expect(opened).not.toHaveBeenCalled();
      expect((await generate({ provider: 'openai' }, sealedSuite)).status).toBe(502);
      expect(opened).toHaveBeenCalled();
    } finally {
      opened.mockRestore();
    }
  });

  it('needs a reachable server of the suite', async () => {
    const { projectId } = world.org;
    // Suites written directly: the API asks a new suite for tests, and a suite without servers is made by no route.
    const suiteOf = async (name: string, serverIds: string[]) => {
      const id = `sui_${name.replace(/\W/g, '')}`;
      await world.stack
        .sql`INSERT INTO eval_suites (id, project_id, name, server_ids, default_model) VALUES (${id}, ${projectId}, ${name}, ${serverIds}, 'gen-1')`;
      return id;
    };
    const unreachable = await saveServer(world.stack.sql, world.stack.box, {
      projectId,
      name: 'nowhere',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
    });
    const calls = world.model.calls('gen-1').length;
    // a suite with no cases yet keeps no provider for its provider-native model: the request gives it
    const reply = await generate({ provider: 'openai' }, await suiteOf('Unreachable', [unreachable]));
    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({
      code: 'SERVER_UNREACHABLE',
      details: { unreachableServers: [expect.objectContaining({ serverId: unreachable, name: 'nowhere' })] },
    });
    expect(world.model.calls('gen-1')).toHaveLength(calls);

    // one server down of two: the cases come from the other, and the reply says which one was left out
    const both = await suiteOf('Half reachable', [unreachable, world.serverId]);
    world.model.setScript('gen-1', [
      answer(draft('Echo', 'Echo "x"', [{ toolName: 'echo', arguments: { message: 'x' } }])),
    ]);
    const half = await generate({ count: 1, provider: 'openai' }, both);
    expect(half.status).toBe(201);
    expect(half.body).toMatchObject({
      counts: { normal: 1, negative: 0 },
      unreachableServers: [{ serverId: unreachable, name: 'nowhere', code: 'SERVER_UNREACHABLE' }],
    });
    // saved with the provider the request gave for the suite's model, so that the case can run
    expect(await world.stack.sql`SELECT model, provider FROM eval_cases WHERE suite_id = ${both}`).toEqual([
      { model: null, provider: 'openai' },
    ]);

    const none = await generate({}, await suiteOf('No servers', []));
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'NO_SAVED_SERVER_SELECTION' } });
  });
});
