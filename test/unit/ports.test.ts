import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenOn, PortInUseError, takenPorts } from '../../runtime/ports.js';

/** A listener of another process's kind, holding a port on `host`. */
async function hold(host = '127.0.0.1'): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { port: (server.address() as { port: number }).port, server };
}

const open: Server[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('a port that is taken (runtime/ports.ts)', () => {
  it('listenOn refuses it with a sentence naming the port and its setting', async () => {
    const held = await hold();
    open.push(held.server);
    const server = createServer();
    const failure = await listenOn(server, {
      port: held.port,
      host: '127.0.0.1',
      setting: 'PORT',
      what: 'the API',
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PortInUseError);
    expect((failure as Error).message).toBe(
      `port ${held.port} (PORT, the API) is already in use: stop what listens there, or set PORT to a free port`,
    );
    expect(server.listening).toBe(false);
  });

  it('listenOn listens on a free port', async () => {
    const server = createServer();
    open.push(server);
    await listenOn(server, { port: 0, host: '127.0.0.1', setting: 'METRICS_PORT', what: 'the worker metrics' });
    expect(server.listening).toBe(true);
  });

  it('takenPorts names each taken port once, with its setting, and leaves the free ones and 0 alone', async () => {
    const [loopback, wildcard, free] = await Promise.all([hold('127.0.0.1'), hold('0.0.0.0'), hold()]);
    open.push(loopback.server, wildcard.server);
    await new Promise((r) => free.server.close(r));
    const taken = await takenPorts([
      // A process that listens on every address is stopped by one on 127.0.0.1 too.
      { port: loopback.port, host: '0.0.0.0', setting: 'PORT', what: 'the API' },
      { port: wildcard.port, host: '127.0.0.1', setting: 'TEMPORAL_PORT', what: 'the Temporal dev server' },
      { port: free.port, host: '127.0.0.1', setting: 'DEMO_MCP_PORT', what: 'the demo MCP server' },
      { port: 0, host: '127.0.0.1', setting: 'METRICS_PORT', what: 'the worker metrics' },
    ]);
    expect(taken.map((e) => e.message)).toEqual([
      `port ${loopback.port} (PORT, the API) is already in use: stop what listens there, or set PORT to a free port`,
      `port ${wildcard.port} (TEMPORAL_PORT, the Temporal dev server) is already in use: stop what listens there, or set TEMPORAL_PORT to a free port`,
    ]);
    // The check leaves nothing listening behind.
    const again = createServer();
    open.push(again);
    await listenOn(again, { port: free.port, host: '127.0.0.1', setting: 'DEMO_MCP_PORT', what: 'x' });
  });

  it('names two settings that share one port', async () => {
    const held = await hold();
    open.push(held.server);
    const taken = await takenPorts([
      { port: held.port, host: '127.0.0.1', setting: 'PORT', what: 'the API' },
      { port: held.port, host: '127.0.0.1', setting: 'DEMO_MCP_PORT', what: 'the demo MCP server' },
    ]);
    expect(taken.map((e) => e.setting)).toEqual(['PORT', 'DEMO_MCP_PORT']);
  });

  it('names a free port that two settings would both listen on', async () => {
    const free = await hold();
    await new Promise((r) => free.server.close(r));
    const taken = await takenPorts([
      { port: free.port, host: '0.0.0.0', setting: 'PORT', what: 'the API' },
      { port: free.port, host: '127.0.0.1', setting: 'TEMPORAL_UI_PORT', what: 'the Temporal Web UI' },
    ]);
    expect(taken.map((e) => e.message)).toEqual([
      `port ${free.port} (TEMPORAL_UI_PORT, the Temporal Web UI) is PORT's too: set one of them to another port`,
    ]);
  });
});
