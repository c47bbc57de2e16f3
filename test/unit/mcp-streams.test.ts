import { describe, expect, it } from 'vitest';
import type { FetchLike } from '@modelcontextprotocol/client';
import type { RequestId } from '@modelcontextprotocol/client';
import { EventFieldScanner, LostStream, StreamSupervisor } from '../../domain/mcp/resumption.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function scan(...chunks: string[]) {
  const events: [string | undefined, boolean][] = [];
  const retries: number[] = [];
  const scanner = new EventFieldScanner({
    onEvent: (id, hasData) => events.push([id, hasData]),
    onRetry: (ms) => retries.push(ms),
  });
  for (const chunk of chunks) scanner.push(bytes(chunk));
  return { events, retries };
}

describe('EventFieldScanner reads id and retry as the SDK does', () => {
  it('an id counts once its event is dispatched, and only with a data line', () => {
    expect(scan('id: a\nretry: 50\ndata: \n\n').events).toEqual([['a', false]]);
    expect(scan('id: b\n\n', 'event: message\ndata: {"x":1}\n\n').events).toEqual([[undefined, true]]);
    expect(scan('id: c\ndata: {}\n').events).toEqual([]);
    expect(scan(': keep-alive\n\n', 'id:\ndata: x\n\n').events).toEqual([[undefined, true]]);
  });

  it('lines may end in LF, CRLF or CR, split anywhere between chunks', () => {
    expect(scan('id: a\r', '\ndata: 1\r\n\r\n', 'id: b\rdata: 2\r\r').events).toEqual([
      ['a', true],
      ['b', true],
    ]);
    expect(scan('i', 'd: lo', 'ng\nda', 'ta: ', '\n', '\n').events).toEqual([['long', false]]);
  });

  it('retry applies at once, digits only', () => {
    expect(scan('retry: 3000\n', 'retry: soon\nretry:-1\nretry: 0\n').retries).toEqual([3000, 0]);
  });
});

/** An SSE answer whose body is `text` and then ends. */
const sse = (text: string) => new Response(bytes(text), { headers: { 'content-type': 'text/event-stream' } });
const tick = () => new Promise((resolve) => setImmediate(resolve));

function supervised(
  answer: (method: string, init: RequestInit | undefined) => Response,
  limits = { maxAttempts: 2, maxDelayMs: 10_000 },
) {
  const failed: { ids: RequestId[]; lost: LostStream }[] = [];
  const requests: string[] = [];
  const supervisor = new StreamSupervisor(limits, (ids, lost) => {
    if (lost instanceof LostStream) failed.push({ ids, lost });
  });
  const inner: FetchLike = async (_url, init) => {
    const method = init?.method ?? 'GET';
    const lastEventId = new Headers(init?.headers).get('last-event-id');
    requests.push(lastEventId ? `${method} ${lastEventId}` : method);
    return answer(method, init);
  };
  const fetch = supervisor.wrap(inner);
  const drain = async (response: Response) => {
    await response.text();
    await tick();
  };
  return { supervisor, fetch, failed, requests, drain };
}

const request = (id: number) => ({
  method: 'POST',
  body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } }),
});

describe('StreamSupervisor', () => {
  it('fails the requests of a response stream that ended without an answer and without an event id', async () => {
    const { fetch, failed, drain } = supervised(() => sse(': nothing\n\n'));
    await drain(await fetch('https://mcp.example/mcp', request(7)));
    expect(failed).toHaveLength(1);
    expect(failed[0].ids).toEqual([7]);
    expect(failed[0].lost.why).toBe('the server closed it before answering, without an event id to resume from');
  });

  it('leaves a stream alone once its request is answered', async () => {
    const { supervisor, fetch, failed, drain } = supervised(() =>
      sse('data: {"jsonrpc":"2.0","id":3,"result":{}}\n\n'),
    );
    const response = await fetch('https://mcp.example/mcp', request(3));
    supervisor.delivered({ jsonrpc: '2.0', id: 3, result: {} });
    await drain(response);
    expect(failed).toEqual([]);
  });

  it('a request the SDK cancelled is not resumed any further', async () => {
    const { fetch, failed, requests, drain } = supervised((method) =>
      method === 'POST' ? sse('id: e1\nretry: 10\ndata: \n\n') : sse(''),
    );
    await drain(await fetch('https://mcp.example/mcp', request(4)));
    await fetch('https://mcp.example/mcp', {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } }),
    });
    const resumed = await fetch('https://mcp.example/mcp', { method: 'GET', headers: { 'last-event-id': 'e1' } });
    expect(resumed.status).toBe(405);
    expect(requests).toEqual(['POST', 'POST']);
    expect(failed).toEqual([]);
  });

  it('a server that refuses to resume fails the request at once, and the SDK is told to stop (405)', async () => {
    const { fetch, failed, drain } = supervised((method) =>
      method === 'POST' ? sse('id: e1\ndata: \n\n') : new Response(null, { status: 404 }),
    );
    await drain(await fetch('https://mcp.example/mcp', request(5)));
    expect(failed).toEqual([]);
    const resumed = await fetch('https://mcp.example/mcp', { method: 'GET', headers: { 'last-event-id': 'e1' } });
    expect(resumed.status).toBe(405);
    expect(failed.map((f) => [f.ids, f.lost.why])).toEqual([[[5], 'the server refused to resume it (HTTP 404)']]);
  });

  it('the optional standalone stream is reopened at most maxAttempts times, and never fails a request', async () => {
    const { fetch, failed, requests, drain } = supervised(() => sse(''));
    for (let i = 0; i < 4; i++) {
      const response = await fetch('https://mcp.example/mcp', { method: 'GET' });
      if (response.status === 405) break;
      await drain(response);
    }
    expect(requests).toEqual(['GET', 'GET', 'GET']);
    expect(failed).toEqual([]);
  });
});
