import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { listenOn } from '../runtime/ports.js';
import { answerClientErrors } from './errors.js';

/**
 * How long an idle keep-alive connection stays open. Above the idle timeouts of the load balancers and clients in
 * front of the API (AWS ALB 60 s, nginx's upstream keepalive 60 s, Node's agents 4-5 s...): the one that closes an
 * idle connection must be the client, never the server, or a request the client sends on it just as the server
 * closes it fails with ECONNRESET. Node's default is 5 s. docs/OPERATIONS.md, "HTTP keep-alive".
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** How long a request's headers may take; above the keep-alive timeout, as Node advises. */
export const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 1_000;

export interface ApiServer {
  server: Server;
  /**
   * Stops taking connections and resolves once every connection is closed: idle ones at once, the others as soon
   * as their request is answered (with `Connection: close`, so the client does not reuse them). Streams still open
   * keep it waiting: the caller bounds the wait.
   */
  shutdown(): Promise<void>;
}

/**
 * The API's HTTP server (api/main.ts): listening on PORT, or rejecting with a PortInUseError naming it; keep-alive
 * and headers timeouts as above; malformed requests answered with the error envelope (answerClientErrors).
 */
export async function serveApi(handler: RequestListener, options: { port: number; host: string }): Promise<ApiServer> {
  let closing = false;
  const answering = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    // While shutting down, a request on a kept-alive connection is the connection's last.
    if (closing) res.shouldKeepAlive = false;
    answering.add(res);
    res.once('close', () => answering.delete(res));
    handler(req, res);
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  answerClientErrors(server);
  await listenOn(server, { port: options.port, host: options.host, setting: 'PORT', what: 'the API' });
  return {
    server,
    shutdown: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const res of answering) if (!res.headersSent) res.shouldKeepAlive = false;
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
