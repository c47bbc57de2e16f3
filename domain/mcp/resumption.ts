import type { FetchLike } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';
import { MessageTooLarge } from './messageSize.js';

/**
 * Bounds on resuming a response stream (MCP streamable HTTP, "Resumability and Redelivery", SEP-1699 polling).
 * The SDK's transport does the resuming itself: after a stream that carried an event id ends without the
 * response, it waits the server's `retry` (else its own backoff) and reopens it with GET + Last-Event-ID. It has no
 * bound on how often or how long, so a server that never answers could keep a request, and the polling, alive.
 */
export interface ResumptionLimits {
  /** resumptions of one stream in a row that bring no message */
  maxAttempts: number;
  /** time one request may spend waiting for its stream to come back, in total */
  maxDelayMs: number;
}

/**
 * The error data of a request failed here because its response stream was lost. A class instance, so it can never
 * be confused with what a server sends (JSON).
 */
export class LostStream {
  constructor(
    readonly why: string,
    /** resumptions tried in a row without a message */
    readonly resumptions: number,
  ) {}
}

/** One server-to-client event stream and what it is for: a request's response, or the standalone GET stream. */
interface Stream {
  /** requests still waiting for their response on it; empty for the standalone stream */
  pending: Set<RequestId>;
  /** the id of the last event the SDK saw (what it will send as Last-Event-ID) */
  lastEventId?: string;
  /** resumptions since the last message */
  attempts: number;
  waitedMs: number;
  waitingSince?: number;
  timer?: NodeJS.Timeout;
  retryMs?: number;
}

/** What refuses a GET the SDK must not make: it stops reopening a stream on 405 without calling it an error. */
const refused = () => new Response(null, { status: 405, statusText: 'Not resumed' });

/** How many given-up event ids are remembered (their late resumptions are refused); oldest forgotten first. */
const MAX_GIVEN_UP = 1000;

/**
 * Watches the streams of one streamable-HTTP session from inside the transport's fetch. It tells the standalone
 * GET stream (optional: its failures never end anything) from a request's response stream, follows the event ids
 * and `retry` of each, counts resumptions and time spent waiting, and fails a request whose stream cannot come
 * back (`fail`): at once when the stream carried no event id, else when a bound is reached or the server refuses
 * to resume it. Everything else is the SDK's own mechanism.
 */
export class StreamSupervisor {
  readonly #streams = new Set<Stream>();
  readonly #givenUp = new Set<string>();
  #standalone: Stream | undefined;
  #closed = false;

  constructor(
    private readonly limits: ResumptionLimits,
    private readonly fail: (requestIds: RequestId[], lost: LostStream | MessageTooLarge) => void,
  ) {}

  /** The transport's fetch, watched. */
  wrap(fetch: FetchLike): FetchLike {
    return async (url, init) => {
      const method = (init?.method ?? 'GET').toUpperCase();
      if (method === 'POST') return await this.#post(fetch, url, init);
      if (method === 'GET') return await this.#get(fetch, url, init);
      return await fetch(url, init);
    };
  }

  /** Every message the transport delivers (a response settles its request's stream). */
  delivered(message: JSONRPCMessage): void {
    if (!('id' in message) || 'method' in message || message.id === undefined) return;
    for (const stream of this.#streams) {
      if (stream.pending.delete(message.id) && stream.pending.size === 0) this.#forget(stream);
    }
  }

  /** The session is gone: no more timers, no more failures. */
  close(): void {
    this.#closed = true;
    for (const stream of this.#streams) clearTimeout(stream.timer);
    this.#streams.clear();
  }

  async #post(fetch: FetchLike, url: string | URL, init: RequestInit | undefined): Promise<Response> {
    const messages = parseMessages(init?.body);
    // A request the SDK gave up on (timeout, caller's abort) is not resumed any further.
    for (const m of messages)
      if ('method' in m && m.method === 'notifications/cancelled')
        this.#abandon(m.params?.requestId as RequestId | undefined);
    const requestIds = messages.filter((m) => 'method' in m && 'id' in m).map((m) => (m as { id: RequestId }).id);
    const response = await fetch(url, init);
    if (requestIds.length === 0 || !response.ok || !isEventStream(response)) return response;
    const stream: Stream = { pending: new Set(requestIds), attempts: 0, waitedMs: 0 };
    this.#streams.add(stream);
    return this.#watch(response, stream);
  }

  async #get(fetch: FetchLike, url: string | URL, init: RequestInit | undefined): Promise<Response> {
    const lastEventId = new Headers(init?.headers).get('last-event-id') ?? undefined;
    if (lastEventId && this.#givenUp.has(lastEventId)) return refused();
    const stream = lastEventId ? [...this.#streams].find((s) => s.lastEventId === lastEventId) : this.#standalone;
    if (!stream) {
      // The first standalone GET of the session (or one resuming an id this session never handed out).
      const response = await fetch(url, init);
      if (!lastEventId && response.ok && isEventStream(response)) {
        this.#standalone = { pending: new Set(), attempts: 0, waitedMs: 0 };
        this.#streams.add(this.#standalone);
        return this.#watch(response, this.#standalone);
      }
      return response;
    }
    if (stream.attempts >= this.limits.maxAttempts) {
      this.#giveUp(stream, `it was resumed ${stream.attempts} times in a row without delivering anything`);
      return refused();
    }
    stream.attempts++;
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      this.#attemptFailed(stream, error instanceof Error ? error.message : String(error));
      throw error;
    }
    if (!response.ok || !isEventStream(response)) {
      if (response.status >= 500 && response.status !== 501) {
        this.#attemptFailed(stream, `HTTP ${response.status}`);
        return response;
      }
      // The server will not resume this stream (404 forgot it, 405 cannot, 400 ...): asking again will not help.
      await response.body?.cancel().catch(() => {});
      this.#giveUp(stream, `the server refused to resume it (HTTP ${response.status})`);
      return refused();
    }
    if (stream.waitingSince !== undefined) stream.waitedMs += Date.now() - stream.waitingSince;
    stream.waitingSince = undefined;
    clearTimeout(stream.timer);
    return this.#watch(response, stream);
  }

  /**
   * Passes the body through unchanged while following its event ids and `retry`. A stream that breaks ends like
   * one the server closed, so whatever arrived is still delivered; then the SDK resumes it, or it is lost.
   */
  #watch(response: Response, stream: Stream): Response {
    const source = response.body!.getReader();
    // The SDK resumes a stream from an event id of that very body, else it reopens without Last-Event-ID.
    let resumable = false;
    const scanner = new EventFieldScanner({
      onEvent: (id, hasData) => {
        if (id) stream.lastEventId = id;
        resumable ||= id !== undefined;
        if (hasData) stream.attempts = 0;
      },
      onRetry: (ms) => (stream.retryMs = ms),
    });
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        let chunk: { done: boolean; value?: Uint8Array };
        try {
          chunk = await source.read();
        } catch (error) {
          // A message past the limit (messageSize.ts) is no lost stream: resuming would only send it again.
          if (error instanceof MessageTooLarge) {
            controller.close();
            this.#refuse(stream, error);
            return;
          }
          chunk = { done: true };
        }
        if (chunk.done || !chunk.value) {
          controller.close();
          // The SDK reads what was enqueued in microtasks; by the next turn it has seen every message of the stream.
          setImmediate(() => this.#ended(stream, resumable));
          return;
        }
        scanner.push(chunk.value);
        controller.enqueue(chunk.value);
      },
      cancel: (reason) => source.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /** A stream ended; if requests still wait on it, the SDK will resume it (if it can) within the remaining time. */
  #ended(stream: Stream, resumable: boolean): void {
    if (this.#closed || !this.#streams.has(stream) || stream === this.#standalone) return;
    if (stream.pending.size === 0) return this.#forget(stream);
    if (!resumable) {
      return this.#giveUp(
        stream,
        `the server closed ${stream.attempts === 0 ? 'it' : 'the resumed stream'} before answering, without an event id to resume from`,
      );
    }
    stream.waitingSince = Date.now();
    const remaining = this.limits.maxDelayMs - stream.waitedMs;
    const asked = stream.retryMs !== undefined ? ` (the server asked to wait ${stream.retryMs} ms)` : '';
    stream.timer = setTimeout(
      () => this.#giveUp(stream, `it was not resumed within ${this.limits.maxDelayMs} ms${asked}`),
      Math.max(0, remaining),
    );
  }

  #refuse(stream: Stream, tooLarge: MessageTooLarge): void {
    if (this.#closed || !this.#streams.has(stream)) return;
    const requestIds = [...stream.pending];
    this.#forget(stream);
    if (stream.lastEventId) this.#rememberGivenUp(stream.lastEventId);
    if (requestIds.length > 0) this.fail(requestIds, tooLarge);
  }

  #attemptFailed(stream: Stream, why: string): void {
    if (stream.attempts >= this.limits.maxAttempts)
      this.#giveUp(stream, `resuming it failed ${stream.attempts} times (last: ${why})`);
  }

  #giveUp(stream: Stream, why: string): void {
    if (this.#closed || !this.#streams.has(stream)) return;
    const requestIds = [...stream.pending];
    this.#forget(stream);
    if (stream.lastEventId) this.#rememberGivenUp(stream.lastEventId);
    if (requestIds.length > 0) this.fail(requestIds, new LostStream(why, stream.attempts));
  }

  #abandon(requestId: RequestId | undefined): void {
    if (requestId === undefined) return;
    for (const stream of this.#streams) {
      if (!stream.pending.delete(requestId) || stream.pending.size > 0) continue;
      this.#forget(stream);
      if (stream.lastEventId) this.#rememberGivenUp(stream.lastEventId);
    }
  }

  #forget(stream: Stream): void {
    clearTimeout(stream.timer);
    this.#streams.delete(stream);
    if (stream === this.#standalone) this.#standalone = undefined;
  }

  #rememberGivenUp(eventId: string): void {
    this.#givenUp.add(eventId);
    if (this.#givenUp.size > MAX_GIVEN_UP) this.#givenUp.delete(this.#givenUp.values().next().value!);
  }
}

function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase() === 'text/event-stream';
}

/** The JSON-RPC messages of a POST body the SDK wrote (one message, or a batch). */
function parseMessages(body: RequestInit['body']): JSONRPCMessage[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).filter(
      (m): m is JSONRPCMessage => m !== null && typeof m === 'object',
    );
  } catch {
    return [];
  }
}

/**
 * The `id` and `retry` fields of a server-sent event stream, read the way the SDK's parser reads them
 * (eventsource-parser): an event counts only when it has a data line, its id only when not empty; `retry` applies
 * as soon as it is read, digits only. Lines end in LF, CRLF or CR; comments start with ':'.
 */
export class EventFieldScanner {
  readonly #decoder = new TextDecoder();
  #partial = '';
  #id: string | undefined;
  #dataLines = 0;
  #hasData = false;
  #pendingCr = false;

  constructor(
    private readonly on: { onEvent(id: string | undefined, hasData: boolean): void; onRetry(ms: number): void },
  ) {}

  push(chunk: Uint8Array): void {
    let text = this.#decoder.decode(chunk, { stream: true });
    // A CR at the end of the last chunk may be the first half of a CRLF.
    if (this.#pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCr = text.endsWith('\r');
    const lines = (this.#partial + text).split(/\r\n|\r|\n/);
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#line(line);
  }

  #line(line: string): void {
    if (line === '') {
      if (this.#dataLines > 0) this.on.onEvent(this.#id || undefined, this.#hasData);
      this.#id = undefined;
      this.#dataLines = 0;
      this.#hasData = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.#dataLines++;
      this.#hasData ||= value !== '';
    } else if (field === 'id' && !value.includes('\0')) {
      this.#id = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) {
      this.on.onRetry(Number(value));
    }
  }
}
