/**
 * Model and provider errors, classified in one place so the iteration activity can tell Temporal whether retrying
 * can help: rate limits, 5xx, timeouts and network trouble can; a bad key, a refused request or a cancelled run
 * cannot.
 */
import {
  APICallError,
  InvalidArgumentError,
  InvalidPromptError,
  LoadAPIKeyError,
  NoSuchModelError,
  RetryError,
  UnsupportedFunctionalityError,
} from 'ai';

export type ModelErrorKind =
  | 'aborted'
  | 'timeout'
  | 'rate_limited'
  | 'unavailable'
  | 'unauthorized'
  | 'rejected'
  | 'configuration'
  | 'unknown';

export interface ModelErrorClassification {
  retryable: boolean;
  kind: ModelErrorKind;
  /** For the iteration's `error` and the trace: the provider's own words, never a key or a URL. */
  message: string;
  /** HTTP status of the provider's answer, when there was one. */
  status?: number;
  /** What the provider asked for (retry-after-ms / retry-after), for the activity's next retry delay. */
  retryAfterMs?: number;
}

const MAX_PROVIDER_MESSAGE = 500;

/**
 * `signal` is the run's cancellation signal: once it fired, whatever the fetch threw (an AbortError, or the
 * signal's own reason, e.g. Temporal's cancellation) is a cancellation.
 */
export function classifyModelError(error: unknown, signal?: AbortSignal): ModelErrorClassification {
  if (signal?.aborted) {
    return errorName(signal.reason) === 'TimeoutError'
      ? { retryable: true, kind: 'timeout', message: 'model call timed out' }
      : { retryable: false, kind: 'aborted', message: 'aborted: the run was cancelled' };
  }
  if (RetryError.isInstance(error)) {
    if (error.reason === 'abort') return { retryable: false, kind: 'aborted', message: 'model call aborted' };
    const last = classifyModelError(error.lastError);
    return { ...last, message: `${last.message} (after ${error.errors.length} attempts)` };
  }
  if (APICallError.isInstance(error)) return classifyApiCallError(error);
  const name = errorName(error);
  if (name === 'AbortError') return { retryable: false, kind: 'aborted', message: 'model call aborted' };
  if (name === 'TimeoutError') return { retryable: true, kind: 'timeout', message: 'model call timed out' };
  if (LoadAPIKeyError.isInstance(error) || NoSuchModelError.isInstance(error)) {
    return { retryable: false, kind: 'configuration', message: providerMessage(error) };
  }
  if (
    InvalidPromptError.isInstance(error) ||
    InvalidArgumentError.isInstance(error) ||
    UnsupportedFunctionalityError.isInstance(error)
  ) {
    return { retryable: false, kind: 'rejected', message: providerMessage(error) };
  }
  // Malformed or empty provider answers and anything unforeseen: worth another try, Temporal bounds the attempts.
  return { retryable: true, kind: 'unknown', message: `model call failed: ${providerMessage(error)}` };
}

function classifyApiCallError(error: APICallError): ModelErrorClassification {
  const status = error.statusCode;
  const said = providerMessage(error);
  if (status === undefined) {
    // No answer at all: connection refused, reset, DNS. The SDK marks these retryable.
    return { retryable: error.isRetryable, kind: 'unavailable', message: `could not reach the model provider: ${said}` };
  }
  const answer = (retryable: boolean, kind: ModelErrorKind, what: string): ModelErrorClassification => {
    const retryAfterMs = retryAfter(error.responseHeaders);
    const message = `model provider ${what} (HTTP ${status}): ${said}`;
    return { retryable, kind, message, status, ...(retryAfterMs !== undefined && { retryAfterMs }) };
  };
  if (status === 401) return answer(false, 'unauthorized', 'rejected the API key');
  if (status === 403) return answer(false, 'unauthorized', 'denied access');
  if (status === 429) return answer(true, 'rate_limited', 'rate limit');
  // The statuses the AI SDK itself retries: timeout, conflict, server errors.
  if (status === 408 || status === 409 || status >= 500) return answer(true, 'unavailable', 'unavailable');
  return answer(false, 'rejected', 'rejected the request');
}

function retryAfter(headers: Record<string, string> | undefined): number | undefined {
  const ms = Number(headers?.['retry-after-ms'] ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  // retry-after may also be an HTTP date; only the seconds form is worth passing on.
  const seconds = Number(headers?.['retry-after'] ?? NaN);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  return undefined;
}

function providerMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE)}…` : text;
}

function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : undefined;
}
