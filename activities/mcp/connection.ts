import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type Implementation, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SavedServer } from '../../db/servers.js';
import type { OperationFailure } from '../errors.js';
import { declaredCapabilities, type ClientProfile } from './clientProfile.js';
import { answerServerRequests, type ClientAnswers } from './clientRequests.js';
import { httpStatus, toOperationFailure } from './failures.js';
import type { McpTimeouts, Phase } from './timeouts.js';
import { createTransport, transportKindsFor, type Credentials, type TransportKind } from './transports.js';

/** What initialization told us about the server (the validate reply's initInfo). */
export interface InitInfo {
  protocolVersion: string | null;
  serverInfo: Implementation | null;
  capabilities: ServerCapabilities;
  instructions: string | null;
  transport: TransportKind;
}

export interface ConnectTarget {
  server: SavedServer;
  credentials?: Credentials;
  timeouts: McpTimeouts;
  /** what the client declares and how it answers the server's requests; the server's own profile by default */
  profile?: ClientProfile;
}

export interface ConnectTimings {
  connectMs: number;
  initializeMs: number;
}

/** One initialized MCP session with a saved server. */
export interface McpConnection {
  readonly client: Client;
  readonly initInfo: InitInfo;
  /** the child process (stdio), so tests and operators can see that it is reused */
  readonly pid: number | null;
  readonly timings: ConnectTimings;
  /** settles once the session is gone: closed by us, the child died, or the stream broke */
  readonly closed: Promise<void>;
  /** the answers of the operation the pool lent the session to; the profile's policy answers when unset */
  lease: ClientAnswers | undefined;
  close(): Promise<void>;
}

export const CLIENT_INFO: Implementation = { name: 'runway', version: '0.1.0' };

/**
 * Opens and initializes a session, timing the connect and initialize phases separately. An `http` server that
 * refuses streamable HTTP is tried again over SSE. Failures come out typed (OperationFailure).
 */
export async function openConnection(target: ConnectTarget, timings: ConnectTimings = { connectMs: 0, initializeMs: 0 }): Promise<McpConnection> {
  const kinds = transportKindsFor(target.server);
  for (let i = 0; ; i++) {
    try {
      return await connectOver(kinds[i], target, timings);
    } catch (failure) {
      const next = kinds[i + 1];
      if (!next || !refusesTransport(failure as OperationFailure)) throw failure;
    }
  }
}

/** A streamable-HTTP POST answered 400/404/405: the server speaks another protocol at this URL. */
const refusesTransport = (failure: OperationFailure) =>
  failure.code === 'SERVER_UNREACHABLE' && [400, 404, 405].includes(failure.details?.status as number);

async function connectOver(kind: TransportKind, { server, credentials, timeouts, profile = server.clientProfile }: ConnectTarget, timings: ConnectTimings): Promise<McpConnection> {
  let phase: Phase = 'connect';
  let startedAt = Date.now();
  const enterInitialize = () => {
    if (phase !== 'connect') return;
    timings.connectMs = Date.now() - startedAt;
    phase = 'initialize';
    startedAt = Date.now();
  };
  // Streamable HTTP opens no connection until its first request, so there the connect phase ends with the
  // server's first HTTP answer; a refused or unresolvable address is then a connect failure, as for the others.
  const observe: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    enterInitialize();
    return response;
  };
  const created = createTransport(kind, server, credentials, kind === 'streamable-http' ? observe : undefined);
  const { transport } = created;
  const client = new Client(CLIENT_INFO, { capabilities: declaredCapabilities(profile) });
  let lease: ClientAnswers | undefined;
  answerServerRequests(client, profile, () => lease);

  // The SDK starts the transport inside client.connect(); wrapping start() is how the connect phase gets its
  // own deadline and timing (spawning the child, opening the SSE stream).
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await withDeadline(start(), timeouts.connectMs);
    if (kind !== 'streamable-http') enterInitialize();
  };
  // The negotiated version is only handed to the transport; stdio has no setter, so one is added to record it.
  let protocolVersion: string | null = null;
  const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version: string) => {
    protocolVersion = version;
    setProtocolVersion?.(version);
  };

  let markClosed = () => {};
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  let initialized = false;
  client.onclose = () => markClosed();
  client.onerror = (error) => {
    // After initialization a broken stream means the server is gone (crash, restart, network). Closing fails the
    // requests waiting on it at once (instead of at their timeout) and lets the pool open a fresh session.
    if (initialized && streamBroke(error)) void client.close();
  };

  try {
    await client.connect(transport, { timeout: timeouts.initializeMs });
  } catch (error) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw toOperationFailure(error, { phase, startedAt, server });
  }
  timings.initializeMs = Date.now() - startedAt;
  initialized = true;

  return {
    client,
    get lease() {
      return lease;
    },
    set lease(answers) {
      lease = answers;
    },
    pid: created.pid(),
    timings,
    closed,
    initInfo: {
      protocolVersion,
      serverInfo: client.getServerVersion() ?? null,
      capabilities: client.getServerCapabilities() ?? {},
      instructions: client.getInstructions() ?? null,
      transport: kind,
    },
    close: async () => {
      // A streamable HTTP session is ended on the server too (the spec's DELETE with the session id), briefly:
      // a server that does not answer must not hold up closing. A server without the feature answers 405.
      if (transport instanceof StreamableHTTPClientTransport) await withDeadline(transport.terminateSession(), SESSION_END_MS).catch(() => {});
      await client.close();
    },
  };
}

/** How long closing waits for a streamable HTTP server to acknowledge the end of its session. */
const SESSION_END_MS = 2_000;

function streamBroke(error: Error): boolean {
  return error instanceof SseError || /^SSE stream disconnected|^Failed to reconnect|^Maximum reconnection attempts/.test(error.message) || httpStatus(error) === 404;
}

/** Rejects with an MCP timeout (mapped like any other) when `work` takes longer than `ms`. */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new McpError(ErrorCode.RequestTimeout, 'connect timed out')), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
