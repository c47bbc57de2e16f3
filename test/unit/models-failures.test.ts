import { describe, expect, it } from 'vitest';
import {
  APICallError,
  InvalidArgumentError,
  InvalidPromptError,
  LoadAPIKeyError,
  RetryError,
  UnsupportedFunctionalityError,
} from 'ai';
import { classifyModelError, networkErrorCode, providerRetryDelay } from '../../domain/models/failures.js';

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
    [401, 'unauthorized', /rejected the API key \(HTTP 401\): provider says no/],
    [403, 'unauthorized', /denied access \(HTTP 403\)/],
    [400, 'rejected', /rejected the request \(HTTP 400\)/],
    [404, 'not_found', /does not know the model \(HTTP 404\)/],
    [408, 'unavailable', /HTTP 408/],
    [409, 'unavailable', /HTTP 409/],
    [429, 'rate_limited', /rate limit \(HTTP 429\)/],
    [500, 'unavailable', /unavailable \(HTTP 500\)/],
    [503, 'unavailable', /HTTP 503/],
    [529, 'unavailable', /overloaded \(HTTP 529\)/],
  ])('HTTP %i -> %s', (status, kind, message) => {
    const classified = classifyModelError(apiError(status));
    expect(classified).toMatchObject({ kind, status });
    expect(classified.message).toMatch(message);
    expect(classified.message).not.toMatch(/secret|api\.example/);
  });

  it('tells a host that does not resolve from a provider that is unreachable for now', () => {
    const withCause = (code: string) => {
      const error = apiError(undefined, `Cannot connect to API: getaddrinfo ${code} api.example`);
      Object.defineProperty(error, 'cause', {
        value: new TypeError('fetch failed', { cause: Object.assign(new Error(`getaddrinfo ${code}`), { code }) }),
      });
      return error;
    };
    expect(classifyModelError(withCause('ENOTFOUND'))).toEqual({
      kind: 'host_not_found',
      message: 'could not reach the model provider: Cannot connect to API: getaddrinfo ENOTFOUND api.example',
    });
    expect(classifyModelError(withCause('ECONNREFUSED'))).toMatchObject({ kind: 'unavailable' });
    expect(classifyModelError(apiError(undefined, 'Cannot connect to API: fetch failed'))).toEqual({
      kind: 'unavailable',
      message: 'could not reach the model provider: Cannot connect to API: fetch failed',
    });
  });

  it('passes on the retry delay the provider asked for, in any of its forms', () => {
    const now = Date.UTC(2026, 0, 1);
    const delay = (headers: Record<string, string>) =>
      classifyModelError(apiError(429, 'slow down', headers), undefined, now).retryAfterMs;
    expect(delay({ 'retry-after-ms': '250' })).toBe(250);
    expect(delay({ 'retry-after': '2' })).toBe(2000);
    expect(delay({ 'retry-after': new Date(now + 90_000).toUTCString() })).toBe(90_000);
    expect(delay({ 'retry-after': 'soon' })).toBeUndefined();
    expect(delay({ 'x-ratelimit-reset-requests': '1m30s', 'x-ratelimit-reset-tokens': '250ms' })).toBe(90_000);
    expect(delay({ 'x-ratelimit-reset-tokens': 'later' })).toBeUndefined();
    expect(delay({ 'anthropic-ratelimit-input-tokens-reset': new Date(now + 5_000).toISOString() })).toBe(5_000);
    expect(delay({})).toBeUndefined();
    expect(classifyModelError(apiError(503, 'busy', { 'retry-after': '2' })).retryAfterMs).toBe(2000);
  });

  it('classifies a RetryError by its last error and says how many attempts were made', () => {
    const error = new RetryError({
      message: 'Failed after 3 attempts',
      reason: 'maxRetriesExceeded',
      errors: [apiError(503), apiError(503), apiError(503)],
    });
    expect(classifyModelError(error)).toMatchObject({
      kind: 'unavailable',
      status: 503,
      message: expect.stringMatching(/\(after 3 attempts\)$/),
    });
  });

  it('reads anything thrown after the run was cancelled as a cancellation', () => {
    const controller = new AbortController();
    controller.abort(new Error('activity cancelled'));
    expect(classifyModelError(new Error('activity cancelled'), controller.signal)).toMatchObject({ kind: 'aborted' });
    expect(classifyModelError(new DOMException('This operation was aborted', 'AbortError'))).toMatchObject({
      kind: 'aborted',
    });
    expect(classifyModelError(apiError(500), AbortSignal.abort())).toMatchObject({ kind: 'aborted' });
  });

  it('reads a timed-out signal as a timeout', () => {
    const controller = new AbortController();
    controller.abort(new DOMException('timed out', 'TimeoutError'));
    expect(classifyModelError(new Error('x'), controller.signal)).toMatchObject({ kind: 'timeout' });
  });

  it('tells configuration errors from the unforeseen', () => {
    const missingKey = new LoadAPIKeyError({ message: 'OpenAI API key is missing' });
    expect(classifyModelError(missingKey)).toMatchObject({ kind: 'configuration' });
    expect(classifyModelError(new Error('odd'))).toEqual({ kind: 'unknown', message: 'model call failed: odd' });
  });

  it('reads requests the SDK refused before sending (a bad prompt, a bad argument, an unsupported feature) as rejected', () => {
    const refused = [
      new InvalidPromptError({ prompt: '', message: 'messages must not be empty' }),
      new InvalidArgumentError({ parameter: 'temperature', value: 7, message: 'temperature must be at most 2' }),
      new UnsupportedFunctionalityError({ functionality: 'image parts' }),
    ];
    for (const error of refused)
      expect(classifyModelError(error)).toEqual({ kind: 'rejected', message: error.message });
  });
});

describe('providerRetryDelay', () => {
  const now = Date.UTC(2026, 0, 1);
  it('skips a negative or unreadable retry-after-ms for the next header', () => {
    expect(providerRetryDelay({ 'retry-after-ms': '-5', 'retry-after': '3' }, now)).toBe(3_000);
    expect(providerRetryDelay({ 'retry-after-ms': 'soon', 'retry-after': '3' }, now)).toBe(3_000);
    expect(providerRetryDelay({ 'retry-after-ms': '0' }, now)).toBe(0);
    expect(providerRetryDelay(undefined, now)).toBeUndefined();
  });
  it('reads retry-after in whole or fractional seconds, trimmed, and nothing else as seconds', () => {
    expect(providerRetryDelay({ 'retry-after': ' 3 ' }, now)).toBe(3_000);
    expect(providerRetryDelay({ 'retry-after': '1.25' }, now)).toBe(1_250);
    expect(providerRetryDelay({ 'retry-after': '3x' }, now)).toBeUndefined();
    expect(providerRetryDelay({ 'retry-after': 'x3' }, now)).toBeUndefined();
  });
  it('reads Go-style durations with hours and fractions, and nothing else', () => {
    expect(providerRetryDelay({ 'x-ratelimit-reset-requests': '3.25s' }, now)).toBe(3_250);
    expect(providerRetryDelay({ 'x-ratelimit-reset-requests': '' }, now)).toBeUndefined();
    expect(providerRetryDelay({ 'x-ratelimit-reset-requests': '1h2m3.5s' }, now)).toBe(3_723_500);
    expect(providerRetryDelay({ 'x-ratelimit-reset-requests': ' 20ms ' }, now)).toBe(20);
    expect(providerRetryDelay({ 'x-ratelimit-reset-requests': '5s later' }, now)).toBeUndefined();
    expect(providerRetryDelay({ 'x-ratelimit-reset-requests': 'in 5s' }, now)).toBeUndefined();
  });
  it('reads only the rate-limit reset headers it knows', () => {
    expect(providerRetryDelay({ 'my-x-ratelimit-reset-tokens': '5s' }, now)).toBeUndefined();
    expect(
      providerRetryDelay({ 'anthropic-ratelimit-tokens-remaining': new Date(now + 5_000).toISOString() }, now),
    ).toBeUndefined();
    expect(providerRetryDelay({ 'anthropic-ratelimit-tokens-reset': 'soon' }, now)).toBeUndefined();
    const later = new Date(now + 5_000).toISOString();
    expect(providerRetryDelay({ 'anthropic-ratelimit-tokens-reset-at': later }, now)).toBeUndefined();
    expect(providerRetryDelay({ 'x-anthropic-ratelimit-tokens-reset': later }, now)).toBeUndefined();
    expect(providerRetryDelay({ 'anthropic-ratelimit-tokens-reset': new Date(now - 5_000).toISOString() }, now)).toBe(
      0,
    );
    expect(providerRetryDelay({ 'retry-after': new Date(now - 5_000).toUTCString() }, now)).toBe(0);
  });
});

describe('networkErrorCode', () => {
  it('finds the errno along the causes, and stops on a cycle', () => {
    const system = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(networkErrorCode(new Error('outer', { cause: new TypeError('fetch failed', { cause: system }) }))).toBe(
      'ECONNREFUSED',
    );
    const looped = new Error('a');
    looped.cause = new Error('b', { cause: looped });
    expect(networkErrorCode(looped)).toBeUndefined();
  });
  it('takes only errno-shaped codes', () => {
    expect(networkErrorCode(Object.assign(new Error('x'), { code: 'CONNECTION_ENDED' }))).toBeUndefined();
    expect(networkErrorCode(Object.assign(new Error('x'), { code: 'ERR_1' }))).toBeUndefined();
    expect(networkErrorCode(Object.assign(new Error('x'), { code: 'xENOTFOUND' }))).toBeUndefined();
    expect(networkErrorCode(Object.assign(new Error('x'), { code: 42 }))).toBeUndefined();
    expect(networkErrorCode('ENOTFOUND')).toBeUndefined();
  });
});

describe('provider messages', () => {
  it('are cut at 500 characters', () => {
    const classified = classifyModelError(new Error('y'.repeat(600)));
    expect(classified.message).toBe(`model call failed: ${'y'.repeat(500)}…`);
    expect(classifyModelError(new Error('y'.repeat(500))).message).toBe(`model call failed: ${'y'.repeat(500)}`);
  });
  it('read a thrown non-error as text', () => {
    expect(classifyModelError('socket hang up')).toEqual({
      kind: 'unknown',
      message: 'model call failed: socket hang up',
    });
    expect(classifyModelError({ name: 'AbortError' })).toEqual({ kind: 'aborted', message: 'model call aborted' });
    expect(classifyModelError({ name: 'TimeoutError' })).toEqual({ kind: 'timeout', message: 'model call timed out' });
    expect(classifyModelError(null)).toEqual({ kind: 'unknown', message: 'model call failed: null' });
  });
  it('say what was cancelled or timed out', () => {
    const cancelled = new AbortController();
    cancelled.abort(new Error('activity cancelled'));
    expect(classifyModelError(new Error('x'), cancelled.signal)).toEqual({
      kind: 'aborted',
      message: 'aborted: the run was cancelled',
    });
    const timedOut = new AbortController();
    timedOut.abort(new DOMException('timed out', 'TimeoutError'));
    expect(classifyModelError(new Error('x'), timedOut.signal)).toEqual({
      kind: 'timeout',
      message: 'model call timed out',
    });
    expect(classifyModelError(new DOMException('This operation was aborted', 'AbortError'))).toEqual({
      kind: 'aborted',
      message: 'model call aborted',
    });
    expect(classifyModelError(new RetryError({ message: 'aborted', reason: 'abort', errors: [] }))).toEqual({
      kind: 'aborted',
      message: 'model call aborted',
    });
  });
  it('carry no retry delay when the provider gave none', () => {
    expect(classifyModelError(apiError(500))).not.toHaveProperty('retryAfterMs');
  });
});
