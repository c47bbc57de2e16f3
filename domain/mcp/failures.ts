import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SseError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { OperationFailure } from '../failures.js';
import { formatCount, limits } from '../limits.js';
import { MessageTooLarge } from './messageSize.js';
import { RUNWAY_PROTOCOL_VERSIONS } from './protocolEras.js';
import { HttpRefusal, serverWords } from './refusals.js';
import { LostStream } from './resumption.js';
import type { Phase } from './timeouts.js';
import type { ChildReport } from './transports.js';
import type { SavedServer } from '../catalog/server.js';

export interface FailureContext {
  phase: Phase;
  /** when the phase started (Date.now()), for details.elapsedMs */
  startedAt: number;
  server: Pick<SavedServer, 'id' | 'name' | 'url'>;
  /** a stdio server's process: the end of its stderr and its exit, for the caller */
  child?: ChildReport | null;
}

/** What a lost stream's request is failed with (connection.ts): an error only Runway delivers, never a server. */
export const LOST_LOCALLY = -32000;

/** A message past limits.serverMessageBytes: not read, and the request failed (502, like any bad answer). */
function messageTooLarge(limitBytes: number, { phase, server }: FailureContext): OperationFailure {
  return new OperationFailure(
    'SERVER_UNREACHABLE',
    `server '${server.name}' sent a message of more than ${formatCount(limitBytes)} bytes, more than Runway reads (${phase})`,
    { reason: 'MESSAGE_TOO_LARGE', phase, limitBytes },
  );
}

/**
 * The one place where whatever the MCP SDK, a transport or a child process throws becomes a typed failure, so the
 * API and the eval worker answer the same codes. Anything already typed passes through unchanged. The table of
 * what becomes what is in docs/MCP-CLIENT.md.
 */
export function toOperationFailure(error: unknown, context: FailureContext): OperationFailure {
  if (error instanceof OperationFailure) return error;
  return withChildReport(classify(error, context), context);
}

/**
 * Why a stdio server failed is usually on its stderr: the tail and the exit go into the details (the caller may
 * use this server; nothing here is logged). Before the session exists they always help (a crash at start, a
 * slow first start); on a live session only once the process has ended.
 */
function withChildReport(failure: OperationFailure, { phase, child }: FailureContext): OperationFailure {
  if (!child || (phase === 'request' && !child.exited)) return failure;
  if (!child.exited && child.stderr === '') return failure;
  const details: Record<string, unknown> = { ...failure.details };
  if (child.exited) Object.assign(details, { exitCode: child.exitCode, signal: child.signal });
  if (child.stderr !== '') details.stderr = child.stderr;
  return new OperationFailure(failure.code, failure.message, details);
}

function classify(error: unknown, context: FailureContext): OperationFailure {
  const { phase, server } = context;
  const unreachable = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
    new OperationFailure('SERVER_UNREACHABLE', `server '${server.name}': ${message}`, { reason, phase, ...extra });

  if (error instanceof HttpRefusal) return fromHttpRefusal(error, context);
  if (error instanceof MessageTooLarge) return messageTooLarge(error.limitBytes, context);
  if (error instanceof UnauthorizedError)
    return oauthRequired(
      server,
      `server '${server.name}' needs an OAuth grant: import tokens with /oauth/import-tokens`,
    );
  if (error instanceof ProtocolError) {
    if (error.code === LOST_LOCALLY && error.data instanceof MessageTooLarge)
      return messageTooLarge(error.data.limitBytes, context);
    if (error.code === LOST_LOCALLY && error.data instanceof LostStream) {
      return unreachable('STREAM_LOST', `the response stream broke before the answer arrived: ${error.data.why}`, {
        resumptions: error.data.resumptions,
      });
    }
    return fromServerError({ code: error.code, message: error.message, data: error.data }, context);
  }
  if (error instanceof SdkError && !(error instanceof SdkHttpError)) {
    const failure = fromSdkError(error, context);
    if (failure) return failure;
  }
  const answer = httpAnswer(error);
  if (answer?.status === 401) return refusedCredentials(server, phase, 401, answer.words);
  if (answer) {
    // Here (legacy SSE, where every POST names its session) a 404 on a live session means the server forgot it.
    const reason = answer.status === 404 && phase === 'request' ? 'SESSION_EXPIRED' : 'HTTP_ERROR';
    return unreachable(reason, `answered HTTP ${answer.status}${answer.words ? `: ${answer.words}` : ''}`, {
      status: answer.status,
      ...(answer.words ? { serverMessage: answer.words } : {}),
    });
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (phase === 'connect' && typeof code === 'string')
    return unreachable('SPAWN_FAILED', (error as Error).message, { errno: code });
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = (error.cause as NodeJS.ErrnoException | undefined)?.code;
    return unreachable(
      'NETWORK_ERROR',
      cause ? `fetch failed (${cause})` : 'fetch failed',
      cause ? { errno: cause } : {},
    );
  }
  if (
    error instanceof Error &&
    (error.name === 'ZodError' || /^Not connected$|protocol version/i.test(error.message))
  ) {
    return unreachable('INVALID_RESPONSE', error.message);
  }
  // Before the session exists any failure means we could not reach it; after, an unknown error is ours.
  if (phase !== 'request') return unreachable('CONNECT_FAILED', error instanceof Error ? error.message : String(error));
  return new OperationFailure('INTERNAL_ERROR', 'the MCP operation failed unexpectedly');
}

/**
 * A JSON-RPC error the server answered (in-band, or as the body of an HTTP error answer). Our own requests before
 * the session exists (initialize, server/discover) are not the caller's: what the server objects to there is the
 * server's answer, except a refused protocol revision, which is said as what it is in every phase.
 */
function fromServerError(
  error: { code: number; message: string; data?: unknown },
  context: FailureContext,
): OperationFailure {
  const { phase, server } = context;
  // The SDK prefixes "MCP error <code>: " on each side; what is left is the server's, so it is cleaned like any.
  const mcpError = {
    code: error.code,
    message: serverWords(error.message.replace(/^(MCP error -?\d+: )+/, '')) ?? '',
  };
  if (VERSION_REFUSALS.has(error.code)) return versionUnsupported(server, phase, mcpError, error.data);
  if (phase === 'request') {
    if (error.code === ProtocolErrorCode.MissingRequiredClientCapability) {
      // A 2026 server asked for something (a question, sampling) the client did not declare for this call.
      const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
      return new OperationFailure(
        'FEATURE_NOT_SUPPORTED',
        `server '${server.name}' needs a client capability this call did not declare: ${mcpError.message}; ` +
          "answer its questions with the call's `elicitation`, or declare the capability in the server's client profile",
        {
          reason: 'CLIENT_CAPABILITY_REQUIRED',
          mcpError,
          ...(required !== undefined ? { requiredCapabilities: required } : {}),
        },
      );
    }
    if (error.code === ProtocolErrorCode.MethodNotFound)
      return featureNotSupported(server, 'the requested method', { mcpError });
    if (error.code === ProtocolErrorCode.InvalidParams) {
      return new OperationFailure(
        'VALIDATION_ERROR',
        `server '${server.name}' rejected the request: ${mcpError.message}`,
        {
          reason: 'INVALID_PARAMS',
          mcpError,
        },
      );
    }
    if (error.code === ProtocolErrorCode.ResourceNotFound)
      return new OperationFailure('NOT_FOUND', `server '${server.name}': ${mcpError.message}`, {
        reason: 'RESOURCE_NOT_FOUND',
        mcpError,
      });
  }
  return serverError(server, phase, mcpError);
}

/** -32022 Unsupported protocol version; -32020 the version header and the request's `_meta` disagree. */
const VERSION_REFUSALS = new Set<number>([ProtocolErrorCode.UnsupportedProtocolVersion, -32020]);

/** The versions a -32022's data lists (`supported`), when it lists any. */
function versionsIn(data: unknown, key: 'supported' | 'requested'): string[] | undefined {
  const value = (data as Record<string, unknown> | null | undefined)?.[key];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.slice(0, 20) : undefined;
}

/**
 * The server does not speak a protocol revision Runway speaks (or refused the one Runway sent). Typed and not
 * retryable: the same request fails the same way until the server or Runway changes, so an eval run does not
 * retry it. Both sides' versions are named, with what to do.
 */
export function versionUnsupported(
  server: Pick<SavedServer, 'name'>,
  phase: Phase,
  mcpError: { code: number; message: string } | undefined,
  data?: unknown,
): OperationFailure {
  const serverSupports = versionsIn(data, 'supported') ?? null;
  const requested = versionsIn(data, 'requested')?.[0] ?? null;
  return new OperationFailure(
    'SERVER_UNREACHABLE',
    `server '${server.name}' does not speak a protocol revision Runway speaks` +
      `${serverSupports ? ` (it supports ${serverSupports.join(', ')}` : ' ('}` +
      `${serverSupports ? '; ' : ''}Runway speaks ${RUNWAY_PROTOCOL_VERSIONS.join(', ')})`,
    {
      reason: 'PROTOCOL_VERSION_UNSUPPORTED',
      phase,
      retryable: false,
      serverSupports,
      runwaySupports: [...RUNWAY_PROTOCOL_VERSIONS],
      ...(requested ? { requested } : {}),
      ...(mcpError ? { mcpError } : {}),
    },
  );
}

/** What the SDK itself reports (a timeout, a closed connection, an answer it could not use). */
function fromSdkError(error: SdkError, context: FailureContext): OperationFailure | undefined {
  const { phase, server } = context;
  const unreachable = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
    new OperationFailure('SERVER_UNREACHABLE', `server '${server.name}': ${message}`, { reason, phase, ...extra });
  switch (error.code) {
    case SdkErrorCode.RequestTimeout:
      return new OperationFailure('TIMEOUT', `server '${server.name}' did not answer in time (${phase})`, {
        phase,
        elapsedMs: Date.now() - context.startedAt,
      });
    case SdkErrorCode.ConnectionClosed:
    case SdkErrorCode.NotConnected:
      // stdio: the session was ended because the server sent a message past the limit
      if (context.child?.messageTooLarge) return messageTooLarge(context.child.messageTooLarge, context);
      return unreachable('CONNECTION_CLOSED', `the connection closed (${phase})`);
    case SdkErrorCode.EraNegotiationFailed: {
      // The probe could not be sent or answered (refused, unreachable, 401): that failure, as if it were any request's.
      const cause = (error.data as { cause?: unknown } | undefined)?.cause;
      if (cause !== undefined) return classify(cause, context);
      if (error.data && typeof error.data === 'object' && 'supported' in error.data)
        return versionUnsupported(server, phase, undefined, error.data);
      return unreachable('PROTOCOL_NEGOTIATION_FAILED', serverWords(error.message) ?? 'version negotiation failed');
    }
    case SdkErrorCode.InputRequiredRoundsExceeded:
      return unreachable(
        'INPUT_REQUIRED_ROUNDS_EXCEEDED',
        `it kept asking for input past ${limits.inputRequiredRounds} rounds (input_required)`,
        { retryable: false },
      );
    case SdkErrorCode.CapabilityNotSupported:
    case SdkErrorCode.MethodNotSupportedByProtocolVersion:
      return featureNotSupported(server, 'the requested method', { sdkError: serverWords(error.message) });
    case SdkErrorCode.InvalidResult:
    case SdkErrorCode.UnsupportedResultType:
    case SdkErrorCode.ListPaginationExceeded:
      return unreachable('INVALID_RESPONSE', serverWords(error.message) ?? 'an answer Runway cannot use');
    default:
      return undefined;
  }
}

/**
 * Whether the server no longer knows the session the request belonged to. The spec says 404 ("Session Management");
 * servers built on the SDK's own examples (server-everything among them) answer a session they forgot with 400
 * "Bad Request: No valid session ID provided", so a 400 that names the session counts too. Either way the request
 * was not processed, so it is safe to send again on a new session.
 */
function sessionExpired({ status, withSession, serverWords }: HttpRefusal): boolean {
  if (!withSession) return false;
  return status === 404 || (status === 400 && /session/i.test(serverWords ?? ''));
}

/** An HTTP error answer to one of our POSTs (refusals.ts), by what the server meant by it. */
function fromHttpRefusal(refusal: HttpRefusal, { phase, server }: FailureContext): OperationFailure {
  const { status, challenge, serverWords, mcpError } = refusal;
  if (mcpError && VERSION_REFUSALS.has(mcpError.code))
    return versionUnsupported(server, phase, { code: mcpError.code, message: serverWords ?? '' }, mcpError.data);
  if (status === 401) {
    // A challenge that points at protected-resource metadata is an OAuth server asking for a grant.
    if (challenge?.resourceMetadataUrl)
      return oauthRequired(
        server,
        `server '${server.name}' needs an OAuth grant: import tokens with /oauth/import-tokens`,
      );
    return refusedCredentials(server, phase, 401, serverWords);
  }
  if (status === 403 && challenge?.error === 'insufficient_scope') {
    // The token is good but too narrow (RFC 6750 §3.1): the caller can get one with this scope and import it.
    const scope = challenge.scope ?? null;
    return new OperationFailure(
      'OAUTH_REQUIRED',
      `server '${server.name}' needs a token with more scope${scope ? ` (${scope})` : ''}: obtain new tokens and import them with /oauth/import-tokens`,
      {
        reason: 'INSUFFICIENT_SCOPE',
        scope,
        ...oauthRequiredDetails(server),
        ...(serverWords ? { serverMessage: serverWords } : {}),
      },
    );
  }
  const reason = sessionExpired(refusal) ? 'SESSION_EXPIRED' : 'HTTP_ERROR';
  return new OperationFailure(
    'SERVER_UNREACHABLE',
    `server '${server.name}' answered HTTP ${status}${serverWords ? `: ${serverWords}` : ''}`,
    {
      reason,
      phase,
      status,
      ...(serverWords ? { serverMessage: serverWords } : {}),
    },
  );
}

/**
 * The server refused the credentials it was sent (or their absence) and does not use OAuth: the saved server's
 * headers are wrong or missing. Not OAUTH_REQUIRED (no grant can help), not UNAUTHORIZED (that is the API key's):
 * a 502, as for any answer of the upstream server that Runway cannot use, with the server's own words, and marked
 * not retryable since the same request will be refused again until an operator fixes the saved server.
 * operations.ts turns it into OAUTH_REQUIRED when the server turns out to use OAuth after all.
 */
export function refusedCredentials(
  server: Pick<SavedServer, 'name'>,
  phase: Phase,
  status: number,
  serverWords: string | undefined,
): OperationFailure {
  return new OperationFailure(
    'SERVER_UNREACHABLE',
    `server '${server.name}' refused the request's credentials (HTTP ${status})${serverWords ? `: ${serverWords}` : ''}`,
    {
      reason: 'SERVER_REFUSED_CREDENTIALS',
      phase,
      status,
      retryable: false,
      ...(serverWords ? { serverMessage: serverWords } : {}),
    },
  );
}

/**
 * The server is up and answered with a JSON-RPC error of its own (-32603 and the like). Not an outage: the same
 * request will most likely fail the same way, so it is marked not retryable, and the session is kept.
 */
function serverError(
  server: Pick<SavedServer, 'name'>,
  phase: Phase,
  mcpError: { code: number; message: string },
): OperationFailure {
  return new OperationFailure(
    'SERVER_UNREACHABLE',
    `server '${server.name}' answered with an error: ${mcpError.message} (${mcpError.code})`,
    {
      reason: 'SERVER_ERROR',
      phase,
      retryable: false,
      mcpError,
    },
  );
}

/** Reasons that mean the session itself is gone or unusable (as opposed to one request failing on a healthy one). */
const SESSION_ENDING = new Set(['CONNECTION_CLOSED', 'SESSION_EXPIRED', 'HTTP_ERROR', 'NETWORK_ERROR', 'STREAM_LOST']);

/** Whether a failure of a request should retire the session it ran on, so the next operation reconnects. */
export function endsSession(failure: OperationFailure): boolean {
  if (failure.code === 'OAUTH_REQUIRED') return failure.details?.reason !== 'INSUFFICIENT_SCOPE';
  return failure.code === 'SERVER_UNREACHABLE' && SESSION_ENDING.has(failure.details?.reason as string);
}

const oauthRequiredDetails = (server: Pick<SavedServer, 'id' | 'name' | 'url'>) => ({
  oauthRequired: true,
  serverId: server.id,
  serverName: server.name,
  serverUrl: server.url,
});

export function oauthRequired(server: Pick<SavedServer, 'id' | 'name' | 'url'>, message: string): OperationFailure {
  return new OperationFailure('OAUTH_REQUIRED', message, oauthRequiredDetails(server));
}

export function featureNotSupported(
  server: Pick<SavedServer, 'name'>,
  what: string,
  details: Record<string, unknown> = {},
): OperationFailure {
  return new OperationFailure('FEATURE_NOT_SUPPORTED', `server '${server.name}' does not support ${what}`, {
    reason: 'CAPABILITY_MISSING',
    ...details,
  });
}

/**
 * The HTTP status (and the server's words) behind an SDK transport error that is not an HttpRefusal: the legacy
 * SSE transport's (an SseError, or a plain Error for its POSTs) and streamable HTTP's GET and DELETE.
 */
function httpAnswer(error: unknown): { status: number; words?: string } | undefined {
  if (error instanceof SdkHttpError) {
    return { status: error.status, words: serverWords(error.message.replace(/^(Streamable HTTP error): /, '')) };
  }
  if (error instanceof SseError) {
    if (typeof error.code !== 'number' || error.code < 100) return undefined;
    return { status: error.code, words: serverWords(error.message.replace(/^(SSE error): /, '')) };
  }
  const post =
    error instanceof Error ? /^Error POSTing to endpoint \(HTTP (\d{3})\): ([\s\S]*)$/.exec(error.message) : null;
  return post ? { status: Number(post[1]), words: serverWords(post[2]) } : undefined;
}
