import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, type StreamableHTTPReconnectionOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SavedServer } from '../../db/servers.js';
import type { ResumptionLimits } from './resumption.js';

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
export function requestHeaders(server: Pick<SavedServer, 'headers'>, credentials?: Credentials): Record<string, string> {
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
  return { maxRetries: limits.maxAttempts, initialReconnectionDelay: 1000, maxReconnectionDelay: 10_000, reconnectionDelayGrowFactor: 1.5 };
}

export interface CreatedTransport {
  transport: Transport;
  /** the child's pid once started (stdio) */
  pid(): number | null;
}

/** `fetch` lets the caller observe HTTP traffic (the connection uses it to see when the server first answers). */
export function createTransport(kind: TransportKind, server: SavedServer, credentials: Credentials | undefined, resumption: ResumptionLimits, fetch?: FetchLike): CreatedTransport {
  if (kind === 'stdio') {
    if (!server.command) throw new Error('a stdio server needs a command');
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      // The SDK's safe defaults (PATH, HOME, ...) with the saved env on top; never this process's whole environment.
      env: { ...getDefaultEnvironment(), ...server.env },
      // Piped and discarded, not inherited: a server's stderr may echo its secrets and must not reach our logs;
      // draining it keeps a chatty server from blocking on a full pipe.
      stderr: 'pipe',
    });
    (transport.stderr as NodeJS.ReadableStream | null)?.resume();
    return { transport, pid: () => transport.pid };
  }
  if (!server.url) throw new Error('an HTTP server needs a url');
  const requestInit: RequestInit = { headers: requestHeaders(server, credentials) };
  const url = new URL(server.url);
  const transport =
    kind === 'sse'
      ? new SSEClientTransport(url, { requestInit, fetch })
      : new StreamableHTTPClientTransport(url, { requestInit, fetch, reconnectionOptions: reconnectionOptions(resumption) });
  return { transport, pid: () => null };
}
