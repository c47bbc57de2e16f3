import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** path and query */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RecordingServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** every request received, in order */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A plain HTTP listener on loopback that writes down every request it gets (an attacker's listener, an "internal"
 * service): tests assert what reached it. `respond` answers; by default an empty 200.
 */
export async function startRecordingServer(
  respond: (request: RecordedRequest, res: ServerResponse, origin: string) => void = (_r, res) => res.end(),
): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(recorded);
      respond(recorded, res, origin);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
