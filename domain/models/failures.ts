/**
 * Model and provider errors, classified in one place: what kind of failure it was, the provider's own words, its
 * HTTP status and when it asked to be called again, and the reason each kind is recorded with (MODEL_FAILURES).
 * Whether to retry is not decided here but by the retry policy (activities/retryPolicy.ts), from the kind.
 */
import {
  AISDKError,
  APICallError,
  InvalidArgumentError,
  InvalidPromptError,
  LoadAPIKeyError,
  NoSuchModelError,
  RetryError,
  UnsupportedFunctionalityError,
} from 'ai';
import { parseRetryAfter } from '../retryAfter.js';

export type ModelErrorKind =
  | 'aborted'
  | 'timeout'
  | 'rate_limited'
  | 'unavailable'
  /** the provider's host name does not resolve (DNS: no such host) */
  | 'host_not_found'
  | 'unauthorized'
  /** HTTP 404: the provider does not know the model (or the endpoint) */
  | 'not_found'
  | 'rejected'
  | 'configuration'
  | 'unknown';

export interface ModelErrorClassification {
  kind: ModelErrorKind;
  /** For the iteration's `error` and the trace: the provider's own words, never a key or a URL. */
  message: string;
  /** HTTP status of the provider's answer, when there was one. */
  status?: number;
  /** How long the provider asked us to wait (retry-after-ms, retry-after, rate-limit reset headers). */
  retryAfterMs?: number;
}

/** Why a model call failed: an iteration's `error_details.reason`, and case generation's `details.reason`. */
export type ModelFailureReason =
  | 'PROVIDER_HOST_NOT_FOUND'
  | 'PROVIDER_AUTH_FAILED'
  | 'MODEL_NOT_FOUND'
  | 'PROVIDER_REJECTED_REQUEST'
  | 'MODEL_CONFIGURATION'
  | 'PROVIDER_RATE_LIMITED'
  | 'PROVIDER_UNAVAILABLE'
  | 'MODEL_TIMEOUT'
  | 'MODEL_ERROR';

/**
 * The one table of model failures: each kind's reason, and whether it may pass (`transient`: an outage, a limit, a
 * timeout, a malformed answer) or will answer the same however often it is asked. The retry policy retries the
 * transient ones (activities/retryPolicy.ts); case generation tells its caller (`details.retryable`).
 */
export const MODEL_FAILURES: Readonly<
  Record<Exclude<ModelErrorKind, 'aborted'>, { reason: ModelFailureReason; transient: boolean }>
> = {
  host_not_found: { reason: 'PROVIDER_HOST_NOT_FOUND', transient: false },
  unauthorized: { reason: 'PROVIDER_AUTH_FAILED', transient: false },
  not_found: { reason: 'MODEL_NOT_FOUND', transient: false },
  rejected: { reason: 'PROVIDER_REJECTED_REQUEST', transient: false },
  configuration: { reason: 'MODEL_CONFIGURATION', transient: false },
  rate_limited: { reason: 'PROVIDER_RATE_LIMITED', transient: true },
  unavailable: { reason: 'PROVIDER_UNAVAILABLE', transient: true },
  timeout: { reason: 'MODEL_TIMEOUT', transient: true },
  // a malformed or empty answer, or anything unforeseen from the provider: worth a few attempts
  unknown: { reason: 'MODEL_ERROR', transient: true },
};

const MAX_PROVIDER_MESSAGE = 500;

/**
 * `signal` is the run's cancellation signal: once it fired, whatever the fetch threw (an AbortError, or the
 * signal's own reason, e.g. Temporal's cancellation) is a cancellation. `now` reads HTTP-date Retry-After headers.
 */
export function classifyModelError(error: unknown, signal?: AbortSignal, now = Date.now()): ModelErrorClassification {
  if (signal?.aborted) {
    return errorName(signal.reason) === 'TimeoutError'
      ? { kind: 'timeout', message: 'model call timed out' }
      : { kind: 'aborted', message: 'aborted: the run was cancelled' };
  }
  if (RetryError.isInstance(error)) {
    if (error.reason === 'abort') return { kind: 'aborted', message: 'model call aborted' };
    const last = classifyModelError(error.lastError, undefined, now);
    return { ...last, message: `${last.message} (after ${error.errors.length} attempts)` };
  }
  if (APICallError.isInstance(error)) return classifyApiCallError(error, now);
  const name = errorName(error);
  if (name === 'AbortError') return { kind: 'aborted', message: 'model call aborted' };
  if (name === 'TimeoutError') return { kind: 'timeout', message: 'model call timed out' };
  if (LoadAPIKeyError.isInstance(error) || NoSuchModelError.isInstance(error)) {
    return { kind: 'configuration', message: providerMessage(error) };
  }
  if (
    InvalidPromptError.isInstance(error) ||
    InvalidArgumentError.isInstance(error) ||
    UnsupportedFunctionalityError.isInstance(error)
  ) {
    return { kind: 'rejected', message: providerMessage(error) };
  }
  // Malformed or empty provider answers and anything unforeseen.
  return { kind: 'unknown', message: `model call failed: ${providerMessage(error)}` };
}

/** Whether an error is one of the AI SDK's own (a provider call, its retries, its argument checks). */
export function isModelError(error: unknown): boolean {
  return AISDKError.isInstance(error);
}

function classifyApiCallError(error: APICallError, now: number): ModelErrorClassification {
  const status = error.statusCode;
  const said = providerMessage(error);
  if (status === undefined) {
    // No answer at all: DNS, connection refused or reset.
    const kind = networkErrorCode(error) === 'ENOTFOUND' ? 'host_not_found' : 'unavailable';
    return { kind, message: `could not reach the model provider: ${said}` };
  }
  const answer = (kind: ModelErrorKind, what: string): ModelErrorClassification => {
    const retryAfterMs = providerRetryDelay(error.responseHeaders, now);
    const message = `model provider ${what} (HTTP ${status}): ${said}`;
    return { kind, message, status, ...(retryAfterMs !== undefined && { retryAfterMs }) };
  };
  if (status === 401) return answer('unauthorized', 'rejected the API key');
  if (status === 403) return answer('unauthorized', 'denied access');
  if (status === 404) return answer('not_found', 'does not know the model');
  if (status === 429) return answer('rate_limited', 'rate limit');
  // Anthropic's "overloaded"; like a 503.
  if (status === 529) return answer('unavailable', 'overloaded');
  // The statuses the AI SDK itself retries: timeout, conflict, server errors.
  if (status === 408 || status === 409 || status >= 500) return answer('unavailable', 'unavailable');
  return answer('rejected', 'rejected the request');
}

/**
 * The errno of a failed connection (ENOTFOUND, ECONNREFUSED, ...), found along the error's causes: fetch throws
 * TypeError("fetch failed") with the system error as its cause, and the AI SDK wraps that once more.
 */
export function networkErrorCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const code = (current as NodeJS.ErrnoException).code;
    // Stryker disable next-line ConditionalExpression: errors carry a string code or none (or a number, in errno): RegExp.test reads undefined as "undefined" and a number as digits, neither of which matches
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  }
  return undefined;
}

/**
 * How long a provider asked to wait, in ms: `retry-after-ms` (OpenAI), `retry-after` in seconds or as an HTTP date
 * (RFC 9110), else the latest of the rate-limit reset headers (OpenAI's `x-ratelimit-reset-*` durations such as
 * `1s` or `6m0s`, Anthropic's `anthropic-ratelimit-*-reset` timestamps): waiting for the last one to reset is
 * what makes the next call likely to pass.
 */
export function providerRetryDelay(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers['retry-after-ms'] ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const retryAfter = parseRetryAfter(headers['retry-after'], now);
  if (retryAfter !== undefined) return retryAfter;
  const resets: number[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (/^x-ratelimit-reset-/.test(name)) {
      const duration = parseDuration(value);
      if (duration !== undefined) resets.push(duration);
    } else if (/^anthropic-ratelimit-.*reset$/.test(name)) {
      const at = Date.parse(value);
      if (Number.isFinite(at)) resets.push(Math.max(0, at - now));
    }
  }
  return resets.length > 0 ? Math.max(...resets) : undefined;
}

/** `1h2m3.5s`, `6m0s`, `20ms`: Go-style durations, as OpenAI's reset headers give them. */
function parseDuration(value: string): number | undefined {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  // Stryker disable next-line MethodExpression: whitespace never lies inside a match, and the whole-value check below trims
  const parts = [...value.trim().matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value.trim()) return undefined;
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * units[unit!]!, 0);
}

function providerMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE)}…` : text;
}

function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : undefined;
}
