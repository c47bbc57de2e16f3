/**
 * Typed failures of operations on MCP servers and models. Everything the MCP SDK, the transports or a model
 * provider throws is turned into one of these in one place (toOperationFailure in domain/mcp), so the API
 * and the worker see the same codes.
 */
export type FailureCode =
  | 'NOT_FOUND'
  | 'VALIDATION_ERROR'
  | 'CONFLICT'
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
  ) {
    super(message);
    this.name = 'OperationFailure';
  }
}
