import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProtocolError, type CreateMessageRequest } from '@modelcontextprotocol/client';
import {
  AgentRunFailure,
  MAX_SAMPLING_REQUESTS,
  runAgent,
  type AgentRecord,
  type AgentTool,
} from '../../domain/models/agentLoop.js';
import { parseHostedModels, resolveModel, type ModelAccess, type ModelRequest } from '../../domain/models/catalog.js';
import { createLanguageModel } from '../../domain/models/providers.js';
import { MAX_GATE_RETRIES_PER_CALL } from '../../domain/models/rateLimits.js';
import { startScriptedModelServer, type ModelScript, type ScriptedModelServer } from '../fixtures/model/server.js';

let server: ScriptedModelServer;

beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  server.reset();
});

/** The production path: catalog rules, then the provider package, pointed at the scripted server. */
function modelFor(request: ModelRequest, overrides: Partial<ModelAccess> = {}) {
  const resolved = resolveModel({
    ...request,
    catalog: parseHostedModels('openai/scripted-hosted'),
    orgProviderKeys: {
      openai: { apiKey: 'org-openai-key', baseUrl: server.url },
      'openai-compatible': { apiKey: 'org-compat-key', baseUrl: server.url },
      anthropic: { apiKey: 'org-anthropic-key', baseUrl: server.url },
      google: { apiKey: 'org-google-key', baseUrl: `${server.origin}/v1beta` },
    },
    modelApiKeys: {},
    ...overrides,
  });
  if (!resolved.ok) throw new Error(resolved.message);
  return createLanguageModel(resolved);
}

function script(modelId: string, turns: ModelScript) {
  server.setScript(modelId, turns);
}

const seen: Array<{ tool: string; args: Record<string, unknown> }> = [];
beforeEach(() => {
  seen.length = 0;
});

const tools: AgentTool[] = [
  {
    name: 'search_docs',
    description: 'Search the documentation',
    inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    call: async (args) => {
      seen.push({ tool: 'search_docs', args });
      return { content: [{ type: 'text', text: `3 results for ${String(args.query)}` }] };
    },
  },
  {
    name: 'get_time',
    inputSchema: { type: 'object' },
    call: async (args) => {
      seen.push({ tool: 'get_time', args });
      return { content: [{ type: 'text', text: '12:00' }], structuredContent: { time: '12:00' } };
    },
  },
  {
    name: 'flaky_db',
    inputSchema: { type: 'object', properties: { id: { type: 'number' } } },
    call: async () => {
      throw new Error('database is down');
    },
  },
  {
    name: 'delete_all',
    inputSchema: { type: 'object' },
    call: async () => ({ content: [{ type: 'text', text: 'not allowed' }], isError: true }),
  },
  {
    name: 'wait_forever',
    inputSchema: { type: 'object' },
    call: (_args, { signal }) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('tool call aborted')), { once: true });
      }),
  },
];

/** Two tool calls in one turn, then the answer: the conversation the per-provider runAgent tests play. */
const temporalSearch: ModelScript = [
  {
    toolCalls: [
      { name: 'search_docs', arguments: { query: 'temporal' } },
      { name: 'get_time', arguments: {} },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 3 },
  },
  { text: 'Temporal has 3 results; it is noon.', usage: { prompt_tokens: 20, completion_tokens: 5 } },
];

/** What runAgent recorded of temporalSearch, whichever provider played it (`toolCallId`: the provider's id form). */
function expectTemporalSearch(record: AgentRecord, toolCallId: unknown) {
  expect(seen).toEqual([
    { tool: 'search_docs', args: { query: 'temporal' } },
    { tool: 'get_time', args: {} },
  ]);
  expect(record.toolCalls).toEqual([
    {
      toolCallId,
      toolName: 'search_docs',
      arguments: { query: 'temporal' },
      isError: false,
      durationMs: expect.any(Number),
      result: { content: [{ type: 'text', text: '3 results for temporal' }] },
      stepIndex: 0,
    },
    expect.objectContaining({ toolName: 'get_time', arguments: {}, isError: false, stepIndex: 0 }),
  ]);
  expect(record.text).toBe('Temporal has 3 results; it is noon.');
  expect(record.finishReason).toBe('stop');
  expect(record.usage).toEqual({ inputTokens: 30, outputTokens: 8, totalTokens: 38, cachedInputTokens: 0 });
  expect(record.steps).toEqual([
    expect.objectContaining({
      index: 0,
      inputTokens: 10,
      outputTokens: 3,
      toolCalls: ['search_docs', 'get_time'],
      finishReason: 'tool-calls',
    }),
    expect.objectContaining({ index: 1, inputTokens: 20, outputTokens: 5, toolCalls: [], finishReason: 'stop' }),
  ]);
}

async function failureOf(run: Promise<AgentRecord>): Promise<AgentRunFailure> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentRunFailure);
  return error as AgentRunFailure;
}

describe('runAgent against the scripted model server', () => {
  it('runs a hosted openai model on the per-run key and records the whole conversation', async () => {
    script('scripted-hosted', temporalSearch);
    const model = modelFor(
      { model: 'openai/scripted-hosted', provider: 'openai' },
      { modelApiKeys: { openai: 'run-key-1' } },
    );

    const record = await runAgent({ model, system: 'Be brief.', prompt: 'Search temporal docs', tools, maxSteps: 5 });

    expectTemporalSearch(record, expect.any(String));
    expect(record.stepLimitReached).toBe(false);
    expect(record.messages.map((m) => (m as { role: string }).role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(JSON.parse(JSON.stringify(record))).toEqual(record);

    // The per-run key, not the organization's, reached the provider; both requests carried the tools.
    const calls = server.calls('scripted-hosted');
    expect(calls.map((c) => c.apiKey)).toEqual(['run-key-1', 'run-key-1']);
    expect(calls[0]!.tools).toEqual(['search_docs', 'get_time', 'flaky_db', 'delete_all', 'wait_forever']);
    expect(calls[1]!.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      '3 results for temporal',
      '12:00',
    ]);
  });

  it('records spans: a step per model turn holding its llm call and tool calls', async () => {
    script('scripted-hosted', [
      {
        toolCalls: [{ name: 'search_docs', arguments: { query: 'x' } }],
        usage: { prompt_tokens: 7, completion_tokens: 2 },
      },
      { text: 'ok' },
    ]);
    const model = modelFor({ model: 'openai/scripted-hosted' });
    // Span times count from the iteration's start, which came a second before the model part.
    const record = await runAgent({ model, prompt: 'q', tools, maxSteps: 3, startedAt: Date.now() - 1000 });

    const byCategory = (category: string) => record.spans.filter((s) => s.category === category);
    const [step1, step2] = byCategory('step');
    expect(byCategory('step')).toHaveLength(2);
    expect(step1).toMatchObject({ name: 'step 1', status: 'ok', inputTokens: 7, outputTokens: 2 });
    expect(step1!.parentId).toBeUndefined();
    expect(byCategory('llm')).toEqual([
      expect.objectContaining({
        parentId: step1!.id,
        name: 'scripted-hosted',
        modelId: 'scripted-hosted',
        status: 'ok',
        inputTokens: 7,
        outputTokens: 2,
      }),
      expect.objectContaining({ parentId: step2!.id, modelId: 'scripted-hosted', status: 'ok' }),
    ]);
    expect(byCategory('tool')).toEqual([
      expect.objectContaining({ parentId: step1!.id, name: 'search_docs', toolName: 'search_docs', status: 'ok' }),
    ]);
    expect(byCategory('error')).toEqual([]);
    expect(new Set(record.spans.map((s) => s.id)).size).toBe(record.spans.length);
    for (const span of record.spans) {
      expect(span.startMs).toBeGreaterThanOrEqual(1000);
      expect(span.endMs).toBeGreaterThanOrEqual(span.startMs);
      expect(span.endMs).toBeLessThanOrEqual(1000 + record.durationMs + 50);
    }
    expect(step2!.startMs).toBeGreaterThanOrEqual(step1!.endMs);
  });

  it("answers a tool's sampling requests with the run's model: a span under the tool call, tokens in the usage, failures as JSON-RPC errors", async () => {
    script('scripted-hosted', {
      byQuery: {
        'write a haiku': [
          { toolCalls: [{ name: 'poet', arguments: {} }], usage: { prompt_tokens: 5, completion_tokens: 1 } },
          { text: 'done', usage: { prompt_tokens: 6, completion_tokens: 1 } },
        ],
        'Haiku about': [{ text: 'autumn wind', usage: { prompt_tokens: 3, completion_tokens: 2 } }],
        'Fail please': [{ error: { status: 400, message: 'this request mentions org-openai-key internals' } }],
      },
    });
    const request = (text: string): CreateMessageRequest['params'] => ({
      messages: [{ role: 'user', content: { type: 'text', text } }],
      systemPrompt: 'Answer in five words.',
      maxTokens: 50,
    });
    const answers: unknown[] = [];
    const poet: AgentTool = {
      name: 'poet',
      inputSchema: { type: 'object' },
      call: async (_args, { signal, sample }) => {
        answers.push(await sample(request('Haiku about autumn'), signal));
        answers.push(await sample(request('Fail please'), signal).catch((error: unknown) => error));
        // The bound: 25 requests per iteration (the failed one counts), then the spec's "rejected".
        for (let n = 2; n <= MAX_SAMPLING_REQUESTS; n++)
          answers.push(await sample(request('Haiku about more'), signal).catch((error: unknown) => error));
        return { content: [{ type: 'text', text: 'written' }] };
      },
    };
    const record = await runAgent({
      model: modelFor({ model: 'openai/scripted-hosted' }),
      prompt: 'write a haiku',
      tools: [poet],
      maxSteps: 3,
    });

    expect(answers[0]).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'autumn wind' },
      model: 'scripted-hosted',
      stopReason: 'endTurn',
    });
    expect(answers[1]).toBeInstanceOf(ProtocolError);
    expect(answers[1]).toMatchObject({ code: -32603, message: expect.stringContaining('rejected') });
    expect((answers[1] as Error).message).not.toContain('org-openai-key');
    expect(answers.slice(2, -1).every((a) => (a as { content: { text: string } }).content.text === 'autumn wind')).toBe(
      true,
    );
    expect(answers.at(-1)).toMatchObject({ code: -1 });
    expect(answers).toHaveLength(MAX_SAMPLING_REQUESTS + 1);

    const tool = record.spans.find((s) => s.category === 'tool')!;
    const sampling = record.spans.filter((s) => s.name === 'sampling');
    expect(sampling).toHaveLength(MAX_SAMPLING_REQUESTS);
    expect(
      sampling.every((s) => s.category === 'llm' && s.parentId === tool.id && s.modelId === 'scripted-hosted'),
    ).toBe(true);
    expect(sampling.map((s) => s.status).filter((status) => status !== 'ok')).toEqual(['error']);
    const answered = MAX_SAMPLING_REQUESTS - 1;
    expect(record.usage).toEqual({
      inputTokens: 5 + 6 + 3 * answered,
      outputTokens: 1 + 1 + 2 * answered,
      totalTokens: 5 + 6 + 1 + 1 + 5 * answered,
      cachedInputTokens: 0,
    });
    const sampled = server.calls('scripted-hosted').filter((c) => c.lastUserText.startsWith('Haiku about'));
    expect(sampled[0]).toMatchObject({
      tools: [],
      messages: [{ role: 'system', content: 'Answer in five words.' }, { role: 'user' }],
    });
  });

  it('feeds thrown tool errors and isError results back to the model and keeps going (openai-compatible)', async () => {
    script('compat-model', [
      { toolCalls: [{ name: 'flaky_db', arguments: { id: 7 } }] },
      { toolCalls: [{ name: 'delete_all', arguments: {} }] },
      { toolCalls: [{ name: 'no_such_tool', arguments: { a: 1 } }] },
      { text: 'I could not do it.' },
    ]);
    const model = modelFor(
      { model: 'compat-model', provider: 'openai-compatible' },
      { modelApiKeys: { 'openai-compatible': 'run-key-2' } },
    );

    const record = await runAgent({ model, prompt: 'clean up', tools, maxSteps: 10 });

    expect(record.text).toBe('I could not do it.');
    expect(record.toolCalls.map((c) => [c.toolName, c.arguments, c.isError])).toEqual([
      ['flaky_db', { id: 7 }, true],
      ['delete_all', {}, true],
      ['no_such_tool', { a: 1 }, true],
    ]);
    expect(record.toolCalls[0]!.result).toEqual({
      content: [{ type: 'text', text: 'database is down' }],
      isError: true,
    });
    expect(record.spans.filter((s) => s.category === 'tool').map((s) => [s.name, s.status])).toEqual([
      ['flaky_db', 'error'],
      ['delete_all', 'error'],
      ['no_such_tool', 'error'],
    ]);

    const calls = server.calls('compat-model');
    expect(calls.map((c) => c.apiKey)).toEqual(['run-key-2', 'run-key-2', 'run-key-2', 'run-key-2']);
    const toolMessages = calls[3]!.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(toolMessages[0]).toContain('database is down');
    expect(toolMessages[1]).toContain('not allowed');
    expect(toolMessages[2]).toMatch(/no_such_tool/);
  });

  it('stops after maxSteps model turns', async () => {
    const turn = { toolCalls: [{ name: 'get_time', arguments: {} }] };
    script('scripted-hosted', [turn, turn, turn, turn, turn]);
    const model = modelFor({ model: 'openai/scripted-hosted' });

    const record = await runAgent({ model, prompt: 'loop', tools, maxSteps: 2 });

    expect(server.calls('scripted-hosted')).toHaveLength(2);
    expect(record.steps).toHaveLength(2);
    expect(record.toolCalls).toHaveLength(2);
    expect(record.finishReason).toBe('tool-calls');
    expect(record.stepLimitReached).toBe(true);
    expect(record.text).toBe('');
  });

  it('aborts an in-flight model call when the signal fires', async () => {
    script('scripted-hosted', [{ delayMs: 30_000, text: 'too late' }]);
    const model = modelFor({ model: 'openai/scripted-hosted' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();

    const failure = await failureOf(runAgent({ model, prompt: 'q', tools, maxSteps: 3, signal: controller.signal }));

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(failure.failure).toMatchObject({ kind: 'aborted' });
    expect(failure.record.finishReason).toBe('error');
    expect(failure.record.spans.map((s) => [s.category, s.status])).toEqual([
      ['step', 'cancelled'],
      ['llm', 'cancelled'],
      ['error', 'error'],
    ]);
    await vi.waitFor(() => expect(server.calls('scripted-hosted')[0]!.outcome).toBe('aborted'));
  });

  it('aborts an in-flight tool call and keeps what finished before', async () => {
    script('scripted-hosted', [
      { toolCalls: [{ name: 'get_time', arguments: {} }] },
      { toolCalls: [{ name: 'wait_forever', arguments: {} }] },
      { text: 'never' },
    ]);
    const model = modelFor({ model: 'openai/scripted-hosted' });
    const controller = new AbortController();
    const run = runAgent({ model, prompt: 'q', tools, maxSteps: 5, signal: controller.signal });
    await vi.waitFor(() => expect(server.calls('scripted-hosted')).toHaveLength(2));
    setTimeout(() => controller.abort(), 50);

    const failure = await failureOf(run);

    expect(failure.failure.kind).toBe('aborted');
    expect(failure.record.toolCalls.map((c) => [c.toolName, c.isError])).toEqual([
      ['get_time', false],
      ['wait_forever', true],
    ]);
    expect(failure.record.toolCalls[1]!.durationMs).toBeGreaterThan(0);
    expect(failure.record.spans.find((s) => s.name === 'wait_forever')?.status).toBe('cancelled');
    expect(failure.record.spans.filter((s) => s.category === 'step').map((s) => s.status)).toEqual(['ok', 'cancelled']);
    expect(server.calls('scripted-hosted')).toHaveLength(2);
  });

  it('fails on HTTP 401 without retrying', async () => {
    script('scripted-hosted', [
      { error: { status: 401, message: 'Incorrect API key provided', code: 'invalid_api_key' } },
    ]);
    const model = modelFor({ model: 'openai/scripted-hosted' });

    const failure = await failureOf(runAgent({ model, prompt: 'q', tools, maxSteps: 3 }));

    expect(failure.failure).toMatchObject({ kind: 'unauthorized', status: 401 });
    expect(failure.message).toMatch(/API key.*Incorrect API key provided/);
    expect(server.calls('scripted-hosted')).toHaveLength(1);
  });

  it("fails on HTTP 503 without the AI SDK's retries (retries are Temporal's), keeping the trace so far", async () => {
    script('scripted-hosted', [
      { toolCalls: [{ name: 'get_time', arguments: {} }] },
      { error: { status: 503, message: 'overloaded', retryAfterMs: 1 } },
    ]);
    const model = modelFor({ model: 'openai/scripted-hosted' });

    const failure = await failureOf(runAgent({ model, prompt: 'q', tools, maxSteps: 3 }));

    expect(failure.failure).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(failure.message).toMatch(/unavailable \(HTTP 503\): overloaded$/);
    expect(server.calls('scripted-hosted')).toHaveLength(2);
    // What happened before the failure is kept for the trace.
    const { record } = failure;
    expect(record.toolCalls.map((c) => c.toolName)).toEqual(['get_time']);
    expect(record.steps).toHaveLength(1);
    expect(record.messages.map((m) => (m as { role: string }).role)).toEqual(['user', 'assistant', 'tool']);
    expect(record.spans.filter((s) => s.category === 'llm').map((s) => s.status)).toEqual(['ok', 'error']);
    expect(record.spans.at(-1)).toMatchObject({
      category: 'error',
      status: 'error',
      parentId: expect.stringMatching(/^step-/),
    });
  });

  it("fails at once, without the AI SDK's retries, when the provider's host does not resolve", async () => {
    // `.invalid` never resolves (RFC 2606)
    const model = modelFor(
      { model: 'some-model', provider: 'openai' },
      { orgProviderKeys: { openai: { apiKey: 'k', baseUrl: 'http://runway-no-such-host.invalid/v1' } } },
    );

    const failure = await failureOf(runAgent({ model, prompt: 'q', tools, maxSteps: 3 }));

    expect(failure.failure).toEqual({
      kind: 'host_not_found',
      message: expect.stringMatching(/could not reach the model provider: .*ENOTFOUND runway-no-such-host\.invalid$/),
    });
    // one model call attempted, not three
    expect(failure.record.spans.filter((s) => s.category === 'llm').map((s) => s.status)).toEqual(['error']);
  });

  it('recovers when a retry succeeds', async () => {
    script('scripted-hosted', [
      { error: { status: 429, message: 'slow down', retryAfterMs: 1, times: 1 }, text: 'fine' },
    ]);
    const model = modelFor({ model: 'openai/scripted-hosted' });

    const record = await runAgent({ model, prompt: 'q', tools: [], maxSteps: 1 });

    expect(record.text).toBe('fine');
    expect(record.spans.filter((s) => s.category === 'llm').map((s) => s.status)).toEqual(['error', 'ok']);
  });

  it('runs a hosted anthropic model on the organization key through the Messages API', async () => {
    script('claude-scripted', temporalSearch);
    const model = modelFor(
      { model: 'anthropic/claude-scripted' },
      { catalog: parseHostedModels('anthropic/claude-scripted'), modelApiKeys: {} },
    );

    const record = await runAgent({ model, system: 'Be brief.', prompt: 'Search temporal docs', tools, maxSteps: 5 });

    expectTemporalSearch(record, expect.stringMatching(/^toolu_/));
    expect(JSON.parse(JSON.stringify(record))).toEqual(record);

    const calls = server.calls('claude-scripted');
    expect(calls.map((c) => [c.protocol, c.apiKey, c.turnIndex])).toEqual([
      ['anthropic', 'org-anthropic-key', 0],
      ['anthropic', 'org-anthropic-key', 1],
    ]);
    expect(calls[0]!.tools).toEqual(['search_docs', 'get_time', 'flaky_db', 'delete_all', 'wait_forever']);
    expect(calls[0]!.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    const toolMessages = calls[1]!.messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.content)).toEqual(['3 results for temporal', '12:00']);
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(record.toolCalls.map((c) => c.toolCallId));
  });

  it('runs a google model on the per-run key through the Gemini API, feeding tool errors back', async () => {
    script('gemini-scripted', [
      {
        toolCalls: [{ name: 'search_docs', arguments: { query: 'mcp' } }],
        usage: { prompt_tokens: 8, completion_tokens: 2 },
      },
      { toolCalls: [{ name: 'flaky_db', arguments: { id: 7 } }], usage: { prompt_tokens: 12, completion_tokens: 3 } },
      { text: 'Found 3 results; the database is down.', usage: { prompt_tokens: 16, completion_tokens: 6 } },
    ]);
    const model = modelFor({ model: 'gemini-scripted', provider: 'google' }, { modelApiKeys: { google: 'run-key-g' } });

    const record = await runAgent({ model, system: 'Be brief.', prompt: 'Search mcp docs', tools, maxSteps: 5 });

    expect(record.toolCalls.map((c) => [c.toolName, c.arguments, c.isError, c.stepIndex])).toEqual([
      ['search_docs', { query: 'mcp' }, false, 0],
      ['flaky_db', { id: 7 }, true, 1],
    ]);
    expect(record.toolCalls[1]!.result).toEqual({
      content: [{ type: 'text', text: 'database is down' }],
      isError: true,
    });
    expect(record.text).toBe('Found 3 results; the database is down.');
    expect(record.finishReason).toBe('stop');
    expect(record.usage).toEqual({ inputTokens: 36, outputTokens: 11, totalTokens: 47, cachedInputTokens: 0 });
    expect(record.steps.map((s) => [s.inputTokens, s.outputTokens, s.finishReason])).toEqual([
      [8, 2, 'tool-calls'],
      [12, 3, 'tool-calls'],
      [16, 6, 'stop'],
    ]);

    const calls = server.calls('gemini-scripted');
    expect(calls.map((c) => [c.protocol, c.apiKey, c.turnIndex])).toEqual([
      ['google', 'run-key-g', 0],
      ['google', 'run-key-g', 1],
      ['google', 'run-key-g', 2],
    ]);
    expect(calls[0]!.tools).toEqual(['search_docs', 'get_time', 'flaky_db', 'delete_all', 'wait_forever']);
    expect(calls[0]!.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(calls[2]!.messages.filter((m) => m.role === 'tool').map((m) => [m.name, m.content])).toEqual([
      ['search_docs', '3 results for mcp'],
      ['flaky_db', 'database is down'],
    ]);
    expect(calls[2]!.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(
      record.toolCalls.map((c) => c.toolCallId),
    );
    // Each replayed function call carries the thought signature the server gave it (Gemini 3 rejects calls without).
    const replayed = calls[2]!.messages.flatMap((m) => m.tool_calls ?? []) as Array<{ thought_signature?: string }>;
    expect(replayed.map((c) => Buffer.from(c.thought_signature ?? '', 'base64').toString())).toEqual([
      expect.stringMatching(/^scripted-thought-signature-\d+$/),
      expect.stringMatching(/^scripted-thought-signature-\d+$/),
    ]);
  });

  it('classifies anthropic and google provider errors', async () => {
    script('claude-scripted', [{ error: { status: 529, message: 'Overloaded', retryAfterMs: 1 } }]);
    const claude = modelFor(
      { model: 'claude-scripted', provider: 'anthropic' },
      { modelApiKeys: { anthropic: 'run-key-a' } },
    );
    const overloaded = await failureOf(runAgent({ model: claude, prompt: 'q', tools, maxSteps: 3 }));
    expect(overloaded.failure).toMatchObject({ kind: 'unavailable', status: 529 });
    expect(overloaded.message).toMatch(/overloaded \(HTTP 529\): Overloaded/);
    // asked again after each reset at the rate-limit gate, a bounded number of times (not by the AI SDK's retries)
    expect(server.calls('claude-scripted').map((c) => [c.protocol, c.apiKey, c.status])).toEqual(
      Array.from({ length: MAX_GATE_RETRIES_PER_CALL + 1 }, () => ['anthropic', 'run-key-a', 529]),
    );

    script('gemini-scripted', [
      { error: { status: 429, message: 'Resource has been exhausted', retryAfterMs: 1, times: 1 }, text: 'fine' },
    ]);
    const gemini = modelFor(
      { model: 'gemini-scripted', provider: 'google' },
      { modelApiKeys: { google: 'run-key-g' } },
    );
    const recovered = await runAgent({ model: gemini, prompt: 'q', tools: [], maxSteps: 1 });
    expect(recovered.text).toBe('fine');
    expect(recovered.spans.filter((s) => s.category === 'llm').map((s) => s.status)).toEqual(['error', 'ok']);

    script('gemini-scripted', [
      { error: { status: 400, message: 'API key not valid. Please pass a valid API key.', code: 'API_KEY_INVALID' } },
    ]);
    const rejected = await failureOf(runAgent({ model: gemini, prompt: 'q', tools, maxSteps: 3 }));
    expect(rejected.failure).toMatchObject({ kind: 'rejected', status: 400 });
    expect(rejected.message).toMatch(/API key not valid/);
  });
});
