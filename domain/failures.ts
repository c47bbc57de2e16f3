/**
 * Typed failures of operations on MCP servers and models. Everything the MCP SDK, the transports or a model
 * provider throws is turned into one of these in one place (toOperationFailure in domain/mcp), so the API
 * and the worker see the same codes.
 */
export type FailureCode =
  | 'NOT_FOUND'
  | 'VALIDATION_ERROR'
  | 'FORBIDDEN'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'OAUTH_REQUIRED'
  | 'FEATURE_NOT_SUPPORTED'
  | 'SERVER_UNREACHABLE'
  | 'TIMEOUT'
  | 'INTERNAL_ERROR';

export class OperationFailure extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** when a retry may succeed, in seconds (the API sends it as Retry-After) */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'OperationFailure';
  }
}

export const notFound = (what: string, details?: Record<string, unknown>) =>
  new OperationFailure('NOT_FOUND', `${what} not found`, details);

/** A request the domain refuses as it stands (the API's 400 VALIDATION_ERROR). */
export const refused = (message: string, details?: Record<string, unknown>) =>
  new OperationFailure('VALIDATION_ERROR', message, details);
