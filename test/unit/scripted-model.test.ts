import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { APICallError, RetryError, generateText, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import { startScriptedModelServer, type ScriptedModelServer } from '../fixtures/model/server.js';
import { connectScriptedModelServer } from '../fixtures/model/client.js';
import { parseModelScript, selectTurn } from '../fixtures/model/script.js';

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

/**
 * Aborts once the server holds the `nth` call of `model` (in its scripted delay), however long the request took to
 * get there: an abort before it arrived would test the client alone.
 */
function abortOnArrival(ac: AbortController, model: string, nth = 0): void {
  void vi
    .waitFor(() => expect(server.calls(model)[nth]).toBeDefined(), { timeout: 30_000, interval: 5 })
    .then(() => ac.abort());
}

function weatherTool(seen: Array<{ city: string }>) {
  return tool({
    description: 'Get the weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      seen.push({ city });
      return { city, forecast: 'sunny', tempC: 21 };
    },
  });
}

describe('scripted model server', () => {
  it('drives generateText with createOpenAI().chat() through a tool call', async () => {
    server.setScript('m1', [
      {
        toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
        usage: { prompt_tokens: 11, completion_tokens: 7 },
      },
      { text: 'It is sunny in Paris.' },
    ]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'sk-run-123' });
    const seen: Array<{ city: string }> = [];

    const result = await generateText({
      model: openai.chat('m1'),
      tools: { get_weather: weatherTool(seen) },
      stopWhen: stepCountIs(5),
      prompt: "What's the weather in Paris?",
    });

    expect(seen).toEqual([{ city: 'Paris' }]);
    expect(result.text).toBe('It is sunny in Paris.');
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.finishReason).toBe('tool-calls');
    expect(result.steps[0]!.toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { city: 'Paris' } });
    expect(result.steps[0]!.toolCalls[0]!.toolCallId).toMatch(/^call_\d+$/);
    expect(result.steps[0]!.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });
    expect(result.finishReason).toBe('stop');
    expect(result.totalUsage.inputTokens).toBeGreaterThan(11);

    const calls = server.calls('m1');
    expect(calls.map((c) => c.turnIndex)).toEqual([0, 1]);
    expect(calls.every((c) => c.apiKey === 'sk-run-123' && !c.stream)).toBe(true);
    expect(calls[0]!.tools).toEqual(['get_weather']);
    expect(calls.map((c) => c.outcome)).toEqual(['tool_calls', 'stop']);
    // second request carries the assistant tool call and the tool result
    expect(calls[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(calls[1]!.messages[2]!.tool_call_id).toBe(calls[0]!.toolCallIds[0]);
  });

  it('drives streamText with createOpenAICompatible (SSE tool-call deltas and usage)', async () => {
    server.setScript('m2', [
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Oslo: sunny, 21C. Have a nice day!' },
    ]);
    const provider = createOpenAICompatible({
      name: 'scripted',
      baseURL: server.url,
      apiKey: 'key-b',
      includeUsage: true,
    });
    const seen: Array<{ city: string }> = [];

    const result = streamText({
      model: provider('m2'),
      tools: { get_weather: weatherTool(seen) },
      stopWhen: stepCountIs(5),
      prompt: 'Weather in Oslo?',
    });
    const types: string[] = [];
    let text = '';
    const toolInputs: unknown[] = [];
    for await (const part of result.fullStream) {
      types.push(part.type);
      if (part.type === 'text-delta') text += part.text;
      if (part.type === 'tool-call') toolInputs.push(part.input);
      if (part.type === 'error') throw part.error;
    }

    expect(seen).toEqual([{ city: 'Oslo' }]);
    expect(toolInputs).toEqual([{ city: 'Oslo' }]);
    expect(text).toBe('Oslo: sunny, 21C. Have a nice day!');
    expect(types).toContain('tool-result');
    expect(await result.text).toBe('Oslo: sunny, 21C. Have a nice day!');
    const usage = await result.totalUsage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);

    const calls = server.calls('m2');
    expect(calls.map((c) => [c.turnIndex, c.stream, c.includeUsage, c.apiKey])).toEqual([
      [0, true, true, 'key-b'],
      [1, true, true, 'key-b'],
    ]);
  });

  it('omits the usage chunk when stream_options.include_usage is not sent', async () => {
    // createOpenAICompatible only sends stream_options when includeUsage: true
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: server.url, apiKey: 'k' });
    const result = streamText({ model: provider('instant'), prompt: 'hi' });
    expect(await result.text).toBe('ok');
    expect((await result.usage).inputTokens).toBeUndefined();
    expect(server.calls('instant')[0]).toMatchObject({ stream: true, includeUsage: false });

    const openai = createOpenAI({ baseURL: server.url, apiKey: 'k' });
    const r2 = streamText({ model: openai.chat('instant'), prompt: 'hi' });
    expect(await r2.text).toBe('ok');
    expect((await r2.usage).inputTokens).toBeGreaterThan(0);
    expect(server.calls('instant')[1]).toMatchObject({ stream: true, includeUsage: true });
  });

  it('selects turn lists byQuery, and each user query restarts at turn 0', async () => {
    server.setScript('shared', {
      byQuery: {
        weather: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] }, { text: 'weather answer' }],
        joke: [{ text: 'joke answer' }],
      },
      default: [{ text: 'default answer' }],
    });
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'k' });
    const seen: Array<{ city: string }> = [];
    const run = (prompt: string) =>
      generateText({
        model: openai.chat('shared'),
        tools: { get_weather: weatherTool(seen) },
        stopWhen: stepCountIs(5),
        prompt,
      });

    expect((await run('tell me the weather please')).text).toBe('weather answer');
    expect((await run('tell me a joke')).text).toBe('joke answer');
    expect((await run('something else')).text).toBe('default answer');
    expect(seen).toEqual([{ city: 'Rome' }]);

    // a follow-up user message after earlier assistant turns starts again at turn 0
    const followUp = await generateText({
      model: openai.chat('shared'),
      messages: [
        { role: 'user', content: 'tell me a joke' },
        { role: 'assistant', content: 'joke answer' },
        { role: 'user', content: 'another joke' },
      ],
    });
    expect(followUp.text).toBe('joke answer');

    const calls = server.calls('shared');
    expect(calls.map((c) => [c.list, c.turnIndex])).toEqual([
      ['weather', 0],
      ['weather', 1],
      ['joke', 0],
      ['default', 0],
      ['joke', 0],
    ]);
  });

  it('answers "done" when turns run out and "ok" (with usage) for unscripted models', async () => {
    server.setScript('short', [{ text: 'first' }]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'k' });
    const r = await generateText({
      model: openai.chat('short'),
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'first' },
      ],
    });
    expect(r.text).toBe('done');
    expect(server.calls('short')[0]!.turnIndex).toBe(1);

    const instant = await generateText({ model: openai.chat('bench-instant'), prompt: 'hello there' });
    expect(instant.text).toBe('ok');
    expect(instant.usage.inputTokens).toBeGreaterThan(0);
    expect(instant.usage.outputTokens).toBeGreaterThan(0);
    expect(server.calls('bench-instant')[0]).toMatchObject({ scripted: false, list: null });
  });

  it('surfaces an error turn as an APICallError with the scripted status and message', async () => {
    server.setScript('bad', [
      { error: { status: 400, message: 'context length exceeded', code: 'context_length_exceeded' } },
    ]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'k' });
    const err = await generateText({ model: openai.chat('bad'), prompt: 'x' }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err)).toBe(true);
    const apiErr = err as APICallError;
    expect(apiErr.statusCode).toBe(400);
    expect(apiErr.message).toBe('context length exceeded');
    expect(apiErr.isRetryable).toBe(false);
    expect(apiErr.data).toMatchObject({ error: { code: 'context_length_exceeded', type: 'invalid_request_error' } });
    expect(server.calls('bad')).toHaveLength(1);
  });

  it('replays the same turn on SDK retries (stateless), and error.times lets a retry succeed', async () => {
    server.setScript('flaky', [{ error: { status: 503, message: 'overloaded', retryAfterMs: 1 } }]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'k' });
    const err = await generateText({ model: openai.chat('flaky'), prompt: 'x', maxRetries: 2 }).catch(
      (e: unknown) => e,
    );
    expect(RetryError.isInstance(err)).toBe(true);
    const last = (err as RetryError).lastError;
    expect(APICallError.isInstance(last) && last.statusCode).toBe(503);
    expect(server.calls('flaky').map((c) => [c.turnIndex, c.outcome])).toEqual([
      [0, 'error'],
      [0, 'error'],
      [0, 'error'],
    ]);

    server.setScript('flaky2', [
      { error: { status: 429, message: 'slow down', retryAfterMs: 1, times: 1 }, text: 'recovered' },
    ]);
    const ok = await generateText({ model: openai.chat('flaky2'), prompt: 'x', maxRetries: 2 });
    expect(ok.text).toBe('recovered');
    expect(server.calls('flaky2').map((c) => c.outcome)).toEqual(['error', 'stop']);
  });

  it('stops a delayed turn early when the client aborts, and keeps serving', async () => {
    server.setScript('slow', [{ delayMs: 30_000, text: 'too late' }]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'k' });
    const ac = new AbortController();
    abortOnArrival(ac, 'slow');
    const err = await generateText({ model: openai.chat('slow'), prompt: 'x', abortSignal: ac.signal }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe('AbortError');
    // 'aborted': the server saw the client leave during the 30 s delay, before it answered
    await vi.waitFor(() => expect(server.calls('slow')[0]!.outcome).toBe('aborted'));

    // streaming request aborted during the delay, too
    const provider = createOpenAICompatible({ name: 's', baseURL: server.url, apiKey: 'k' });
    const ac2 = new AbortController();
    abortOnArrival(ac2, 'slow', 1);
    const stream = streamText({ model: provider('slow'), prompt: 'x', abortSignal: ac2.signal, onError: () => {} });
    const parts: string[] = [];
    for await (const p of stream.fullStream) parts.push(p.type);
    expect(parts).toContain('abort');
    await vi.waitFor(() => expect(server.calls('slow')[1]!.outcome).toBe('aborted'));

    server.setScript('fast', [{ delayMs: 20, text: 'on time' }]);
    expect((await generateText({ model: openai.chat('fast'), prompt: 'x' })).text).toBe('on time');
  });

  it('requires a bearer API key', async () => {
    const res = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_api_key', type: 'invalid_request_error' } });

    // createOpenAICompatible omits the Authorization header when apiKey is empty
    const provider = createOpenAICompatible({ name: 's', baseURL: server.url });
    const err = await generateText({ model: provider('m'), prompt: 'x' }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err) && err.statusCode).toBe(401);
    expect(server.calls()).toHaveLength(0);
  });

  it('rejects createOpenAI()(id) (Responses API) with a clear 404', async () => {
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'k' });
    const err = await generateText({ model: openai('m'), prompt: 'x' }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err) && err.statusCode).toBe(404);
    expect((err as Error).message).toMatch(/Chat Completions/);
  });

  it('can be scripted and inspected over HTTP from another process', async () => {
    const admin = connectScriptedModelServer(server.url);
    await admin.setScript('vendor/model-x', [{ text: 'remote hello' }]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: 'per-run-key' });
    expect((await generateText({ model: openai.chat('vendor/model-x'), prompt: 'x' })).text).toBe('remote hello');

    const calls = await admin.calls('vendor/model-x');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ model: 'vendor/model-x', apiKey: 'per-run-key', turnIndex: 0, outcome: 'stop' });

    const models = (await (await fetch(`${server.url}/models`, { headers: { authorization: 'Bearer k' } })).json()) as {
      data: Array<{ id: string }>;
    };
    expect(models.data.map((m) => m.id)).toEqual(['vendor/model-x']);

    const bad = await fetch(`${server.origin}/_scripts/x`, { method: 'PUT', body: JSON.stringify([{ nope: 1 }]) });
    expect(bad.status).toBe(400);

    await admin.reset();
    expect(await admin.calls()).toEqual([]);
    expect((await generateText({ model: openai.chat('vendor/model-x'), prompt: 'x' })).text).toBe('ok');
  });
});

describe('script selection (pure)', () => {
  it('counts assistant messages since the last user message', () => {
    const script = parseModelScript([{ text: 'a' }, { text: 'b' }]);
    const sel = selectTurn(script, [
      { role: 'system', content: 's' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: null, tool_calls: [] },
      { role: 'tool', content: 'r' },
      { role: 'assistant', content: 'x' },
      { role: 'user', content: [{ type: 'text', text: 'q2' }] },
      { role: 'assistant', content: null },
      { role: 'tool', content: 'r' },
    ]);
    expect(sel).toMatchObject({ turnIndex: 1, turn: { text: 'b' }, lastUserText: 'q2', list: 'turns' });
  });

  it('validates scripts', () => {
    expect(() => parseModelScript({ byQuery: { a: [{ error: { status: 200, message: 'x' } }] } })).toThrow(/status/);
    expect(() => parseModelScript({ turns: [] })).toThrow(/unknown field/);
    expect(() => parseModelScript([{ toolCalls: [{ name: 't', arguments: '{}' }] }])).toThrow(/arguments/);
  });
});

/**
 * generateText through a tool call and a text answer, with a system prompt, and the checks every protocol shares;
 * the caller checks what its protocol put on the wire.
 */
async function generateWeather(model: LanguageModel, modelId: string, settings: { maxOutputTokens?: number } = {}) {
  server.setScript(modelId, [
    {
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
      usage: { prompt_tokens: 11, completion_tokens: 7 },
    },
    { text: 'It is sunny in Paris.', usage: { prompt_tokens: 30, completion_tokens: 9 } },
  ]);
  const seen: Array<{ city: string }> = [];
  const result = await generateText({
    model,
    ...settings,
    system: 'Be brief.',
    tools: { get_weather: weatherTool(seen) },
    stopWhen: stepCountIs(5),
    prompt: "What's the weather in Paris?",
  });
  expect(seen).toEqual([{ city: 'Paris' }]);
  expect(result.text).toBe('It is sunny in Paris.');
  expect(result.steps[0]!.toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { city: 'Paris' } });
  expect(result.steps[0]!.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });
  expect(result.totalUsage).toMatchObject({ inputTokens: 41, outputTokens: 16, totalTokens: 57 });
  return result;
}

describe('scripted model server: Anthropic Messages API', () => {
  const anthropic = (apiKey = 'sk-ant-run-1') => createAnthropic({ baseURL: server.url, apiKey });

  it('drives generateText through a tool call and a text answer', async () => {
    const result = await generateWeather(anthropic()('claude-1'), 'claude-1', { maxOutputTokens: 1000 });
    expect(result.steps.map((s) => [s.finishReason, s.rawFinishReason])).toEqual([
      ['tool-calls', 'tool_use'],
      ['stop', 'end_turn'],
    ]);
    expect(result.steps[0]!.toolCalls[0]!.toolCallId).toMatch(/^toolu_\d+$/);

    const calls = server.calls('claude-1');
    expect(calls.map((c) => [c.protocol, c.apiKey, c.turnIndex, c.stream, c.outcome])).toEqual([
      ['anthropic', 'sk-ant-run-1', 0, false, 'tool_calls'],
      ['anthropic', 'sk-ant-run-1', 1, false, 'stop'],
    ]);
    expect(calls[0]!.tools).toEqual(['get_weather']);
    expect(calls[0]!.lastUserText).toBe("What's the weather in Paris?");
    // The tool_result blocks Anthropic sends in a user message are recorded as a tool message,
    // so the second request plays turn 1 instead of restarting at turn 0.
    expect(calls[1]!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(calls[1]!.messages[0]!.content).toBe('Be brief.');
    expect(calls[1]!.messages[2]!.tool_calls).toEqual([
      {
        id: calls[0]!.toolCallIds[0],
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
    ]);
    expect(calls[1]!.messages[3]).toMatchObject({ tool_call_id: calls[0]!.toolCallIds[0] });
    expect(JSON.parse(String(calls[1]!.messages[3]!.content))).toEqual({ city: 'Paris', forecast: 'sunny', tempC: 21 });
  });

  it('speaks the Messages wire format: blocks in, message out, SSE event sequence', async () => {
    server.setScript('claude-raw', [
      { toolCalls: [{ name: 'lookup', arguments: { q: 'x' }, id: 'toolu_fixed' }], text: 'Let me look.' },
    ]);
    const post = (body: unknown) =>
      fetch(`${server.url}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify(body),
      });
    const request = {
      model: 'claude-raw',
      max_tokens: 100,
      system: [{ type: 'text', text: 'sys' }],
      tools: [{ name: 'lookup', description: 'd', input_schema: { type: 'object' } }],
      tool_choice: { type: 'auto' },
      messages: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'lookup', input: { q: 'a' } }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_a',
              content: [{ type: 'text', text: 'result a' }],
              is_error: true,
            },
            { type: 'text', text: 'second question' },
          ],
        },
      ],
    };

    const res = await post(request);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: 'message',
      role: 'assistant',
      model: 'claude-raw',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_fixed', name: 'lookup', input: { q: 'x' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: expect.objectContaining({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) }),
    });
    const [call] = server.calls('claude-raw');
    // A user message mixing tool results and text: the tool result first, then a new user query (turn 0).
    expect(call!.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'first question' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'toolu_a', type: 'function', function: { name: 'lookup', arguments: '{"q":"a"}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_a', content: 'result a', is_error: true },
      { role: 'user', content: [{ type: 'text', text: 'second question' }] },
    ]);
    expect(call).toMatchObject({
      turnIndex: 0,
      lastUserText: 'second question',
      tools: ['lookup'],
      toolChoice: { type: 'auto' },
    });

    const streamed = await post({ ...request, stream: true });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await streamed.text())
      .trim()
      .split('\n\n')
      .map((frame) => {
        const [eventLine, dataLine] = frame.split('\n');
        const data = JSON.parse(dataLine!.replace(/^data: /, '')) as { type: string; delta?: { type?: string } };
        expect(eventLine).toBe(`event: ${data.type}`);
        return data.delta?.type ? `${data.type}:${data.delta.type}` : data.type;
      });
    expect(events).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta:text_delta',
      'content_block_delta:text_delta',
      'content_block_delta:text_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta:input_json_delta',
      'content_block_delta:input_json_delta',
      'content_block_delta:input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);

    const noVersion = await fetch(`${server.url}/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k' },
      body: JSON.stringify(request),
    });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('retries a scripted 429 (times: 1, retry-after-ms) and succeeds', async () => {
    server.setScript('claude-flaky', [
      {
        error: { status: 429, message: 'Number of requests has exceeded your rate limit', retryAfterMs: 1, times: 1 },
        text: 'recovered',
      },
    ]);
    const result = await generateText({
      model: anthropic()('claude-flaky'),
      maxOutputTokens: 1000,
      prompt: 'x',
      maxRetries: 2,
    });
    expect(result.text).toBe('recovered');
    expect(server.calls('claude-flaky').map((c) => [c.turnIndex, c.outcome, c.status])).toEqual([
      [0, 'error', 429],
      [0, 'stop', 200],
    ]);
  });

  it("answers scripted errors in Anthropic's shape with the error type for the status", async () => {
    server.setScript('claude-bad', [{ error: { status: 400, message: 'prompt is too long' } }]);
    const err = await generateText({ model: anthropic()('claude-bad'), maxOutputTokens: 1000, prompt: 'x' }).catch(
      (e: unknown) => e,
    );
    expect(APICallError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ statusCode: 400, message: 'prompt is too long', isRetryable: false });
    expect((err as APICallError).data).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long' },
    });

    server.setScript('claude-overloaded', [{ error: { status: 529, message: 'Overloaded', retryAfterMs: 1 } }]);
    const retried = await generateText({
      model: anthropic()('claude-overloaded'),
      maxOutputTokens: 1000,
      prompt: 'x',
      maxRetries: 1,
    }).catch((e: unknown) => e);
    expect(RetryError.isInstance(retried)).toBe(true);
    const last = (retried as RetryError).lastError as APICallError;
    expect(last.statusCode).toBe(529);
    expect(last.data).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(server.calls('claude-overloaded')).toHaveLength(2);
  });

  it('requires x-api-key (401 authentication_error)', async () => {
    const res = await fetch(`${server.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });

    // An empty apiKey is sent as an empty x-api-key header
    const err = await generateText({ model: anthropic('')('m'), maxOutputTokens: 1000, prompt: 'x' }).catch(
      (e: unknown) => e,
    );
    expect(APICallError.isInstance(err) && err.statusCode).toBe(401);
    expect((err as APICallError).data).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(server.calls()).toHaveLength(0);
  });

  it('stops a delayed turn when the client aborts', async () => {
    server.setScript('claude-slow', [{ delayMs: 30_000, text: 'too late' }]);
    const ac = new AbortController();
    abortOnArrival(ac, 'claude-slow');
    const err = await generateText({
      model: anthropic()('claude-slow'),
      maxOutputTokens: 1000,
      prompt: 'x',
      abortSignal: ac.signal,
    }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    // 'aborted': the server saw the client leave during the 30 s delay, before it answered
    await vi.waitFor(() =>
      expect(server.calls('claude-slow')[0]).toMatchObject({ protocol: 'anthropic', outcome: 'aborted', status: null }),
    );
  });
});

describe('scripted model server: Google Gemini API', () => {
  const google = (apiKey = 'goog-run-1') => createGoogleGenerativeAI({ baseURL: `${server.origin}/v1beta`, apiKey });

  it('drives generateText through a tool call and a text answer', async () => {
    const result = await generateWeather(google()('gemini-1'), 'gemini-1');
    expect(result.steps.map((s) => [s.finishReason, s.rawFinishReason])).toEqual([
      ['tool-calls', 'STOP'],
      ['stop', 'STOP'],
    ]);

    const calls = server.calls('gemini-1');
    expect(calls.map((c) => [c.protocol, c.apiKey, c.turnIndex, c.stream, c.outcome])).toEqual([
      ['google', 'goog-run-1', 0, false, 'tool_calls'],
      ['google', 'goog-run-1', 1, false, 'stop'],
    ]);
    expect(calls[0]!.tools).toEqual(['get_weather']);
    // The tool call id the server gave is the SDK's tool call id, and comes back with the result.
    expect(result.steps[0]!.toolCalls[0]!.toolCallId).toBe(calls[0]!.toolCallIds[0]);
    // functionResponse parts (sent in a user content) are recorded as a tool message: turn 1, not 0.
    expect(calls[1]!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(calls[1]!.messages[0]!.content).toBe('Be brief.');
    // The SDK replays the call with the thoughtSignature the server sent (Gemini 3 rejects calls without).
    expect(calls[1]!.messages[2]!.tool_calls).toEqual([
      {
        id: calls[0]!.toolCallIds[0],
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        thought_signature: expect.any(String),
      },
    ]);
    const signature = String(
      (calls[1]!.messages[2]!.tool_calls![0] as { thought_signature: string }).thought_signature,
    );
    expect(Buffer.from(signature, 'base64').toString()).toMatch(/^scripted-thought-signature-\d+$/);
    expect(calls[1]!.messages[3]).toMatchObject({ tool_call_id: calls[0]!.toolCallIds[0], name: 'get_weather' });
    expect(JSON.parse(String(calls[1]!.messages[3]!.content))).toEqual({ city: 'Paris', forecast: 'sunny', tempC: 21 });
  });

  it('speaks the generateContent wire format', async () => {
    server.setScript('gemini-raw', [
      { toolCalls: [{ name: 'lookup', arguments: { q: 'x' }, id: 'fc-1' }], text: 'Let me look.' },
    ]);
    const request = {
      systemInstruction: { parts: [{ text: 'sys' }] },
      tools: [{ functionDeclarations: [{ name: 'lookup', description: 'd', parameters: { type: 'OBJECT' } }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: { temperature: 0 },
      contents: [
        { role: 'user', parts: [{ text: 'first question' }] },
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'a' } }, thoughtSignature: 'c2ln' }] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'lookup', response: { result: 42 } } }, { text: 'second question' }],
        },
      ],
    };
    const res = await fetch(`${server.origin}/v1beta/models/gemini-raw:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify(request),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Let me look.' },
              { functionCall: { id: 'fc-1', name: 'lookup', args: { q: 'x' } }, thoughtSignature: expect.any(String) },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: expect.any(Number),
        candidatesTokenCount: expect.any(Number),
        totalTokenCount: expect.any(Number),
      },
      modelVersion: 'gemini-raw',
      responseId: expect.any(String),
    });
    const [call] = server.calls('gemini-raw');
    expect(call!.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ text: 'first question' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { type: 'function', function: { name: 'lookup', arguments: '{"q":"a"}' }, thought_signature: 'c2ln' },
        ],
      },
      { role: 'tool', name: 'lookup', content: '{"result":42}' },
      { role: 'user', content: [{ text: 'second question' }] },
    ]);
    expect(call).toMatchObject({
      turnIndex: 0,
      lastUserText: 'second question',
      tools: ['lookup'],
      toolChoice: { functionCallingConfig: { mode: 'AUTO' } },
    });

    const streamed = await fetch(`${server.origin}/v1beta/models/gemini-raw:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'k' },
      body: JSON.stringify(request),
    });
    const chunks = (await streamed.text())
      .trim()
      .split('\n\n')
      .map(
        (frame) =>
          JSON.parse(frame.replace(/^data: /, '')) as {
            candidates: Array<{ finishReason?: string; content: { parts: unknown[] } }>;
          },
      );
    expect(chunks.map((c) => c.candidates[0]!.finishReason ?? null)).toEqual([null, null, null, 'STOP']);
    expect(chunks.flatMap((c) => c.candidates[0]!.content.parts)).toEqual([
      { text: 'Let ' },
      { text: 'me l' },
      { text: 'ook.' },
      { functionCall: { id: 'fc-1', name: 'lookup', args: { q: 'x' } }, thoughtSignature: expect.any(String) },
    ]);

    const unknownMethod = await fetch(`${server.origin}/v1beta/models/gemini-raw:countTokens`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'k' },
      body: JSON.stringify(request),
    });
    expect(unknownMethod.status).toBe(404);
    expect(await unknownMethod.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });

  it('retries a scripted 429 (times: 1, retry-after-ms) and succeeds', async () => {
    server.setScript('gemini-flaky', [
      { error: { status: 429, message: 'Resource has been exhausted', retryAfterMs: 1, times: 1 }, text: 'recovered' },
    ]);
    const result = await generateText({ model: google()('gemini-flaky'), prompt: 'x', maxRetries: 2 });
    expect(result.text).toBe('recovered');
    expect(server.calls('gemini-flaky').map((c) => [c.turnIndex, c.outcome, c.status])).toEqual([
      [0, 'error', 429],
      [0, 'stop', 200],
    ]);
  });

  it("answers scripted errors in Google's shape", async () => {
    server.setScript('gemini-bad', [
      { error: { status: 400, message: 'Request contains an invalid argument.', code: 'BAD_THING' } },
    ]);
    const err = await generateText({ model: google()('gemini-bad'), prompt: 'x' }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({
      statusCode: 400,
      message: 'Request contains an invalid argument.',
      isRetryable: false,
    });
    expect((err as APICallError).data).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', details: [{ reason: 'BAD_THING' }] },
    });
  });

  it('requires x-goog-api-key (403 PERMISSION_DENIED, as Google answers)', async () => {
    const res = await fetch(`${server.origin}/v1beta/models/m:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });

    const err = await generateText({ model: google('')('m'), prompt: 'x' }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err) && err.statusCode).toBe(403);
    expect(server.calls()).toHaveLength(0);
  });

  it('stops a delayed turn when the client aborts', async () => {
    server.setScript('gemini-slow', [{ delayMs: 30_000, text: 'too late' }]);
    const ac = new AbortController();
    abortOnArrival(ac, 'gemini-slow');
    const stream = streamText({
      model: google()('gemini-slow'),
      prompt: 'x',
      abortSignal: ac.signal,
      onError: () => {},
    });
    const parts: string[] = [];
    for await (const p of stream.fullStream) parts.push(p.type);
    expect(parts).toContain('abort');
    // 'aborted': the server saw the client leave during the 30 s delay, before it answered
    await vi.waitFor(() =>
      expect(server.calls('gemini-slow')[0]).toMatchObject({ protocol: 'google', stream: true, outcome: 'aborted' }),
    );

    const ac2 = new AbortController();
    abortOnArrival(ac2, 'gemini-slow', 1);
    const err = await generateText({ model: google()('gemini-slow'), prompt: 'x', abortSignal: ac2.signal }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe('AbortError');
    await vi.waitFor(() => expect(server.calls('gemini-slow')[1]).toMatchObject({ stream: false, outcome: 'aborted' }));
  });
});

describe('scripted model server: streaming through the Anthropic and Google providers', () => {
  it.each([
    ['anthropic', (apiKey: string) => createAnthropic({ baseURL: server.url, apiKey })('claude-2'), 'claude-2'],
    [
      'google',
      (apiKey: string) => createGoogleGenerativeAI({ baseURL: `${server.origin}/v1beta`, apiKey })('gemini-2'),
      'gemini-2',
    ],
  ] as const)('%s: drives streamText through a tool call and a text answer', async (protocol, model, modelId) => {
    server.setScript(modelId, [
      {
        toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        usage: { prompt_tokens: 12, completion_tokens: 4 },
      },
      { text: 'Oslo: sunny, 21C. Have a nice day!', usage: { prompt_tokens: 25, completion_tokens: 10 } },
    ]);
    const seen: Array<{ city: string }> = [];

    const result = streamText({
      model: model('key-s'),
      maxOutputTokens: 1000,
      tools: { get_weather: weatherTool(seen) },
      stopWhen: stepCountIs(5),
      prompt: 'Weather in Oslo?',
    });
    let text = '';
    let textDeltas = 0;
    const toolInputs: unknown[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        text += part.text;
        textDeltas++;
      }
      if (part.type === 'tool-call') toolInputs.push(part.input);
      if (part.type === 'error') throw part.error;
    }

    expect(seen).toEqual([{ city: 'Oslo' }]);
    expect(toolInputs).toEqual([{ city: 'Oslo' }]);
    expect(text).toBe('Oslo: sunny, 21C. Have a nice day!');
    // the server streams the text in three pieces; each arrives as its own delta
    expect(textDeltas).toBe(3);
    const steps = await result.steps;
    expect(steps.map((s) => [s.finishReason, s.usage.inputTokens, s.usage.outputTokens])).toEqual([
      ['tool-calls', 12, 4],
      ['stop', 25, 10],
    ]);
    expect(await result.totalUsage).toMatchObject({ inputTokens: 37, outputTokens: 14 });

    const calls = server.calls(modelId);
    expect(calls.map((c) => [c.protocol, c.turnIndex, c.stream, c.includeUsage, c.apiKey, c.outcome])).toEqual([
      [protocol, 0, true, true, 'key-s', 'tool_calls'],
      [protocol, 1, true, true, 'key-s', 'stop'],
    ]);
  });
});
