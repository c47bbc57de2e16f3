import { Agent, get } from 'node:http';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, serveApi } from '../../api/server.js';
import { PortInUseError } from '../../runtime/ports.js';

const open: { close(cb: () => void): unknown }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

const answer = (_req: unknown, res: { end(body: string): void }) => res.end('ok');

/** One request on a keep-alive connection: the reply's Keep-Alive header. */
function keepAliveHeader(port: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    get({ port, host: '127.0.0.1', path: '/', headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.headers['keep-alive'] as string | undefined));
    }).once('error', reject);
  });
}

describe('the API server (api/server.ts)', () => {
  it('keeps idle connections open longer than load balancers and clients do (AWS ALB: 60 s)', async () => {
    const { server } = await serveApi(answer, { port: 0, host: '127.0.0.1' });
    open.push(server);
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThanOrEqual(65_000);
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    // Node's advice: the headers timeout above the keep-alive timeout, so a request arriving on a connection about
    // to time out is not cut short.
    expect(HEADERS_TIMEOUT_MS).toBeGreaterThan(KEEP_ALIVE_TIMEOUT_MS);
    expect(server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
    // What a client sees: the server says how long it keeps the connection.
    expect(await keepAliveHeader((server.address() as { port: number }).port)).toBe(
      `timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`,
    );
  });

  it('shuts down without waiting for idle keep-alive connections: a request in flight is answered, then closed', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived = () => {};
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    const api = await serveApi(
      (_req, res) => {
        arrived();
        void held.then(() => res.end('done'));
      },
      { port: 0, host: '127.0.0.1' },
    );
    const agent = new Agent({ keepAlive: true });
    const reply = new Promise<{ connection?: string; body: string }>((resolve, reject) => {
      get({ port: (api.server.address() as { port: number }).port, host: '127.0.0.1', agent }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.once('end', () => resolve({ connection: res.headers.connection, body }));
      }).once('error', reject);
    });
    // shut down while the request is in flight (it reached the handler), however long it took to get there
    await inFlight;
    const closed = api.shutdown();
    release();
    // The client is told not to reuse the connection, and the server closes without its 65 s keep-alive wait.
    expect(await reply).toEqual({ connection: 'close', body: 'done' });
    await closed;
    expect(api.server.listening).toBe(false);
    agent.destroy();
  });

  it('refuses a taken PORT with a sentence naming it', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    open.push(holder);
    const port = (holder.address() as { port: number }).port;
    const failure = await serveApi(answer, { port, host: '127.0.0.1' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PortInUseError);
    expect((failure as Error).message).toMatch(new RegExp(`^port ${port} \\(PORT, the API\\) is already in use`));
  });
});
