import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { z } from 'zod';
import { OperationFailure } from '../domain/failures.js';
import type { Logger } from '../runtime/logger.js';
import { unknownFields } from './unknownFields.js';

/** Stable error codes of the contract; the HTTP status always follows from the code. */
export const errorStatus = {
  UNAUTHORIZED: 401,
  OAUTH_REQUIRED: 401,
  FORBIDDEN: 403,
  VALIDATION_ERROR: 400,
  NOT_FOUND: 404,
  /** a path the API serves, asked with another method (the Allow header names the ones it serves) */
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  FEATURE_NOT_SUPPORTED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVER_UNREACHABLE: 502,
  TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export const errorEnvelopeSchema = z
  .object({
    code: z.string().meta({ description: 'one of the stable error codes' }),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'Error' });

export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export const notFound = (what: string, details?: Record<string, unknown>) =>
  new ApiError('NOT_FOUND', `${what} not found`, details);

export const validationError = (message: string, details?: Record<string, unknown>) =>
  new ApiError('VALIDATION_ERROR', message, details);

/**
 * Turns zod issues into one readable message plus a machine-readable list. An unknown field comes first, with
 * details.reason UNKNOWN_FIELD and a hint from `schema` (the strict-body rule, unknownFields.ts): the other issues
 * are often its consequence (`expectedToolcalls` sent, `expectedToolCalls` missing).
 */
export function fromZodError(error: z.ZodError, where: 'body' | 'query' | 'path', schema?: z.ZodType): ApiError {
  const unknown = schema ? unknownFields(error, schema, [where]) : [];
  if (unknown.length > 0) {
    const more = unknown.length - 1;
    const message =
      more > 0
        ? `${unknown[0].message} (and ${more} more unknown field${more > 1 ? 's' : ''}: see details.issues)`
        : unknown[0].message;
    return validationError(message, { reason: 'UNKNOWN_FIELD', issues: unknown });
  }
  const issues = error.issues
    .slice(0, 20)
    .map((i) => ({ path: [where, ...i.path.map(String)].join('.'), message: i.message }));
  const first = issues[0];
  return validationError(first ? `${first.path}: ${first.message}` : `invalid ${where}`, { issues });
}

/** Maps whatever was thrown to the envelope. Express body-parser, zod and typed operation failures are known. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof OperationFailure) {
    const headers =
      error.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(error.retryAfterSeconds) };
    return new ApiError(error.code, error.message, error.details, headers);
  }
  if (error instanceof z.ZodError) return fromZodError(error, 'body');
  const e = error as { type?: string; status?: number; limit?: number } | null;
  if (e?.type === 'entity.too.large') {
    return validationError(`request body exceeds the limit of ${e.limit} bytes`, {
      reason: 'BODY_TOO_LARGE',
      limit: e.limit,
    });
  }
  if (e?.type === 'entity.parse.failed' || e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return validationError('request body is not valid JSON');
  }
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return validationError('malformed request');
  return new ApiError('INTERNAL_ERROR', 'internal error');
}

/** The contract's error envelope of `error`: what a reply's body holds (and an events stream's `error` event). */
export function toEnvelope(error: ApiError, extra?: Record<string, unknown>): ErrorEnvelope & Record<string, unknown> {
  const body: ErrorEnvelope & Record<string, unknown> = { code: error.code, message: error.message, ...extra };
  if (error.details) body.details = error.details;
  return body;
}

export function sendError(res: Parameters<RequestHandler>[1], error: ApiError, extra?: Record<string, unknown>): void {
  if (error.headers) res.set(error.headers);
  res.status(error.status).json(toEnvelope(error, extra));
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500 && apiError.code === 'INTERNAL_ERROR') {
      log.error({ err: error, requestId: res.locals.requestId, route: req.path }, 'request failed');
    }
    if (res.headersSent) return void res.end();
    // The /sdk/v1 alias's clients read only an `error` string.
    sendError(res, apiError, res.locals.errorAsString ? { error: apiError.message } : undefined);
  };
}

export const unknownRoute: RequestHandler = (req) => {
  throw new ApiError('NOT_FOUND', `no route for ${req.method} ${req.path}`);
};

/**
 * Requests Node's HTTP parser refuses before Express sees them (a request line and headers past its 16 KB limit,
 * bytes that are not HTTP) get the envelope too, instead of Node's bare status line. Attach to every API server.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node's own handler: never write into a response already under way.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy();
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
      return void socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      code: 'VALIDATION_ERROR',
      message: tooLarge
        ? 'the request line and headers exceed 16 KB; shorten the URL (pass long values in a body)'
        : 'malformed HTTP request',
      details: { reason: tooLarge ? 'REQUEST_HEADERS_TOO_LARGE' : 'MALFORMED_HTTP_REQUEST' },
    });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
