import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { SavedServer } from '../../db/servers.js';
import { OperationFailure } from '../errors.js';
import type { Phase } from './timeouts.js';
import type { ChildReport } from './transports.js';

export interface FailureContext {
  phase: Phase;
  /** when the phase started (Date.now()), for details.elapsedMs */
  startedAt: number;
  server: Pick<SavedServer, 'id' | 'name' | 'url'>;
  /** a stdio server's process: the end of its stderr and its exit, for the caller */
  child?: ChildReport | null;
}

/** MCP's "resource not found" (spec, not in the SDK's ErrorCode enum). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * The one place where whatever the MCP SDK, a transport or a child process throws becomes a typed failure, so the
 * API and the eval worker answer the same codes. Anything already typed passes through unchanged.
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
  const elapsedMs = Date.now() - context.startedAt;
  const unreachable = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
    new OperationFailure('SERVER_UNREACHABLE', `server '${server.name}': ${message}`, { reason, phase, ...extra });

  if (httpStatus(error) === 401 || error instanceof UnauthorizedError) {
    return oauthRequired(server, `server '${server.name}' needs an OAuth grant: import tokens with /oauth/import-tokens`);
  }
  if (error instanceof McpError) {
    switch (error.code) {
      case ErrorCode.RequestTimeout:
        return new OperationFailure('TIMEOUT', `server '${server.name}' did not answer in time (${phase})`, { phase, elapsedMs });
      case ErrorCode.ConnectionClosed:
        return unreachable('CONNECTION_CLOSED', `the connection closed (${phase})`);
      case ErrorCode.MethodNotFound:
        return featureNotSupported(server, 'the requested method', { mcpError: { code: error.code, message: error.message } });
      case ErrorCode.InvalidParams:
        return new OperationFailure('VALIDATION_ERROR', `server '${server.name}' rejected the request: ${error.message}`, {
          reason: 'INVALID_PARAMS',
          mcpError: { code: error.code, message: error.message },
        });
      case RESOURCE_NOT_FOUND:
        return new OperationFailure('NOT_FOUND', `server '${server.name}': ${error.message}`, { reason: 'RESOURCE_NOT_FOUND' });
      default:
        // The server answered with a JSON-RPC error of its own: a bad gateway, not our failure.
        return unreachable('MCP_ERROR', error.message, { mcpError: { code: error.code, message: error.message } });
    }
  }
  const status = httpStatus(error);
  if (status !== undefined) {
    // A 404 on a live session means the server forgot it (restart, expiry): the session must be started again.
    const reason = status === 404 && phase === 'request' ? 'SESSION_EXPIRED' : 'HTTP_ERROR';
    return unreachable(reason, (error as Error).message, { status });
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (phase === 'connect' && typeof code === 'string') return unreachable('SPAWN_FAILED', (error as Error).message, { errno: code });
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = (error.cause as NodeJS.ErrnoException | undefined)?.code;
    return unreachable('NETWORK_ERROR', cause ? `fetch failed (${cause})` : 'fetch failed', cause ? { errno: cause } : {});
  }
  if (error instanceof Error && (error.name === 'ZodError' || /^Not connected$|protocol version/i.test(error.message))) {
    return unreachable('INVALID_RESPONSE', error.message);
  }
  // Before the session exists any failure means we could not reach it; after, an unknown error is ours.
  if (phase !== 'request') return unreachable('CONNECT_FAILED', error instanceof Error ? error.message : String(error));
  return new OperationFailure('INTERNAL_ERROR', 'the MCP operation failed unexpectedly');
}

/** Reasons that mean the session itself is gone or unusable (as opposed to one request failing on a healthy one). */
const SESSION_ENDING = new Set(['CONNECTION_CLOSED', 'SESSION_EXPIRED', 'HTTP_ERROR', 'NETWORK_ERROR']);

/** Whether a failure of a request should retire the session it ran on, so the next operation reconnects. */
export function endsSession(failure: OperationFailure): boolean {
  return failure.code === 'OAUTH_REQUIRED' || (failure.code === 'SERVER_UNREACHABLE' && SESSION_ENDING.has(failure.details?.reason as string));
}

export function oauthRequired(server: Pick<SavedServer, 'id' | 'name' | 'url'>, message: string): OperationFailure {
  return new OperationFailure('OAUTH_REQUIRED', message, {
    oauthRequired: true,
    serverId: server.id,
    serverName: server.name,
    serverUrl: server.url,
  });
}

export function featureNotSupported(server: Pick<SavedServer, 'name'>, what: string, details: Record<string, unknown> = {}): OperationFailure {
  return new OperationFailure('FEATURE_NOT_SUPPORTED', `server '${server.name}' does not support ${what}`, { reason: 'CAPABILITY_MISSING', ...details });
}

/** The HTTP status behind a transport error, when there is one. */
export function httpStatus(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    return typeof error.code === 'number' && error.code >= 100 ? error.code : undefined;
  }
  return undefined;
}
