import { deserializeMessage } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { FetchLike } from '@modelcontextprotocol/client';
import { formatCount } from '../limits.js';

/**
 * The bound on one JSON-RPC message read from a server (limits.serverMessageBytes), on every transport: bytes are
 * counted as they arrive, and a message that passes the limit is not buffered further.
 */
export class MessageTooLarge extends Error {
  override readonly name = 'MessageTooLarge';

  constructor(readonly limitBytes: number) {
    super(`the server sent a message of more than ${formatCount(limitBytes)} bytes, more than Runway reads`);
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Newline-delimited JSON-RPC over stdio, read in linear time with a cap per message: a drop-in for the SDK's
 * ReadBuffer (which copies and rescans everything buffered on every chunk, quadratic in a message's size, so a
 * 10 MB message costs the event loop seconds). Each chunk is scanned once; a message's pieces are joined once.
 */
export class BoundedReadBuffer {
  #pieces: Buffer[] = [];
  #size = 0;
  #lines: Buffer[] = [];
  /** whether a message ever passed the limit (the transport then ended the session) */
  exceeded = false;

  constructor(readonly limitBytes: number) {}

  append(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.#add(chunk.subarray(start, end));
      this.#lines.push(this.#pieces.length === 1 ? this.#pieces[0]! : Buffer.concat(this.#pieces, this.#size));
      this.#pieces = [];
      this.#size = 0;
      start = end + 1;
    }
    if (start < chunk.length) this.#add(chunk.subarray(start));
  }

  readMessage(): JSONRPCMessage | null {
    const line = this.#lines.shift();
    if (line === undefined) return null;
    const end = line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN ? line.length - 1 : line.length;
    return deserializeMessage(line.toString('utf8', 0, end));
  }

  clear(): void {
    this.#pieces = [];
    this.#size = 0;
    this.#lines = [];
  }

  #add(piece: Buffer): void {
    if (this.#size + piece.length > this.limitBytes) {
      this.exceeded = true;
      this.clear();
      throw new MessageTooLarge(this.limitBytes);
    }
    this.#pieces.push(piece);
    this.#size += piece.length;
  }
}

/** Errors the stream once more than `limitBytes` passed through it. */
function counting(limitBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > limitBytes) return controller.error(new MessageTooLarge(limitBytes));
      controller.enqueue(chunk);
    },
  });
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Errors an event stream once one event (the bytes between two blank lines: one message of an MCP stream) holds
 * more than `limitBytes`. Lines end in LF or CRLF, as every MCP server writes them.
 */
function countingEvents(limitBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let event = 0;
  /** bytes of the current line so far, and whether the last of them is a CR */
  let line = 0;
  let endsInCr = false;
  return new TransformStream({
    transform(chunk, controller) {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let start = 0;
      for (let end = bytes.indexOf(LF); end !== -1; end = bytes.indexOf(LF, start)) {
        const whole = line + end - start;
        const cr = end > start ? bytes[end - 1] === CR : endsInCr;
        // a blank line ends the event
        event = whole - (cr ? 1 : 0) === 0 ? 0 : event + whole + 1;
        if (event > limitBytes) return controller.error(new MessageTooLarge(limitBytes));
        line = 0;
        endsInCr = false;
        start = end + 1;
      }
      if (start < bytes.length) {
        line += bytes.length - start;
        endsInCr = bytes[bytes.length - 1] === CR;
      }
      if (event + line > limitBytes) return controller.error(new MessageTooLarge(limitBytes));
      controller.enqueue(chunk);
    },
  });
}

/**
 * A fetch whose answers are read at most `limitBytes` a message: a JSON body as a whole, an event stream event by
 * event. Past it the body errors with MessageTooLarge (the request fails; nothing more is buffered). Redirects
 * pass as they are (their bodies are not read).
 */
export function boundedMessages(fetch: FetchLike, limitBytes: number): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.body || (response.status >= 300 && response.status < 400)) return response;
    const events = (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
    const body = response.body.pipeThrough(events ? countingEvents(limitBytes) : counting(limitBytes));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
