import { describe, expect, it } from 'vitest';
import { boundTrace } from '../../domain/evals/traceBounds.js';
import { boundJson, jsonBytes } from '../../domain/jsonSize.js';
import { BoundedReadBuffer, boundedMessages, MessageTooLarge } from '../../domain/mcp/messageSize.js';
import { boundResult, ReplyBudget } from '../../domain/mcp/replyBudget.js';

/** boundJson's value alone. */
const cutJson = <T>(value: T, limitBytes: number): T => boundJson(value, limitBytes).value;

describe('boundJson', () => {
  it('keeps what fits unchanged (the same object)', () => {
    const value = { content: [{ type: 'text', text: 'small' }] };
    expect(cutJson(value, 1000)).toBe(value);
  });

  it('cuts a large text part to the limit, keeping the small fields that name it', () => {
    const value = { content: [{ type: 'text', text: 'x'.repeat(100_000) }], isError: false };
    const cut = cutJson(value, 1000);
    expect(jsonBytes(cut)).toBeLessThanOrEqual(1000);
    expect(cut.isError).toBe(false);
    expect(cut.content).toHaveLength(1);
    expect(cut.content[0].type).toBe('text');
    expect(cut.content[0].text.length).toBeGreaterThan(900);
    expect(value.content[0].text).toHaveLength(100_000);
  });

  it('counts UTF-8 bytes and escapes, never splitting a surrogate pair', () => {
    for (const text of ['é'.repeat(5000), '\n'.repeat(5000), '😀'.repeat(5000), '\u0001'.repeat(5000)]) {
      const cut = cutJson({ text }, 777);
      expect(jsonBytes(cut)).toBeLessThanOrEqual(777);
      expect(cut.text.length).toBeGreaterThan(0);
      expect(text.startsWith(cut.text)).toBe(true);
      expect(/[\uD800-\uDBFF]$/.test(cut.text)).toBe(false);
    }
  });

  it('keeps the first elements of an array in order and leaves out the rest', () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ name: `tool_${i}`, description: 'd'.repeat(100) }));
    const cut = cutJson(items, 2000);
    expect(jsonBytes(cut)).toBeLessThanOrEqual(2000);
    expect(cut.length).toBeGreaterThan(10);
    expect(cut.slice(0, -1)).toEqual(items.slice(0, cut.length - 1));
  });

  it('bounds values nested past what JSON.stringify can write', () => {
    let deep: unknown = 'end';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(jsonBytes(deep)).toBe(Infinity);
    const cut = cutJson({ type: 'text', deep }, 500);
    expect(jsonBytes(cut)).toBeLessThanOrEqual(500);
    expect(cut.type).toBe('text');
  });
});

describe('the reply budget of a server operation', () => {
  it('marks a result cut to the limit with its original size', async () => {
    const result = { content: [{ type: 'text', text: 'x'.repeat(50_000) }] };
    const bounded = await boundResult(result, 10_000);
    expect(jsonBytes(bounded)).toBeLessThanOrEqual(10_000);
    expect(bounded.truncated).toEqual({
      reason: 'REPLY_TOO_LARGE',
      limitBytes: 10_000,
      originalBytes: jsonBytes(result),
    });
    expect(await boundResult({ content: [] }, 10_000)).toEqual({ content: [] });
  });

  it('is shared by the lists of one operation and names those it cut', () => {
    const budget = new ReplyBudget(1000);
    expect(budget.take({ name: 'a'.repeat(400) })).toBe(true);
    expect(budget.take({ name: 'b'.repeat(400) })).toBe(true);
    expect(budget.truncation()).toBeUndefined();
    expect(budget.take({ name: 'c'.repeat(400) })).toBe(false);
    budget.cut('tools');
    expect(budget.truncation()).toEqual({ reason: 'REPLY_TOO_LARGE', limitBytes: 1000, lists: ['tools'] });
  });
});

describe('boundTrace', () => {
  const toolMessage = (value: string) => ({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'flood', output: { type: 'text', value } }],
  });

  it('stores each part within the cap, marked with its original size, and counts the parts cut', () => {
    const trace = {
      traceVersion: 1,
      messages: [{ role: 'user', content: 'flood me' }, toolMessage('x'.repeat(1_000_000)), toolMessage('small')],
      spans: [],
      prompts: [],
    };
    const bounded = boundTrace(trace, 4096);
    expect(bounded.truncated).toEqual({ limitBytesPerPart: 4096, parts: 1 });
    const part = (bounded.messages[1] as any).content[0];
    expect(jsonBytes(part)).toBeLessThanOrEqual(4096);
    expect(part).toMatchObject({
      type: 'tool-result',
      toolCallId: 'call_1',
      toolName: 'flood',
      output: { type: 'text' },
    });
    expect(part.truncated).toEqual({ originalBytes: jsonBytes(trace.messages[1].content[0]), limitBytes: 4096 });
    expect(bounded.messages[2]).toEqual(trace.messages[2]);
    expect(bounded.messages[0]).toBe(trace.messages[0]);
  });

  it('caps a message whose content is one text, and leaves a small trace as it was', () => {
    const small = { traceVersion: 1, messages: [{ role: 'assistant', content: 'hi' }] };
    expect(boundTrace(small, 4096)).toBe(small);
    const bounded = boundTrace({ messages: [{ role: 'assistant', content: 'y'.repeat(100_000) }] }, 4096);
    expect(jsonBytes(bounded.messages[0])).toBeLessThanOrEqual(4096);
    expect(bounded.messages[0]).toMatchObject({ role: 'assistant', truncated: { limitBytes: 4096 } });
  });
});

describe('the bound on one message read from a server', () => {
  const message = (text: string) => `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text } })}\n`;

  it('stdio: reads messages split across chunks and several in one chunk, in linear passes', () => {
    const reader = new BoundedReadBuffer(1000);
    const stream = Buffer.from(message('a') + message('b'.repeat(300)) + message('c'));
    for (let i = 0; i < stream.length; i += 7) reader.append(stream.subarray(i, i + 7));
    const texts: string[] = [];
    for (let m = reader.readMessage(); m; m = reader.readMessage()) texts.push((m as any).result.text);
    expect(texts).toEqual(['a', 'b'.repeat(300), 'c']);
  });

  it('stdio: a message past the limit throws MessageTooLarge before it is all buffered', () => {
    const reader = new BoundedReadBuffer(1000);
    reader.append(Buffer.from(message('small')));
    expect(() => {
      for (let i = 0; i < 10; i++) reader.append(Buffer.alloc(200, 0x61));
    }).toThrow(MessageTooLarge);
  });

  const serve = (body: string, contentType: string) => async () =>
    new Response(body, { status: 200, headers: { 'content-type': contentType } });

  it('HTTP: a JSON body past the limit errors while it is read; one within it reads whole', async () => {
    const big = boundedMessages(serve(message('x'.repeat(5000)), 'application/json'), 1000);
    await expect((await big('http://server.test/mcp')).json()).rejects.toBeInstanceOf(MessageTooLarge);
    const small = boundedMessages(serve(message('ok'), 'application/json'), 1000);
    expect(await (await small('http://server.test/mcp')).json()).toMatchObject({ result: { text: 'ok' } });
  });

  it('HTTP: an event stream is bounded per event, not in total', async () => {
    const event = (text: string) => `event: message\r\ndata: ${message(text)}\r\n`;
    const many = Array.from({ length: 50 }, (_, i) => event(`e${i}`)).join('');
    const fine = boundedMessages(serve(many, 'text/event-stream'), 200);
    expect(await (await fine('http://server.test/mcp')).text()).toBe(many);
    const huge = boundedMessages(serve(event('ok') + event('y'.repeat(5000)), 'text/event-stream'), 200);
    await expect((await huge('http://server.test/mcp')).text()).rejects.toBeInstanceOf(MessageTooLarge);
  });
});
