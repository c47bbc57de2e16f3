import { describe, expect, it } from 'vitest';
import { APICallError, LoadAPIKeyError, RetryError } from 'ai';
import { classifyModelError } from '../../activities/models/failures.js';

const apiError = (statusCode: number | undefined, message = 'provider says no', headers?: Record<string, string>) =>
  new APICallError({
    message,
    url: 'https://api.example/v1/chat/completions?key=secret',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    isRetryable: statusCode === undefined,
  });

describe('classifyModelError', () => {
  it.each([
    [401, false, 'unauthorized', /rejected the API key \(HTTP 401\): provider says no/],
    [403, false, 'unauthorized', /denied access \(HTTP 403\)/],
    [400, false, 'rejected', /rejected the request \(HTTP 400\)/],
    [404, false, 'rejected', /HTTP 404/],
    [408, true, 'unavailable', /HTTP 408/],
    [429, true, 'rate_limited', /rate limit \(HTTP 429\)/],
    [500, true, 'unavailable', /unavailable \(HTTP 500\)/],
    [503, true, 'unavailable', /HTTP 503/],
  ])('HTTP %i -> retryable %s (%s)', (status, retryable, kind, message) => {
    const classified = classifyModelError(apiError(status));
    expect(classified).toMatchObject({ retryable, kind, status });
    expect(classified.message).toMatch(message);
    expect(classified.message).not.toMatch(/secret|api\.example/);
  });

  it('treats an unreachable provider as retryable', () => {
    expect(classifyModelError(apiError(undefined, 'Cannot connect to API: fetch failed'))).toEqual({
      retryable: true,
      kind: 'unavailable',
      message: 'could not reach the model provider: Cannot connect to API: fetch failed',
    });
  });

  it('passes on the retry delay the provider asked for', () => {
    expect(classifyModelError(apiError(429, 'slow down', { 'retry-after-ms': '250' })).retryAfterMs).toBe(250);
    expect(classifyModelError(apiError(503, 'busy', { 'retry-after': '2' })).retryAfterMs).toBe(2000);
  });

  it('classifies a RetryError by its last error and says how many attempts were made', () => {
    const error = new RetryError({
      message: 'Failed after 3 attempts',
      reason: 'maxRetriesExceeded',
      errors: [apiError(503), apiError(503), apiError(503)],
    });
    expect(classifyModelError(error)).toMatchObject({ retryable: true, status: 503, message: expect.stringMatching(/\(after 3 attempts\)$/) });
  });

  it('reads anything thrown after the run was cancelled as a cancellation', () => {
    const controller = new AbortController();
    controller.abort(new Error('activity cancelled'));
    expect(classifyModelError(new Error('activity cancelled'), controller.signal)).toMatchObject({ retryable: false, kind: 'aborted' });
    expect(classifyModelError(new DOMException('This operation was aborted', 'AbortError'))).toMatchObject({ kind: 'aborted' });
    expect(classifyModelError(apiError(500), AbortSignal.abort())).toMatchObject({ kind: 'aborted', retryable: false });
  });

  it('treats a timed-out signal as a retryable timeout', () => {
    const controller = new AbortController();
    controller.abort(new DOMException('timed out', 'TimeoutError'));
    expect(classifyModelError(new Error('x'), controller.signal)).toMatchObject({ retryable: true, kind: 'timeout' });
  });

  it('does not retry configuration errors, retries the unforeseen', () => {
    const missingKey = new LoadAPIKeyError({ message: 'OpenAI API key is missing' });
    expect(classifyModelError(missingKey)).toMatchObject({ retryable: false, kind: 'configuration' });
    expect(classifyModelError(new Error('odd'))).toEqual({ retryable: true, kind: 'unknown', message: 'model call failed: odd' });
  });
});
