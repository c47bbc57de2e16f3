import type { LookupAddress } from 'node:dns';
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridge, type Bridge, type BridgeOptions } from '../../domain/mcp/conformance/bridge.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recordingServer.js';

/**
 * The conformance bridge as an attacker meets it: the saved server is hostile (redirects elsewhere, answers without
 * end, never answers), or a name rebinds to an address the server's policy refuses. The bridge must reach the saved
 * server's origin and nothing else, and bound what it reads.
 */

const OPTIONS: BridgeOptions = { requestTimeoutMs: 5_000, maxReplyBytes: 1024 * 1024, maxRequestBytes: 1024 * 1024 };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function recording(respond?: Parameters<typeof startRecordingServer>[0]): Promise<RecordingServer> {
  const server = await startRecordingServer(respond);
  cleanups.push(() => server.close());
  return server;
}

async function bridgeTo(url: string, target: Partial<Parameters<typeof startBridge>[0]> = {}, options = OPTIONS) {
  const bridge = await startBridge({ url, headers: () => ({}), ...target }, options);
  cleanups.push(() => bridge.close());
  return bridge;
}

/** A plain server whose handler the test writes (one that never answers, or answers without end). */
async function rawServer(handler: (res: ServerResponse) => void): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    handler(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const post = (url: string, init: RequestInit = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    ...init,
  });

const resolvingTo =
  (...sequence: string[][]) =>
  (
    _hostname: string,
    _options: { all: true },
    callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) => {
    const addresses = sequence.length > 1 ? sequence.shift()! : sequence[0];
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };

describe('the conformance bridge', () => {
  it("forwards to the saved server's path with the saved headers and token, and the server's own Host", async () => {
    const target = await recording((_r, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const bridge = await bridgeTo(`${target.origin}/mcp?tenant=7`, {
      headers: () => ({ 'X-Api-Key': 'saved-key', Authorization: 'Bearer token-1' }),
    });
    const reply = await post(bridge.url, { headers: { 'content-type': 'application/json', 'mcp-session-id': 's1' } });
    expect(reply.status).toBe(200);
    expect(await reply.text()).toBe('{}');
    expect(target.requests).toHaveLength(1);
    const [seen] = target.requests;
    expect(seen.url).toBe('/mcp?tenant=7');
    expect(seen.body).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(seen.headers).toMatchObject({
      host: new URL(target.origin).host,
      'x-api-key': 'saved-key',
      authorization: 'Bearer token-1',
      'mcp-session-id': 's1',
    });
  });

  it('passes a foreign Host through unchanged (the DNS-rebinding scenario)', async () => {
    const target = await recording();
    const bridge = await bridgeTo(`${target.origin}/mcp`);
    // fetch will not set Host: a raw request does, as the suite's scenario does
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(bridge.url, {
        method: 'POST',
        headers: { host: 'evil.example.com', origin: 'http://evil.example.com' },
      });
      req.on('response', (res) => res.resume().on('end', resolve));
      req.on('error', reject);
      req.end('{}');
    });
    expect(target.requests[0].headers).toMatchObject({ host: 'evil.example.com', origin: 'http://evil.example.com' });
  });

  it('sends a request with a refreshed token once more after a 401', async () => {
    let token = 'old';
    const target = await recording((request, res) =>
      res.writeHead(request.headers.authorization === 'Bearer new' ? 200 : 401).end(),
    );
    const bridge = await bridgeTo(`${target.origin}/mcp`, {
      headers: () => ({ Authorization: `Bearer ${token}` }),
      unauthorized: async () => {
        token = 'new';
        return true;
      },
    });
    expect((await post(bridge.url)).status).toBe(200);
    expect(target.requests.map((r) => r.headers.authorization)).toEqual(['Bearer old', 'Bearer new']);
  });

  it('answers only under its secret path, and never lets a path name another host', async () => {
    const target = await recording();
    const bridge = await bridgeTo(`${target.origin}/mcp`);
    const { origin } = new URL(bridge.url);
    expect((await post(`${origin}/mcp`)).status).toBe(404);
    const secret = new URL(bridge.url).pathname.split('/')[1];
    const other = await recording();
    await post(`${origin}/${secret}//${new URL(other.origin).host}/mcp`);
    expect(other.requests).toEqual([]);
    expect(target.requests.map((r) => r.url)).toEqual([`//${new URL(other.origin).host}/mcp`]);
  });

  it('never follows a redirect: the other host receives nothing, the suite gets a 502 that says so', async () => {
    const elsewhere = await recording();
    const hostile = await recording((_r, res) => res.writeHead(307, { location: `${elsewhere.origin}/mcp` }).end());
    const bridge = await bridgeTo(`${hostile.origin}/mcp`, { headers: () => ({ Authorization: 'Bearer secret' }) });
    const reply = await post(bridge.url);
    expect(reply.status).toBe(502);
    expect(await reply.text()).toMatch(/does not follow redirects/);
    expect(reply.headers.get('location')).toBeNull();
    expect(elsewhere.requests).toEqual([]);
    expect(bridge.notes()).toEqual([expect.stringMatching(/redirect \(HTTP 307\)/)]);
  });

  it('cuts a reply past its byte limit, and stops reading the server', async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    let serverSawClose = false;
    const { origin } = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.on('close', () => (serverSawClose = true));
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const bridge = await bridgeTo(`${origin}/mcp`);
    const reply = await post(bridge.url);
    expect(reply.status).toBe(200);
    let received = 0;
    await expect(
      (async () => {
        for await (const chunk of reply.body as unknown as AsyncIterable<Uint8Array>) received += chunk.byteLength;
      })(),
    ).rejects.toThrow();
    expect(received).toBeLessThanOrEqual(OPTIONS.maxReplyBytes);
    await expect.poll(() => serverSawClose).toBe(true);
    // The server was stopped long before its 64 MB: the bridge read no further than its limit and the socket buffers.
    expect(written).toBeLessThan(total / 2);
    expect(bridge.notes()).toEqual([expect.stringMatching(/longer than .* bytes and was cut/)]);
  });

  it('answers 504 when the server sends no headers within the per-request timeout', async () => {
    const { origin } = await rawServer(() => {});
    const bridge = await bridgeTo(`${origin}/mcp`, {}, { ...OPTIONS, requestTimeoutMs: 300 });
    const reply = await post(bridge.url);
    expect(reply.status).toBe(504);
    expect(bridge.notes()).toEqual(['a request got no answer within 300 ms']);
  });

  it('cuts a reply that stalls mid-body past the per-request timeout', async () => {
    const { origin } = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\n');
    });
    const bridge = await bridgeTo(`${origin}/mcp`, {}, { ...OPTIONS, requestTimeoutMs: 300 });
    const reply = await post(bridge.url);
    await expect(reply.text()).rejects.toThrow();
    expect(bridge.notes()).toEqual(['a reply stalled for more than 300 ms and was cut']);
  });

  it('refuses, through the outbound guard, a name that rebinds to loopback after resolving to a public address', async () => {
    const internal = await recording();
    const { port } = new URL(internal.origin);
    // The saved server's name resolved to a public address when the check started, then to loopback.
    const bridge = await bridgeTo(
      `http://mcp.rebind.test:${port}/mcp`,
      {},
      {
        ...OPTIONS,
        lookup: resolvingTo(['93.184.215.14'], ['127.0.0.1']),
      },
    );
    const reply = await post(bridge.url);
    expect(reply.status).toBe(502);
    expect(await reply.text()).toMatch(/not an address outbound requests may reach/);
    expect(internal.requests).toEqual([]);
  });

  it('refuses a saved server at a link-local (cloud metadata) address', async () => {
    const bridge = await bridgeTo('http://169.254.169.254/latest/meta-data');
    const reply = await post(bridge.url);
    expect(reply.status).toBe(502);
    expect(bridge.notes()).toEqual([expect.stringMatching(/169\.254\.169\.254 is not an address/)]);
  });

  it('listens on loopback only', async () => {
    const target = await recording();
    const bridge = await bridgeTo(`${target.origin}/mcp`);
    expect(new URL(bridge.url).hostname).toBe('127.0.0.1');
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && !address.internal && address.family === 'IPv4');
    if (external) await expect(connects(external.address, bridge.port)).resolves.toBe(false);
    expect(target.requests).toEqual([]);
  });

  it('is gone once closed: its port no longer listens', async () => {
    const target = await recording();
    const bridge = await startBridge({ url: `${target.origin}/mcp`, headers: () => ({}) }, OPTIONS);
    expect(await connects('127.0.0.1', bridge.port)).toBe(true);
    await bridge.close();
    expect(await connects('127.0.0.1', bridge.port)).toBe(false);
  });

  it('ends an open event stream when it closes', async () => {
    const { origin } = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
    });
    const bridge: Bridge = await bridgeTo(`${origin}/mcp`);
    const reply = await fetch(bridge.url, { headers: { accept: 'text/event-stream' } });
    const reader = reply.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': open\n\n');
    await bridge.close();
    await expect(reader.read()).rejects.toThrow();
  });
});

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
