import type { ChildProcess } from 'node:child_process';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SSEClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport, type StreamableHTTPReconnectionOptions } from '@modelcontextprotocol/client';
import type { FetchLike, Transport } from '@modelcontextprotocol/client';
import { limits } from '../limits.js';
import { BoundedReadBuffer } from './messageSize.js';
import { StderrTail } from './stderrTail.js';
import type { ResumptionLimits } from './resumption.js';
import type { SavedServer } from '../catalog/server.js';

/** The wire a connection actually uses; an `http` server may end up on `sse` (fallback). */
export type TransportKind = 'stdio' | 'streamable-http' | 'sse';

/** The access token of the server's OAuth grant and its generation (part of the pool key). */
export interface Credentials {
  accessToken: string;
  generation: number;
}

/** The kinds to try, in order, for a saved server's transport type. */
export function transportKindsFor(server: Pick<SavedServer, 'transportType'>): TransportKind[] {
  if (server.transportType === 'stdio') return ['stdio'];
  if (server.transportType === 'sse') return ['sse'];
  // Streamable HTTP first; servers that only speak the 2024-11-05 HTTP+SSE protocol refuse its POST.
  return ['streamable-http', 'sse'];
}

/** Saved headers, with the OAuth access token (when there is one) as the Authorization header. */
export function requestHeaders(
  server: Pick<SavedServer, 'headers'>,
  credentials?: Credentials,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(server.headers)) {
    if (!(credentials && name.toLowerCase() === 'authorization')) headers[name] = value;
  }
  if (credentials) headers.Authorization = `Bearer ${credentials.accessToken}`;
  return headers;
}

/**
 * The SDK's own resumption of event streams (GET + Last-Event-ID after the server's `retry`, else this backoff),
 * attempted as often as the resumption limits allow; StreamSupervisor (resumption.ts) enforces the limits.
 */
function reconnectionOptions(limits: ResumptionLimits): StreamableHTTPReconnectionOptions {
  return {
    maxRetries: limits.maxAttempts,
    initialReconnectionDelay: 1000,
    maxReconnectionDelay: 10_000,
    reconnectionDelayGrowFactor: 1.5,
  };
}

/**
 * The SDK's stdio transport, under a name of its own: the SDK probes the protocol era (`server/discover`) of its own
 * stdio class on a second, short-lived process, and of any other transport on the connection itself. A server is
 * spawned once per session this way; one that closes on the probe is a legacy server (connection.ts connects it
 * again, straight to `initialize`), and the verdict is remembered (protocolEras.ts), so later sessions skip it.
 */
class InPlaceStdioTransport extends StdioClientTransport {}

/** How a stdio server's process is doing: the end of its stderr and, once it ended, how. */
export interface ChildReport {
  /** the last lines it wrote to stderr: bounded, without control characters, saved secrets redacted */
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  exited: boolean;
  /** set (to the limit, limits.serverMessageBytes) once it sent a message larger than Runway reads: the session ended */
  messageTooLarge?: number;
}

export interface CreatedTransport {
  transport: Transport;
  /** the child's pid once started (stdio) */
  pid(): number | null;
  /** stdio, once spawned: the child's report (for the caller's error details, never for our logs); else null */
  child(): ChildReport | null;
}

/** Where a stdio server runs: the directory saved with it, else a private one of its own under the data folder. */
export function workingDirectory(server: Pick<SavedServer, 'id' | 'cwd'>, dataDir: string): string {
  return server.cwd ?? join(dataDir, 'servers', server.id);
}

/** Everything saved with a server that must not come back out of its stderr. */
const savedSecrets = (server: SavedServer) => [
  ...Object.values(server.env),
  ...Object.values(server.headers),
  ...(server.clientSecret ? [server.clientSecret] : []),
];

/**
 * `fetch` lets the caller observe HTTP traffic (the connection uses it to see when the server first answers).
 * `dataDir` is where stdio servers without a saved working directory get theirs.
 */
export function createTransport(
  kind: TransportKind,
  server: SavedServer,
  options: { credentials?: Credentials; fetch?: FetchLike; dataDir: string; resumption: ResumptionLimits },
): CreatedTransport {
  const { credentials, fetch } = options;
  if (kind === 'stdio') {
    if (!server.command) throw new Error('a stdio server needs a command');
    const cwd = workingDirectory(server, options.dataDir);
    const transport = new InPlaceStdioTransport({
      command: server.command,
      args: server.args,
      // The SDK's safe defaults (PATH, HOME, ...) with the saved env on top; never this process's whole environment.
      env: { ...getDefaultEnvironment(), ...server.env },
      // Never the service's own directory: relative paths of the server (its arguments, files it writes) land here.
      cwd,
      // Piped, not inherited: a server's stderr may echo its secrets and must not reach our logs. Its tail is kept
      // for the caller; the SDK's copy of the stream is drained so a chatty server never blocks on a full pipe.
      stderr: 'pipe',
    });
    (transport.stderr as NodeJS.ReadableStream | null)?.resume();
    // Its stdout is read by our BoundedReadBuffer instead of the SDK's own: linear time, and a cap per message.
    const reader = new BoundedReadBuffer(limits.serverMessageBytes);
    (transport as unknown as { _readBuffer: BoundedReadBuffer })._readBuffer = reader;
    const tail = new StderrTail(savedSecrets(server));
    let child: ChildProcess | undefined;
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await prepareWorkingDirectory(server, cwd);
      await start();
      // The SDK keeps the process to itself (and forgets it once it exits); its exit code is only on the process.
      child = (transport as unknown as { _process?: ChildProcess })._process;
      child?.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
    };
    return {
      transport,
      pid: () => transport.pid,
      child: () =>
        child
          ? {
              stderr: tail.text(),
              exitCode: child.exitCode,
              signal: child.signalCode,
              exited: child.exitCode !== null || child.signalCode !== null,
              ...(reader.exceeded && { messageTooLarge: reader.limitBytes }),
            }
          : null,
    };
  }
  if (!server.url) throw new Error('an HTTP server needs a url');
  const requestInit: RequestInit = { headers: requestHeaders(server, credentials) };
  const url = new URL(server.url);
  const transport =
    kind === 'sse'
      ? new SSEClientTransport(url, { requestInit, fetch })
      : new StreamableHTTPClientTransport(url, {
          requestInit,
          fetch,
          reconnectionOptions: reconnectionOptions(options.resumption),
        });
  return { transport, pid: () => null, child: () => null };
}

/**
 * The server's own directory is created (private to the service's user) when first needed. One an operator saved
 * must exist: spawning in a missing directory would fail as if the command were missing.
 */
async function prepareWorkingDirectory(server: SavedServer, cwd: string): Promise<void> {
  if (server.cwd === null) {
    await mkdir(cwd, { recursive: true, mode: 0o700 });
    return;
  }
  const found = await stat(cwd).catch(() => undefined);
  if (!found?.isDirectory())
    throw Object.assign(new Error(`the working directory ${cwd} does not exist`), { code: 'ENOENT' });
}
