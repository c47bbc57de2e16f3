import {
  Client,
  SdkError,
  SdkErrorCode,
  SseError,
  StreamableHTTPClientTransport,
  type DiscoverResult,
  type FetchLike,
  type Implementation,
  type PriorDiscovery,
  type ProtocolEra,
  type RequestId,
  type ServerCapabilities,
} from '@modelcontextprotocol/client';
import type { OperationFailure } from '../failures.js';
import { UntrustedSchemaValidator } from '../untrustedSchema.js';
import { declaredCapabilities, type ClientProfile } from './clientProfile.js';
import { fenceProfile } from './rootsFence.js';
import { answerServerRequests, type ClientAnswers, type InputAnswerer } from './clientRequests.js';
import { LOST_LOCALLY, toOperationFailure } from './failures.js';
import { eraKey, RUNWAY_PROTOCOL_VERSIONS, type ProtocolEras } from './protocolEras.js';
import { withReadableAnswers } from './answerShapes.js';
import { TASKS_EXTENSION } from './tasks.js';
import { limits } from '../limits.js';
import { boundedMessages, type MessageTooLarge } from './messageSize.js';
import { refusalsAsErrors } from './refusals.js';
import { LostStream, StreamSupervisor } from './resumption.js';
import type { McpTimeouts, Phase } from './timeouts.js';
import {
  createTransport,
  transportKindsFor,
  type ChildReport,
  type Credentials,
  type TransportKind,
} from './transports.js';
import type { SavedServer } from '../catalog/server.js';

/** What initialization told us about the server (the validate reply's initInfo). */
export interface InitInfo {
  protocolVersion: string | null;
  /** `modern` (2026-07-28: server/discover, stateless) or `legacy` (the initialize handshake, 2025-11-25 and before) */
  era: ProtocolEra | null;
  serverInfo: Implementation | null;
  capabilities: ServerCapabilities;
  instructions: string | null;
  transport: TransportKind;
}

export interface ConnectTarget {
  server: SavedServer;
  credentials?: Credentials;
  timeouts: McpTimeouts;
  /** the service's data folder (config DATA_DIR): stdio servers without a saved cwd run below it */
  dataDir: string;
  /** what the client declares and how it answers the server's requests; the server's own profile by default */
  profile?: ClientProfile;
  /** the protocol eras learned earlier (skip the server/discover probe); none: always probe (doctor) */
  eras?: ProtocolEras;
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
  /** stdio: the end of the child's stderr and its exit (for a failure's details, never for our logs); else null */
  child(): ChildReport | null;
  readonly timings: ConnectTimings;
  /** a modern server's advertisement (server/discover), else null */
  readonly discover: DiscoverResult | null;
  /** settles once the session is gone: closed by us, the child died, or the stream broke */
  readonly closed: Promise<void>;
  /** the answers of the operation the pool lent the session to; the profile's policy answers when unset */
  lease: ClientAnswers | undefined;
  /** answers a question a task asks, as this session answers the server's other questions */
  answerInput: InputAnswerer;
  /** keeps a tool as this session listed it (its inputSchema says which arguments travel as headers, 2026) */
  rememberTool(tool: ListedToolDefinition): void;
  toolDefinition(name: string): ListedToolDefinition | undefined;
  close(): Promise<void>;
}

export const CLIENT_INFO: Implementation = { name: 'runway', version: '0.1.0' };

/**
 * Opens and initializes a session, timing the connect and initialize phases separately. An `http` server that
 * refuses streamable HTTP is tried again over SSE. Failures come out typed (OperationFailure).
 */
export async function openConnection(
  target: ConnectTarget,
  timings: ConnectTimings = { connectMs: 0, initializeMs: 0 },
): Promise<McpConnection> {
  const kinds = transportKindsFor(target.server);
  const key = eraKey(target.server);
  let prior = target.eras?.prior(key);
  // Each second chance is taken once: a server that fails every way must not make this loop forever.
  let reprobed = false;
  let greetedAgain = false;
  for (let i = 0; ;) {
    try {
      const connection = await connectOver(kinds[i], target, timings, prior);
      const { era, protocolVersion } = connection.initInfo;
      if (era && protocolVersion)
        target.eras?.remember(key, { era, version: protocolVersion, discover: connection.discover ?? undefined });
      return connection;
    } catch (failure) {
      const reason = (failure as OperationFailure).details?.reason;
      // A remembered era that stopped matching (the server was upgraded or replaced): forget it, and probe.
      if (prior && !reprobed && STALE_ERA.has(reason as string)) {
        reprobed = true;
        target.eras?.forget(key);
        prior = undefined;
        continue;
      }
      // A stdio server that ends its process on the probe (some do, on any request before initialize) is a
      // server of the initialize era: started again, it is greeted that way.
      if (!prior && !greetedAgain && kinds[i] === 'stdio' && reason === 'PROTOCOL_NEGOTIATION_FAILED') {
        greetedAgain = true;
        prior = { kind: 'legacy' };
        continue;
      }
      const next = kinds[i + 1];
      if (!next || !refusesTransport(failure as OperationFailure)) throw failure;
      i++;
    }
  }
}

/** A tool as listed: its name and input schema (what tools/call needs to know of it). */
export interface ListedToolDefinition {
  name: string;
  inputSchema: Record<string, unknown>;
  [key: string]: unknown;
}

/** Tools a session remembers at most (a server listing more is called without its definitions past this). */
const MAX_REMEMBERED_TOOLS = 10_000;

/** Failures that say a remembered era no longer fits the server. */
export const STALE_ERA = new Set([
  'PROTOCOL_VERSION_UNSUPPORTED',
  'PROTOCOL_NEGOTIATION_FAILED',
  'INVALID_RESPONSE',
  'HTTP_ERROR',
]);

/** A streamable-HTTP POST answered 400/404/405: the server speaks another protocol at this URL. */
const refusesTransport = (failure: OperationFailure) =>
  failure.code === 'SERVER_UNREACHABLE' && [400, 404, 405].includes(failure.details?.status as number);

async function connectOver(
  kind: TransportKind,
  { server, credentials, timeouts, dataDir, profile: given = server.clientProfile }: ConnectTarget,
  timings: ConnectTimings,
  prior: PriorDiscovery | undefined,
): Promise<McpConnection> {
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
  // Inside that: the streams are watched (resumption bounds); outside: an HTTP error answer becomes typed.
  const supervisor =
    kind === 'streamable-http'
      ? new StreamSupervisor(timeouts.resumption, (ids, lost) => failLost(ids, lost))
      : undefined;
  // Every answer is read at most limits.serverMessageBytes a message (messageSize.ts).
  const bounded = boundedMessages(fetch, limits.serverMessageBytes);
  const watched = supervisor?.wrap(bounded) ?? bounded;
  const observe: FetchLike = async (url, init) => {
    const response = await watched(url, init);
    enterInitialize();
    return response;
  };
  const created = createTransport(kind, server, {
    credentials,
    fetch: kind === 'streamable-http' ? refusalsAsErrors(observe) : kind === 'sse' ? bounded : undefined,
    dataDir,
    resumption: timeouts.resumption,
  });
  // Answers the SDK would refuse and Runway uses (a task, a 2026 result without resultType): answerShapes.ts.
  let modern = false;
  const transport = withReadableAnswers(created.transport, () => modern);
  // The roots declared (and answered to roots/list) are only those the server is allowed (rootsFence.ts), whoever
  // gave the profile. A host's profile introduces the client as that host (its clientInfo); else Runway names itself.
  // The SDK's Client checks a tool's structuredContent against the outputSchema its server wrote: on the rules for
  // schemas from outside (linear-time patterns, a time budget), never on its default Ajv.
  const profile = fenceProfile(server, given);
  // Both eras from one client: the server/discover probe first (the legacy SSE transport predates it), the
  // initialize handshake for servers that do not know it. Questions a 2026 server asks inside a result (MRTR) are
  // answered by the same handlers as a 2025 server's requests, for a bounded number of rounds.
  const client = new Client(profile.clientInfo ?? CLIENT_INFO, {
    capabilities: { ...declaredCapabilities(profile), extensions: { [TASKS_EXTENSION]: {} } },
    jsonSchemaValidator: new UntrustedSchemaValidator(),
    supportedProtocolVersions: [...RUNWAY_PROTOCOL_VERSIONS],
    versionNegotiation:
      kind === 'sse' ? { mode: 'legacy' } : { mode: 'auto', probe: { timeoutMs: timeouts.initializeMs } },
    inputRequired: { maxRounds: limits.inputRequiredRounds },
  });
  let lease: ClientAnswers | undefined;
  const answerInput = answerServerRequests(client, profile, () => lease);
  // A request whose response stream cannot come back fails alone, as if the transport had delivered that answer
  // (the SDK has no other way to fail one request); its data marks it as ours (failures.ts).
  const failLost = (ids: RequestId[], lost: LostStream | MessageTooLarge) => {
    for (const id of ids)
      transport.onmessage?.({
        jsonrpc: '2.0',
        id,
        error: {
          code: LOST_LOCALLY,
          message: lost instanceof LostStream ? lost.why : lost.message,
          data: lost,
        },
      });
  };
  if (supervisor) transport.onmessage = (message) => supervisor.delivered(message);

  // The SDK starts the transport inside client.connect(); wrapping start() is how the connect phase gets its
  // own deadline and timing (spawning the child, opening the SSE stream).
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await withDeadline(start(), timeouts.connectMs);
    if (kind !== 'streamable-http') enterInitialize();
  };
  let markClosed = () => {};
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  let initialized = false;
  client.onclose = () => {
    supervisor?.close();
    markClosed();
  };
  client.onerror = (error) => {
    // After initialization a broken legacy SSE stream means the server is gone (crash, restart, network). Closing
    // fails the requests waiting on it at once (instead of at their timeout) and lets the pool open a new session.
    // Streamable HTTP needs no such rule: a lost response stream fails its own requests (StreamSupervisor), and
    // the standalone GET stream is optional, so its failures (404, 405, a drop) never end the session.
    if (initialized && error instanceof SseError) void client.close();
  };

  try {
    await client.connect(transport, { timeout: timeouts.initializeMs, ...(prior ? { prior } : {}) });
  } catch (error) {
    // Read before closing, which would end a child that is still starting (and make it look as if it had died).
    const child = created.child();
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw toOperationFailure(error, { phase, startedAt, server, child });
  }
  timings.initializeMs = Date.now() - startedAt;
  initialized = true;
  modern = client.getProtocolEra() === 'modern';
  const tools = new Map<string, ListedToolDefinition>();

  return {
    client,
    get lease() {
      return lease;
    },
    set lease(answers) {
      lease = answers;
    },
    answerInput,
    rememberTool: (tool) => {
      if (tools.size < MAX_REMEMBERED_TOOLS || tools.has(tool.name)) tools.set(tool.name, tool);
    },
    toolDefinition: (name) => tools.get(name),
    pid: created.pid(),
    child: created.child,
    timings,
    closed,
    discover: client.getDiscoverResult() ?? null,
    initInfo: {
      protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
      era: client.getProtocolEra() ?? null,
      serverInfo: client.getServerVersion() ?? null,
      capabilities: client.getServerCapabilities() ?? {},
      instructions: client.getInstructions() ?? null,
      transport: kind,
    },
    close: async () => {
      // A streamable HTTP session is ended on the server too (the spec's DELETE with the session id), briefly:
      // a server that does not answer must not hold up closing. A server without the feature answers 405.
      if (transport instanceof StreamableHTTPClientTransport)
        await withDeadline(transport.terminateSession(), SESSION_END_MS).catch(() => {});
      await client.close();
    },
  };
}

/** How long closing waits for a streamable HTTP server to acknowledge the end of its session. */
const SESSION_END_MS = 2_000;

/** Rejects with an MCP timeout (mapped like any other) when `work` takes longer than `ms`. */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SdkError(SdkErrorCode.RequestTimeout, 'connect timed out')), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
