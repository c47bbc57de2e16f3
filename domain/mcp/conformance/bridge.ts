import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Transform, pipeline, type Readable } from 'node:stream';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import { formatCount } from '../../limits.js';
import { classifyAddress, guardedAgent, OutboundError, outboundPolicyFor, type Lookup } from '../outbound.js';

/**
 * The loopback bridge a conformance check runs the suite through: the suite never talks to the saved server itself.
 * It listens on 127.0.0.1 (a random port, for the check's duration only) under an unguessable path, and forwards each
 * request to the saved server's origin and nowhere else, with the saved headers and the OAuth token added as Runway's
 * MCP client adds them (transports.ts, requestHeaders). On the way:
 * - every connection goes through the outbound address guard (outbound.ts, guardedAgent), as every request Runway
 *   sends on a saved server's behalf: a name that resolves (or rebinds) to an address the server's policy refuses is
 *   not connected to;
 * - redirects are never followed: a 3xx reaches the suite as a 502 that says so, and its Location is not fetched;
 * - a reply is streamed through (SSE included) up to a byte limit, past which both sides are cut; a request without
 *   headers (or a body that stalls) past the per-request timeout is cut too;
 * - the bridge's own Host and Origin become the server's; a foreign one (the suite's DNS-rebinding scenario sends
 *   one and expects the server to refuse it) passes unchanged; hop-by-hop headers are dropped both ways.
 */

export interface BridgeTarget {
  /** the saved server's URL (http or https) */
  url: string;
  /** the headers to add to every request, read per request (saved headers and the current OAuth token) */
  headers(): Record<string, string>;
  /**
   * the server answered 401 to the token it was sent: true when newer credentials are available (headers() now gives
   * them) and the request is worth sending once more
   */
  unauthorized?(): Promise<boolean>;
}

export interface BridgeOptions {
  /** how long one request waits for the server's headers, and a reply's body for its next bytes (ms) */
  requestTimeoutMs: number;
  /** bytes one reply may hold (a whole body, a whole event stream) */
  maxReplyBytes: number;
  /** bytes one request body from the suite may hold */
  maxRequestBytes: number;
  /** DNS resolution (tests: a name that rebinds); node:dns by default */
  lookup?: Lookup;
}

export interface Bridge {
  /** what the suite is given: http://127.0.0.1:<port>/<secret><the server's path and query> */
  readonly url: string;
  readonly port: number;
  /** what the bridge refused or cut, each said once, in order (for the report) */
  notes(): string[];
  /** stops listening, ends every connection and every request to the server */
  close(): Promise<void>;
}

/** Headers that describe one connection, never forwarded (RFC 9110 §7.6.1), plus those we compute ourselves. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'content-length',
  'http2-settings',
]);

const MAX_NOTES = 20;

/** Whether a peer address is loopback (127/8, ::1, ::ffff:127.x). */
export function isLoopbackPeer(address: string | undefined): boolean {
  return address !== undefined && classifyAddress(address) === 'loopback';
}

/** The headers to forward: hop-by-hop ones (and those the Connection header names) dropped. */
export function forwardableHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    kept[lower] = value;
  }
  return kept;
}

/**
 * The suite's request headers as sent to the server: the bridge's own Host and Origin replaced by the server's, a
 * foreign one left as it is; then the injected headers, which win over the suite's of the same name.
 */
export function upstreamHeaders(
  incoming: IncomingHttpHeaders,
  bridge: { host: string[]; origin: string[] },
  target: URL,
  injected: Record<string, string>,
): Record<string, string | string[]> {
  const headers = forwardableHeaders(incoming);
  const host = typeof headers.host === 'string' ? headers.host.toLowerCase() : undefined;
  headers.host = host === undefined || bridge.host.includes(host) ? target.host : (headers.host as string);
  const origin = typeof headers.origin === 'string' ? headers.origin.toLowerCase() : undefined;
  if (origin !== undefined && bridge.origin.includes(origin)) headers.origin = target.origin;
  for (const [name, value] of Object.entries(injected)) headers[name.toLowerCase()] = value;
  return headers;
}

/** Counts a reply's bytes; past the limit it errors (the pipeline then ends both sides). */
class ByteLimit extends Transform {
  #seen = 0;

  constructor(
    readonly limit: number,
    readonly onExceeded: () => void,
  ) {
    super();
  }

  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    callback: (error?: Error | null, data?: Buffer) => void,
  ) {
    this.#seen += chunk.length;
    if (this.#seen > this.limit) {
      this.onExceeded();
      return callback(new Error('reply too large'));
    }
    callback(null, chunk);
  }
}

class RequestTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new RequestTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

const REDIRECT = (status: number) => status >= 300 && status < 400;

/** Starts a bridge to `target`; close it in a finally. */
export async function startBridge(target: BridgeTarget, options: BridgeOptions): Promise<Bridge> {
  const targetUrl = new URL(target.url);
  if (targetUrl.protocol !== 'http:' && targetUrl.protocol !== 'https:')
    throw new OutboundError('refused_address', `only http and https servers are bridged, not ${targetUrl.protocol}`);
  const agent = guardedAgent(await outboundPolicyFor(target.url, options.lookup), options.lookup);
  const secret = randomBytes(18).toString('base64url');
  const prefix = `/${secret}`;
  const noted = new Set<string>();
  const note = (line: string) => {
    if (noted.size < MAX_NOTES) noted.add(line);
  };
  const inFlight = new Set<AbortController>();
  const sockets = new Set<Socket>();
  let bridgeHosts: { host: string[]; origin: string[] } = { host: [], origin: [] };

  const fail = (res: ServerResponse, status: number, message: string) => {
    if (res.headersSent) return void res.destroy();
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(message);
  };

  const send = (
    path: string,
    method: string,
    headers: Record<string, string | string[]>,
    body: Buffer,
    signal: AbortSignal,
  ) =>
    agent.request({
      origin: targetUrl.origin,
      path,
      method: method as Dispatcher.HttpMethod,
      headers,
      body: body.length > 0 || !['GET', 'HEAD'].includes(method) ? body : undefined,
      headersTimeout: options.requestTimeoutMs,
      bodyTimeout: options.requestTimeoutMs,
      signal,
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!isLoopbackPeer(req.socket.remoteAddress)) return fail(res, 403, 'the conformance bridge serves loopback only');
    const raw = req.url ?? '';
    if (raw !== prefix && !raw.startsWith(`${prefix}/`) && !raw.startsWith(`${prefix}?`))
      return fail(res, 404, 'not a path of this conformance check');
    const rest = raw.slice(prefix.length);
    const path = rest.startsWith('/') ? rest : `/${rest}`;
    // Only the saved server's origin: a path cannot name another host (`//evil/...` stays a path of this origin).
    const upstream = new URL(`${targetUrl.origin}${path}`);
    if (upstream.origin !== targetUrl.origin) return fail(res, 400, 'not a path of the saved server');
    let body: Buffer;
    try {
      body = await readBody(req, options.maxRequestBytes);
    } catch (error) {
      if (error instanceof RequestTooLarge) return fail(res, 413, 'request body too large for the conformance bridge');
      return void res.destroy();
    }
    const controller = new AbortController();
    inFlight.add(controller);
    res.on('close', () => {
      controller.abort();
      inFlight.delete(controller);
    });
    const method = req.method ?? 'GET';
    try {
      let reply = await send(
        upstream.pathname + upstream.search,
        method,
        upstreamHeaders(req.headers, bridgeHosts, targetUrl, target.headers()),
        body,
        controller.signal,
      );
      if (reply.statusCode === 401 && target.unauthorized) {
        reply.body.resume();
        if (await target.unauthorized())
          reply = await send(
            upstream.pathname + upstream.search,
            method,
            upstreamHeaders(req.headers, bridgeHosts, targetUrl, target.headers()),
            body,
            controller.signal,
          );
      }
      if (REDIRECT(reply.statusCode) && reply.headers.location !== undefined) {
        reply.body.destroy();
        note(`the server answered with a redirect (HTTP ${reply.statusCode}); redirects are not followed`);
        return fail(
          res,
          502,
          `the server answered HTTP ${reply.statusCode} (a redirect); the conformance bridge does not follow redirects`,
        );
      }
      const headers = forwardableHeaders(reply.headers as Record<string, string | string[] | undefined>);
      res.writeHead(reply.statusCode, headers);
      res.flushHeaders();
      const limit = new ByteLimit(options.maxReplyBytes, () =>
        note(`a reply was longer than ${formatCount(options.maxReplyBytes)} bytes and was cut`),
      );
      // Noted before the pipeline tears the streams down (its listeners come after this one), so the note is there
      // by the time the suite sees the connection end.
      reply.body.once('error', (error) => {
        if (error instanceof undiciErrors.BodyTimeoutError)
          note(`a reply stalled for more than ${options.requestTimeoutMs} ms and was cut`);
      });
      pipeline(reply.body as Readable, limit, res, (error) => {
        if (error) res.destroy();
      });
    } catch (error) {
      if (controller.signal.aborted) return void res.destroy();
      if (error instanceof undiciErrors.HeadersTimeoutError) {
        note(`a request got no answer within ${options.requestTimeoutMs} ms`);
        return fail(res, 504, `the server did not answer within ${options.requestTimeoutMs} ms`);
      }
      const refused = outboundCause(error);
      if (refused) {
        note(refused.message);
        return fail(res, 502, refused.message);
      }
      const code = (error as NodeJS.ErrnoException).code;
      note(`the server could not be reached${code ? ` (${code})` : ''}`);
      return fail(res, 502, `the server could not be reached${code ? ` (${code})` : ''}`);
    }
  };

  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  bridgeHosts = {
    host: [`127.0.0.1:${port}`, `localhost:${port}`],
    origin: [`http://127.0.0.1:${port}`, `http://localhost:${port}`],
  };
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${prefix}${targetUrl.pathname}${targetUrl.search}`,
    port,
    notes: () => [...noted],
    close: () =>
      (closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const controller of inFlight) controller.abort();
        for (const socket of sockets) socket.destroy();
        await stopped;
        await agent.destroy().catch(() => {});
      })()),
  };
}

/** The guard's refusal inside undici's error (a connect error carries it as itself or as its cause). */
function outboundCause(error: unknown): OutboundError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof OutboundError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
