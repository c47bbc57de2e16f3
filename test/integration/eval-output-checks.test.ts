/**
 * Issue 16, parts 1 and 2, end to end through the HTTP API, the workflow and the scripted model server: a case's
 * expectedOutput is checked (a judge model that fails an answer, a judge whose reply is garbage), and a multi-turn
 * case runs as one conversation scored turn by turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRunFailure, runAgent, type AgentTool } from '../../domain/models/agentLoop.js';
import { createLanguageModel } from '../../domain/models/providers.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';

const JUDGE_KEY = 'runway-judge-1';

describe('output checks and multi-turn cases', () => {
  let world: EvalWorld;

  beforeAll(async () => {
    world = await startEvalWorld();
  });
  afterAll(async () => world?.stop());

  const path = (rest: string) => `/projects/${world.org.projectId}${rest}`;
  const trace = async (runId: string, iterationId: string) => {
    const reply = await world.call('GET', path(`/eval-runs/${runId}/iterations/${iterationId}/trace`));
    expect(reply.status).toBe(200);
    return reply.body;
  };

  it('a judge fails a wrong answer, a contains check passes, and a three-turn case fails on its middle turn', async () => {
    const { model, call, serverId } = world;
    model.setScript('agent-1', {
      byQuery: {
        'capital of France': [{ text: 'The capital of France is Lyon.' }],
        'echo hello': [{ toolCalls: [{ name: 'echo', arguments: { message: 'hello' } }] }, { text: 'It said  Hello.' }],
        'turn one': [{ toolCalls: [{ name: 'echo', arguments: { message: 'one' } }] }, { text: 'echoed one' }],
        'turn two': [{ text: 'I would rather not.' }],
        'turn three': [
          { toolCalls: [{ name: 'echo', arguments: { message: 'three' } }] },
          { text: 'Result: {"done": 3, "ok": true}' },
        ],
      },
    });
    model.setScript('judge-model', {
      byQuery: { [JUDGE_KEY]: [{ text: '{"pass": false, "score": 0.1, "reason": "It names Lyon, not Paris."}' }] },
    });
    const turns = [
      { prompt: 'turn one: echo one', expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'one' } }] },
      {
        prompt: 'turn two: echo two',
        expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'two' } }],
        expectedOutput: 'two',
      },
      {
        prompt: 'turn three: echo three',
        expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'three' } }],
        expectedOutput: '{"done": 3}',
        outputCheck: { mode: 'json-subset' },
      },
    ];
    const created = await call('POST', path('/eval-runs'), {
      suiteName: 'Output checks',
      serverIds: [serverId],
      model: 'agent-1',
      judgeModel: { model: 'judge-model', provider: 'openai' },
      tests: [
        {
          title: 'judged',
          query: 'What is the capital of France?',
          provider: 'openai',
          expectedOutput: 'Paris',
          outputCheck: { mode: 'judge', rubric: 'The answer must name the right city.' },
        },
        {
          title: 'contains',
          query: 'echo hello',
          provider: 'openai',
          expectedToolCalls: [{ toolName: 'echo' }],
          expectedOutput: 'said hello',
        },
        { title: 'three turns', provider: 'openai', turns },
      ],
    });
    expect(created.status).toBe(202);
    const { runId, suiteId } = created.body;
    const run = await waitForRun(call, world.org.projectId, runId);
    expect(run).toMatchObject({ status: 'completed', result: 'failed', summary: { total: 3, passed: 1, failed: 2 } });

    const iterations = await allIterations(call, world.org.projectId, runId);
    const byTitle = Object.fromEntries(iterations.map((i) => [i.title, i]));
    expect(byTitle.contains).toMatchObject({ status: 'completed', result: 'passed' });

    // The judge: asked with the fixed prompt, its verdict failed the answer, stored in the trace with a judge span.
    expect(byTitle.judged).toMatchObject({ status: 'completed', result: 'failed', error: null });
    const judged = await trace(runId, byTitle.judged.id);
    expect(judged.prompts).toHaveLength(1);
    expect(judged.prompts[0]).toMatchObject({
      promptIndex: 0,
      passed: false,
      finalText: 'The capital of France is Lyon.',
      reasons: ['Output check (judge): the judge failed the answer: It names Lyon, not Paris.'],
      outputCheck: {
        mode: 'judge',
        passed: false,
        expected: 'Paris',
        verdict: { pass: false, score: 0.1, reason: 'It names Lyon, not Paris.' },
        judgePromptVersion: JUDGE_KEY,
        judgeModel: 'openai/judge-model',
      },
    });
    const judgeSpans = judged.spans.filter((s: { category: string }) => s.category === 'judge');
    expect(judgeSpans).toEqual([
      expect.objectContaining({ name: JUDGE_KEY, category: 'judge', status: 'ok', modelId: 'judge-model' }),
    ]);
    const judgeCalls = model.calls('judge-model');
    expect(judgeCalls).toHaveLength(1);
    expect(judgeCalls[0].messages[0]).toMatchObject({ role: 'system' });
    expect(String(judgeCalls[0].messages[0].content)).toContain(JUDGE_KEY);
    expect(judgeCalls[0].lastUserText).toContain('<answer>\nThe capital of France is Lyon.\n</answer>');
    expect(judgeCalls[0].lastUserText).toContain('<rubric>\nThe answer must name the right city.\n</rubric>');
    // the judge's tokens count with the iteration's
    expect(byTitle.judged.usage.totalTokens).toBeGreaterThan(0);

    // Three turns, one conversation: each turn scored on its own, the middle one failed, so the iteration did.
    const threeTurns = byTitle['three turns'];
    expect(threeTurns).toMatchObject({ status: 'completed', result: 'failed' });
    expect(threeTurns.actualToolCalls.map((c: { arguments: unknown }) => c.arguments)).toEqual([
      { message: 'one' },
      { message: 'three' },
    ]);
    const conversation = await trace(runId, threeTurns.id);
    expect(conversation.prompts).toHaveLength(3);
    expect(conversation.prompts.map((p: { promptIndex: number }) => p.promptIndex)).toEqual([0, 1, 2]);
    expect(conversation.prompts.map((p: { passed: boolean }) => p.passed)).toEqual([true, false, true]);
    expect(conversation.prompts[0]).not.toHaveProperty('outputCheck');
    expect(conversation.prompts[1]).toMatchObject({
      prompt: 'turn two: echo two',
      actualToolCalls: [],
      missing: [{ toolName: 'echo', arguments: { message: 'two' } }],
      outputCheck: { mode: 'contains', passed: false },
    });
    expect(conversation.prompts[1].reasons).toEqual([
      expect.stringMatching(/^Missing tool call "echo"/),
      'Output check (contains): the final answer does not contain "two"',
    ]);
    expect(conversation.prompts[2]).toMatchObject({
      actualToolCalls: [{ toolName: 'echo', arguments: { message: 'three' } }],
      outputCheck: { mode: 'json-subset', passed: true },
    });
    // The history was carried: the third prompt was sent after the first two and the model's answers to them.
    const third = model.calls('agent-1').find((c) => c.lastUserText === 'turn three: echo three')!;
    const users = third.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(JSON.stringify(users)).toMatch(/turn one: echo one.*turn two: echo two.*turn three: echo three/);
    expect(JSON.stringify(third.messages)).toContain('I would rather not.');

    // The case routes show the new fields and take them back as they were read.
    const suite = await call('GET', path(`/eval-suites/${suiteId}`));
    expect(suite.body.judgeModel).toEqual({ model: 'judge-model', provider: 'openai' });
    // A judge model the run cannot use is refused when the run starts (no Anthropic key in this organization).
    const unusable = await call('POST', path('/eval-runs'), {
      suiteId,
      judgeModel: { model: 'claude-judge', provider: 'anthropic' },
    });
    expect(unusable.status).toBe(400);
    expect((await call('GET', path(`/eval-suites/${suiteId}`))).body.judgeModel).toEqual({
      model: 'judge-model',
      provider: 'openai',
    });
    const patched = await call('PATCH', path(`/eval-suites/${suiteId}`), { judgeModel: null });
    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty('judgeModel');
    const restored = await call('PATCH', path(`/eval-suites/${suiteId}`), {
      judgeModel: { model: 'judge-model', provider: 'openai' },
    });
    expect(restored.body.judgeModel).toEqual({ model: 'judge-model', provider: 'openai' });
    const cases = await call('GET', path(`/eval-suites/${suiteId}/cases`));
    const stored = cases.body.items.find((c: { title: string }) => c.title === 'three turns');
    expect(stored).toMatchObject({
      prompt: 'turn one: echo one',
      expectedToolCalls: turns.flatMap((t) => t.expectedToolCalls),
      turns: [
        { prompt: 'turn one: echo one', expectedToolCalls: turns[0].expectedToolCalls },
        { prompt: 'turn two: echo two', expectedOutput: 'two' },
        { prompt: 'turn three: echo three', outputCheck: { mode: 'json-subset' } },
      ],
    });
    const judgedCase = cases.body.items.find((c: { title: string }) => c.title === 'judged');
    expect(judgedCase.outputCheck).toEqual({ mode: 'judge', rubric: 'The answer must name the right city.' });
    const { prompt, expectedToolCalls, turns: storedTurns } = stored;
    const edited = await call('PATCH', path(`/eval-suites/${suiteId}/cases/${stored.id}`), {
      prompt,
      expectedToolCalls,
      turns: storedTurns,
    });
    expect(edited.status).toBe(200);
    expect(edited.body.turns).toEqual(stored.turns);
    const moved = await call('PATCH', path(`/eval-suites/${suiteId}/cases/${stored.id}`), { prompt: 'something else' });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toContain("with turns, prompt is the first turn's prompt");
    const twoTurns = await call('PATCH', path(`/eval-suites/${suiteId}/cases/${stored.id}`), {
      turns: storedTurns.slice(1),
    });
    expect(twoTurns.status).toBe(200);
    expect(twoTurns.body).toMatchObject({
      prompt: 'turn two: echo two',
      expectedToolCalls: [
        { toolName: 'echo', arguments: { message: 'two' } },
        { toolName: 'echo', arguments: { message: 'three' } },
      ],
    });
    const single = await call('PATCH', path(`/eval-suites/${suiteId}/cases/${stored.id}`), { turns: null });
    expect(single.status).toBe(200);
    expect(single.body).not.toHaveProperty('turns');
    const created2 = await call('POST', path(`/eval-suites/${suiteId}/cases`), {
      title: 'bad regex',
      prompt: 'p',
      expectedOutput: 'a(?=b)',
      outputCheck: { mode: 'regex' },
    });
    expect(created2.status).toBe(400);
    expect(created2.body.message).toMatch(/lookahead/);
    const regexCase = await call('POST', path(`/eval-suites/${suiteId}/cases`), {
      title: 'regex',
      prompt: 'p',
      expectedOutput: '^\\d+$',
      outputCheck: { mode: 'regex', caseSensitive: true },
    });
    expect(regexCase.status).toBe(201);
    expect(regexCase.body.outputCheck).toEqual({ mode: 'regex', caseSensitive: true });
    const cleared = await call('PATCH', path(`/eval-suites/${suiteId}/cases/${regexCase.body.id}`), {
      outputCheck: null,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('outputCheck');
  });

  it('a judge whose reply is garbage: retried, then the iteration is recorded failed with the reason, never passed', async () => {
    const { model, call, serverId } = world;
    // No suite judge model: the case's own model grades, and it answers the judge prompt with prose.
    model.setScript('garbage-agent', {
      byQuery: {
        [JUDGE_KEY]: [{ text: 'Looks fine to me!' }],
        'what is 2+2': [{ text: '4' }],
      },
    });
    const created = await call('POST', path('/eval-runs'), {
      suiteName: 'Garbage judge',
      serverIds: [serverId],
      tests: [
        {
          title: 'judged by itself',
          query: 'what is 2+2',
          model: 'garbage-agent',
          provider: 'openai',
          expectedOutput: '4',
          outputCheck: { mode: 'judge' },
        },
      ],
    });
    expect(created.status).toBe(202);
    const run = await waitForRun(call, world.org.projectId, created.body.runId, undefined, 120_000);
    expect(run).toMatchObject({
      status: 'completed',
      result: 'failed',
      summary: { total: 1, passed: 0, failed: 0, errored: 1 },
    });
    const [iteration] = await allIterations(call, world.org.projectId, created.body.runId);
    expect(iteration).toMatchObject({ status: 'failed', result: 'failed' });
    expect(iteration.error).toMatch(
      /^the judge's reply is not a JSON verdict: "Looks fine to me!" \(still failing after 5 attempts\)$/,
    );
    expect(iteration.errorDetails).toEqual({
      reason: 'JUDGE_REPLY_INVALID',
      attempt: 5,
      provider: 'openai',
      model: 'garbage-agent',
    });
    // each of the 5 attempts ran the agent and asked the judge once
    const judgeCalls = model.calls('garbage-agent').filter((c) => c.list === JUDGE_KEY);
    expect(judgeCalls).toHaveLength(5);
    const failedTrace = await trace(created.body.runId, iteration.id);
    expect(failedTrace.prompts).toEqual([]);
    expect(failedTrace.spans).toContainEqual(expect.objectContaining({ category: 'judge', status: 'error' }));
  });

  it('runAgent holds a conversation: each prompt after the answers before it, tool calls and answers by prompt', async () => {
    const { model } = world;
    const calls: unknown[] = [];
    const tools: AgentTool[] = [
      {
        name: 'note',
        description: 'Take a note',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        call: async (args) => {
          calls.push(args);
          return { content: [{ type: 'text', text: 'noted' }] };
        },
      },
    ];
    model.setScript('conversation', {
      byQuery: {
        'first ask': [{ toolCalls: [{ name: 'note', arguments: { text: 'a' } }] }, { text: 'noted a' }],
        'second ask': [{ text: 'nothing to do' }],
        'third ask': [{ error: { status: 400, message: 'bad request' } }],
      },
    });
    const chat = createLanguageModel({
      provider: 'openai',
      modelName: 'conversation',
      apiKey: 'k',
      baseURL: model.url,
    });
    const record = await runAgent({ model: chat, prompt: ['first ask', 'second ask'], tools, maxSteps: 5 });
    expect(record.turns).toEqual([
      expect.objectContaining({
        prompt: 'first ask',
        text: 'noted a',
        finishReason: 'stop',
        toolCalls: [expect.objectContaining({ toolName: 'note', arguments: { text: 'a' } })],
      }),
      expect.objectContaining({ prompt: 'second ask', text: 'nothing to do', finishReason: 'stop', toolCalls: [] }),
    ]);
    expect(record.text).toBe('nothing to do');
    expect(record.toolCalls).toHaveLength(1);
    expect(record.steps.map((s) => s.index)).toEqual([0, 1, 2]);
    expect(record.messages.filter((m) => (m as { role: string }).role === 'user')).toEqual([
      { role: 'user', content: 'first ask' },
      { role: 'user', content: 'second ask' },
    ]);
    const second = model.calls('conversation').find((c) => c.lastUserText === 'second ask')!;
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);

    // A prompt that fails ends the conversation: the record keeps the prompts reached.
    const failure = await runAgent({
      model: chat,
      prompt: ['first ask', 'third ask'],
      tools,
      maxSteps: 5,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(AgentRunFailure);
    const failed = (failure as AgentRunFailure).record;
    expect(failed.turns?.map((t) => [t.prompt, t.finishReason])).toEqual([
      ['first ask', 'stop'],
      ['third ask', 'error'],
    ]);
    await expect(runAgent({ model: chat, prompt: [], tools, maxSteps: 5 })).rejects.toThrow(RangeError);
  });
});
