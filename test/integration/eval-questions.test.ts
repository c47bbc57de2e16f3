import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { fixtureOverStdio, saveServer } from '../helpers/mcpServers.js';

const RUN_KEY = 'sk-run-questions';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

interface TracedQuestion {
  toolCallId: string;
  toolName: string;
  promptIndex: number;
  name?: string;
  message: string;
  answeredBy: string;
  action?: string;
  content?: Record<string, unknown>;
  error?: string;
}

/**
 * Questions servers ask during an eval iteration's tool calls, answered by the case's script: a 2025-11-25 server's
 * elicitation requests (SDK v1, answered in order) and a 2026-07-28 server's named `input_required` questions (SDK
 * v2, answered by name or in order), per case or per turn. Every question and answer is in the iteration's trace; a
 * question the script has no answer for fails the iteration. Every tools/call carries the iteration's W3C trace
 * context in `_meta.traceparent`, and the trace keeps its trace id.
 */
describe('eval iterations answer the questions servers ask with the case script', () => {
  let world: EvalWorld;
  let serverIds: string[];

  beforeAll(async () => {
    // Every iteration opens its own stdio sessions, children started through tsx: slow on a busy machine.
    world = await startEvalWorld({ MCP_CONNECT_TIMEOUT_MS: '60000', MCP_INITIALIZE_TIMEOUT_MS: '60000' });
    const save = (name: string, fixture: 'client-features' | 'modern' | 'questions') =>
      saveServer(world.stack.sql, world.stack.box, {
        projectId: world.org.projectId,
        name,
        ...fixtureOverStdio(fixture),
      });
    serverIds = await Promise.all([
      save('features-2025', 'client-features'),
      save('modern-2026', 'modern'),
      save('questions-2026', 'questions'),
    ]);
  });
  afterAll(async () => {
    await world?.stop();
  });

  /** Starts a run of inline tests against the three servers and waits for its end. */
  async function run(name: string, tests: Record<string, unknown>[]) {
    const { call, org } = world;
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: name,
      serverIds,
      modelApiKeys: { openai: RUN_KEY },
      tests,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const runId = created.body.runId as string;
    const finished = await waitForRun(call, org.projectId, runId);
    const iterations = await allIterations(call, org.projectId, runId);
    const traceOf = async (title: string) => {
      const iteration = iterations.find((i) => i.title === title);
      expect(iteration, title).toBeDefined();
      const trace = await call('GET', `/projects/${org.projectId}/eval-runs/${runId}/iterations/${iteration.id}/trace`);
      expect(trace.status).toBe(200);
      // What each tool answered (what its server got back from Runway), in call order.
      const answers: Record<string, string[]> = {};
      for (const message of trace.body.messages) {
        if (message.role !== 'tool') continue;
        for (const part of message.content) (answers[part.toolName] ??= []).push(part.output.value);
      }
      return { iteration, trace: trace.body, answers, questions: (trace.body.questions ?? []) as TracedQuestion[] };
    };
    return { run: finished, iterations, traceOf };
  }

  it('answers by name and in order, per case and per turn, on both revisions, and traces every question', async () => {
    const { model } = world;
    const order = { size: 'small', shots: 1, decaf: true };
    model.setScript('questions-answered', {
      byQuery: {
        'Order and register': [
          { toolCalls: [{ name: 'order_coffee', arguments: {} }] },
          { toolCalls: [{ name: 'register_user', arguments: {} }] },
          {
            toolCalls: [
              { name: 'request_meta', arguments: {} },
              { name: 'request_meta', arguments: {} },
            ],
          },
          { text: 'Ordered, not registered.' },
        ],
        'Plan with the modern server': [{ toolCalls: [{ name: 'ask_twice', arguments: {} }] }, { text: 'Planned.' }],
        'Plan a trip': [
          { toolCalls: [{ name: 'plan_trip', arguments: {} }] },
          { toolCalls: [{ name: 'trace_context', arguments: {} }] },
          { text: 'Trip planned.' },
        ],
        'First city': [{ toolCalls: [{ name: 'ask', arguments: {} }] }, { text: 'First done.' }],
        'Second city': [{ toolCalls: [{ name: 'ask', arguments: {} }] }, { text: 'Second done.' }],
        'One answer for all': [{ toolCalls: [{ name: 'ask_twice', arguments: {} }] }, { text: 'Done.' }],
      },
    });
    const common = { model: 'questions-answered', provider: 'openai' };
    const {
      run: finished,
      iterations,
      traceOf,
    } = await run('answered questions', [
      {
        ...common,
        title: '2025 in order',
        query: 'Order and register',
        // A 2025 server's requests have no name: they take the answers in order.
        elicitation: { answers: [{ action: 'accept', content: order }, { action: 'decline' }] },
        expectedToolCalls: [{ toolName: 'order_coffee' }, { toolName: 'register_user' }],
      },
      {
        ...common,
        title: '2026 by name',
        query: 'Plan with the modern server',
        elicitation: {
          answers: [
            { question: 'day', action: 'accept', content: { day: 'Monday' } },
            { question: 'city', action: 'accept', content: { city: 'Paris' } },
          ],
        },
        expectedToolCalls: [{ toolName: 'ask_twice' }],
      },
      {
        ...common,
        title: '2026 one round, by name and in order',
        query: 'Plan a trip',
        runs: 2,
        elicitation: {
          answers: [
            { question: 'day', action: 'accept', content: { day: 'Friday' } },
            { action: 'accept', content: { city: 'Rome' } },
          ],
        },
        expectedToolCalls: [{ toolName: 'plan_trip' }, { toolName: 'trace_context' }],
      },
      {
        ...common,
        title: 'per turn',
        turns: [
          {
            prompt: 'First city',
            expectedToolCalls: ['ask'],
            elicitation: { answers: [{ question: 'city', action: 'accept', content: { city: 'Paris' } }] },
          },
          {
            prompt: 'Second city',
            expectedToolCalls: ['ask'],
            elicitation: { action: 'accept', content: { city: 'Rome' } },
          },
        ],
      },
      {
        ...common,
        title: 'one answer for all',
        query: 'One answer for all',
        // The field as it always was: one answer, given to every question.
        elicitation: { action: 'accept', content: { city: 'Lyon', day: 'Sunday' } },
        expectedToolCalls: [{ toolName: 'ask_twice' }],
      },
    ]);
    expect(finished, JSON.stringify(iterations)).toMatchObject({ status: 'completed', result: 'passed' });

    const ordered = await traceOf('2025 in order');
    expect(JSON.parse(ordered.answers.order_coffee[0].slice('accept '.length))).toEqual(order);
    expect(ordered.answers.register_user).toEqual(['decline']);
    const [coffeeCall, registerCall] = ordered.iteration.actualToolCalls;
    expect(ordered.questions).toEqual([
      expect.objectContaining({
        toolName: 'order_coffee',
        promptIndex: 0,
        message: 'How would you like your coffee?',
        requestedSchema: expect.objectContaining({ required: ['size', 'shots'] }),
        answeredBy: 'script',
        scriptEntry: 0,
        action: 'accept',
        content: order,
      }),
      expect.objectContaining({
        toolName: 'register_user',
        message: 'Which email address should we register?',
        answeredBy: 'script',
        scriptEntry: 1,
        action: 'decline',
      }),
    ]);
    for (const question of ordered.questions) expect(question).not.toHaveProperty('name');
    // Each question names the tool call it came from (the model's tool call id, as in the trace's messages).
    const callIds = ordered.trace.messages
      .filter((m: { role: string }) => m.role === 'assistant')
      .flatMap((m: { content: { type: string; toolCallId: string; toolName: string }[] }) =>
        m.content.filter((p) => p.type === 'tool-call'),
      );
    expect(ordered.questions.map((q) => q.toolCallId)).toEqual(
      callIds
        .filter((p: { toolName: string }) => p.toolName !== 'request_meta')
        .map((p: { toolCallId: string }) => p.toolCallId),
    );
    expect([coffeeCall.toolName, registerCall.toolName]).toEqual(['order_coffee', 'register_user']);

    // The trace context: one trace id per iteration, the trace's own, and a new span id per request (2025 server).
    expect(ordered.trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    const parents = ordered.answers.request_meta.map((answer) => JSON.parse(answer).traceparent as string);
    expect(parents).toHaveLength(2);
    for (const parent of parents) expect(TRACEPARENT.exec(parent)?.[1]).toBe(ordered.trace.traceId);
    expect(TRACEPARENT.exec(parents[0])?.[2]).not.toBe(TRACEPARENT.exec(parents[1])?.[2]);

    const named = await traceOf('2026 by name');
    expect(named.answers.ask_twice).toEqual(['You chose Paris on Monday']);
    expect(named.questions).toEqual([
      expect.objectContaining({ toolName: 'ask_twice', name: 'city', message: 'Which city?', scriptEntry: 1 }),
      expect.objectContaining({ toolName: 'ask_twice', name: 'day', message: 'Which day in Paris?', scriptEntry: 0 }),
    ]);
    expect(named.questions.map((q) => q.action)).toEqual(['accept', 'accept']);

    const trips = iterations.filter((i) => i.title === '2026 one round, by name and in order');
    expect(trips).toHaveLength(2);
    const trip = await traceOf('2026 one round, by name and in order');
    expect(trip.answers.plan_trip).toEqual(['Trip to Rome on Friday']);
    expect(trip.questions.map((q) => [q.name, q.answeredBy, q.action, q.content])).toEqual([
      ['city', 'script', 'accept', { city: 'Rome' }],
      ['day', 'script', 'accept', { day: 'Friday' }],
    ]);
    // The 2026 server got the iteration's trace context in the tools/call's _meta too.
    const [, traceId] = /^traceparent (.*)$/.exec(trip.answers.trace_context[0]) ?? [];
    expect(TRACEPARENT.exec(traceId)?.[1]).toBe(trip.trace.traceId);

    const perTurn = await traceOf('per turn');
    expect(perTurn.answers.ask).toEqual(['You chose Paris', 'You chose Rome']);
    expect(perTurn.questions.map((q) => [q.promptIndex, q.name, q.content])).toEqual([
      [0, 'city', { city: 'Paris' }],
      [1, 'city', { city: 'Rome' }],
    ]);

    const single = await traceOf('one answer for all');
    expect(single.answers.ask_twice).toEqual(['You chose Lyon on Sunday']);

    // One trace id per iteration, never shared.
    const traceIds = await Promise.all(
      ['2025 in order', '2026 by name', 'per turn', 'one answer for all'].map(
        async (t) => (await traceOf(t)).trace.traceId,
      ),
    );
    const tripIds = await Promise.all(
      trips.map(async (i) => {
        const reply = await world.call(
          'GET',
          `/projects/${world.org.projectId}/eval-runs/${finished.id}/iterations/${i.id}/trace`,
        );
        return reply.body.traceId as string;
      }),
    );
    expect(new Set([...traceIds, ...tripIds]).size).toBe(6);
  });

  it('fails an iteration whose server asks a question the script has no answer for, naming it', async () => {
    const { model } = world;
    model.setScript('questions-unscripted', {
      byQuery: {
        'Plan twice': [
          { toolCalls: [{ name: 'ask_twice', arguments: {} }] },
          { toolCalls: [{ name: 'ask_twice', arguments: {} }] },
          { text: 'never reached' },
        ],
        'Order coffee': [{ toolCalls: [{ name: 'order_coffee', arguments: {} }] }, { text: 'never reached' }],
      },
    });
    const common = { model: 'questions-unscripted', provider: 'openai' };
    const {
      run: finished,
      iterations,
      traceOf,
    } = await run('unscripted questions', [
      {
        ...common,
        title: '2026 unscripted',
        query: 'Plan twice',
        elicitation: { answers: [{ question: 'city', action: 'accept', content: { city: 'Paris' } }] },
      },
      {
        ...common,
        title: '2025 unscripted',
        query: 'Order coffee',
        // Named answers only: a 2025 server's request has no name to match.
        elicitation: { answers: [{ question: 'size', action: 'accept', content: { size: 'small', shots: 1 } }] },
      },
    ]);
    expect(finished).toMatchObject({
      status: 'completed',
      result: 'failed',
      summary: { total: 2, failed: 0, errored: 2 },
    });

    const modern = await traceOf('2026 unscripted');
    expect(modern.iteration).toMatchObject({
      status: 'failed',
      result: 'failed',
      error: `tool "ask_twice" asked question "day" ("Which day in Paris?") and the case's elicitation script has no answer for it`,
      errorDetails: { reason: 'UNSCRIPTED_QUESTION', question: 'day', toolName: 'ask_twice', attempt: 1 },
    });
    expect(modern.trace.error).toBe(modern.iteration.error);
    expect(modern.questions.map((q) => [q.name, q.answeredBy, q.action])).toEqual([
      ['city', 'script', 'accept'],
      ['day', 'unanswered', undefined],
    ]);
    expect(modern.trace.traceId).toMatch(/^[0-9a-f]{32}$/);

    const legacy = await traceOf('2025 unscripted');
    expect(legacy.iteration).toMatchObject({
      status: 'failed',
      error: `tool "order_coffee" asked "How would you like your coffee?" and the case's elicitation script has no answer for it`,
      errorDetails: { reason: 'UNSCRIPTED_QUESTION', toolName: 'order_coffee' },
    });
    expect(legacy.questions).toEqual([
      expect.objectContaining({ toolName: 'order_coffee', answeredBy: 'unanswered', error: expect.any(String) }),
    ]);

    // The iteration stopped at the step that met the question: the model was not asked again, and not retried.
    const calls = model.calls('questions-unscripted');
    expect(calls.filter((c) => c.lastUserText === 'Plan twice')).toHaveLength(1);
    expect(calls.filter((c) => c.lastUserText === 'Order coffee')).toHaveLength(1);
    expect(iterations).toHaveLength(2);
  });
});
