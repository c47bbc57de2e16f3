import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import {
  APICallError,
  InvalidArgumentError,
  InvalidPromptError,
  LoadAPIKeyError,
  NoSuchModelError,
  RetryError,
} from 'ai';
import { describe, expect, it } from 'vitest';
import { OperationFailure } from '../../domain/failures.js';
import { refusedCredentials } from '../../domain/mcp/failures.js';
import { AgentRunFailure, type AgentRecord } from '../../domain/models/agentLoop.js';
import { classifyModelError } from '../../domain/models/failures.js';
import {
  activityFailure,
  asActivity,
  decideRetry,
  MAX_RETRY_DELAY_MS,
  retryFailure,
  type FailureContext,
} from '../../activities/retryPolicy.js';
import { RunNotFound, TooManyIterations } from '../../domain/evals/runFailures.js';
import { UnscriptedQuestion } from '../../domain/evals/iterationQuestions.js';

const NOW = Date.UTC(2026, 5, 19, 12, 0, 0);
const first: FailureContext = { attempt: 1, lastAttempt: 5, now: NOW };
const last: FailureContext = { attempt: 5, lastAttempt: 5, now: NOW };

/** What the AI SDK throws when fetch could not connect (handleFetchError), with the system error as the cause. */
function connectError(code: string, retryable = true) {
  const system = Object.assign(new Error(`getaddrinfo ${code} api.provider.test`), { code });
  const fetchFailed = new TypeError('fetch failed', { cause: system });
  return new APICallError({
    message: `Cannot connect to API: ${system.message}`,
    url: 'https://api.provider.test/v1',
    requestBodyValues: {},
    cause: fetchFailed,
    isRetryable: retryable,
  });
}

function answer(statusCode: number, headers?: Record<string, string>, message = 'provider says no') {
  return new APICallError({
    message,
    url: 'https://api.provider.test/v1?key=secret',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    isRetryable: statusCode >= 429,
  });
}

const emptyRecord: AgentRecord = {
  messages: [],
  toolCalls: [],
  steps: [],
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  text: '',
  finishReason: 'error',
  stepLimitReached: false,
  durationMs: 0,
  spans: [],
};
/** As the agent loop throws it: the classification of what the provider said, with the record so far. */
const agentFailure = (error: unknown, signal?: AbortSignal) =>
  new AgentRunFailure(classifyModelError(error, signal, NOW), emptyRecord, { cause: error });

const server = { id: 'srv_1', name: 'docs', url: 'https://mcp.example/mcp' };

describe('decideRetry: model providers', () => {
  it('fails a host that does not resolve at once (DNS ENOTFOUND), whatever the attempt', () => {
    for (const error of [connectError('ENOTFOUND', false), agentFailure(connectError('ENOTFOUND', false))]) {
      const decision = decideRetry(error, first);
      expect(decision).toEqual({
        action: 'fail',
        message: expect.stringMatching(/could not reach the model provider: .*ENOTFOUND api\.provider\.test/),
        details: { reason: 'PROVIDER_HOST_NOT_FOUND', attempt: 1 },
      });
    }
  });

  it('retries a refused or reset connection now, and records it as failed at the attempt cap', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EAI_AGAIN']) {
      expect(decideRetry(agentFailure(connectError(code)), first)).toEqual({
        action: 'retry',
        reason: 'PROVIDER_UNAVAILABLE',
        message: expect.stringContaining(code),
      });
    }
    expect(decideRetry(agentFailure(connectError('ECONNREFUSED')), last)).toEqual({
      action: 'fail',
      message: expect.stringMatching(/ECONNREFUSED.*\(still failing after 5 attempts\)$/),
      details: { reason: 'PROVIDER_UNAVAILABLE', attempt: 5 },
    });
  });

  it.each([
    [401, 'PROVIDER_AUTH_FAILED', /rejected the API key \(HTTP 401\)/],
    [403, 'PROVIDER_AUTH_FAILED', /denied access \(HTTP 403\)/],
    [404, 'MODEL_NOT_FOUND', /does not know the model \(HTTP 404\)/],
    [400, 'PROVIDER_REJECTED_REQUEST', /rejected the request \(HTTP 400\)/],
    [422, 'PROVIDER_REJECTED_REQUEST', /HTTP 422/],
  ])('fails HTTP %i at once with %s', (status, reason, message) => {
    const decision = decideRetry(agentFailure(answer(status)), first);
    expect(decision).toEqual({
      action: 'fail',
      message: expect.stringMatching(message),
      details: { reason, status, attempt: 1 },
    });
    if (decision.action === 'fail') expect(decision.message).not.toMatch(/secret|api\.provider/);
  });

  it('records no status where there was none', () => {
    const transient = decideRetry(agentFailure(connectError('ECONNREFUSED')), last);
    const final = decideRetry(agentFailure(connectError('ENOTFOUND', false)), first);
    const server = decideRetry(new OperationFailure('TIMEOUT', 'slow', { phase: 'request' }), last);
    for (const decision of [transient, final, server]) {
      expect(decision.action).toBe('fail');
      if (decision.action === 'fail') expect(decision.details).not.toHaveProperty('status');
    }
  });

  it("fails an unknown model and a missing key at once (the SDK's own configuration errors)", () => {
    expect(decideRetry(new NoSuchModelError({ modelId: 'gpt-nope', modelType: 'languageModel' }), first)).toMatchObject(
      { action: 'fail', details: { reason: 'MODEL_CONFIGURATION' } },
    );
    expect(decideRetry(new LoadAPIKeyError({ message: 'key missing' }), first)).toMatchObject({
      action: 'fail',
      details: { reason: 'MODEL_CONFIGURATION' },
    });
  });

  it('fails a prompt or an argument the SDK refuses at once: the same request would be refused again', () => {
    const prompt = new InvalidPromptError({ prompt: '', message: 'messages must not be empty' });
    const argument = new InvalidArgumentError({
      parameter: 'temperature',
      value: 7,
      message: 'temperature must be at most 2',
    });
    for (const error of [prompt, argument, agentFailure(prompt), agentFailure(argument)]) {
      expect(decideRetry(error, first)).toEqual({
        action: 'fail',
        message: expect.any(String),
        details: { reason: 'PROVIDER_REJECTED_REQUEST', attempt: 1 },
      });
    }
  });

  it('retries a conflict (HTTP 409) like the AI SDK does, and records it as failed at the cap', () => {
    expect(decideRetry(answer(409), first)).toEqual({
      action: 'retry',
      reason: 'PROVIDER_UNAVAILABLE',
      message: expect.stringContaining('HTTP 409'),
    });
    expect(decideRetry(answer(409), last)).toMatchObject({
      action: 'fail',
      details: { reason: 'PROVIDER_UNAVAILABLE', status: 409, attempt: 5 },
    });
  });

  it.each([408, 409, 500, 502, 503])('retries HTTP %i now', (status) => {
    expect(decideRetry(agentFailure(answer(status)), first)).toEqual({
      action: 'retry',
      reason: 'PROVIDER_UNAVAILABLE',
      message: expect.stringContaining(`HTTP ${status}`),
    });
  });

  it('retries a 429 after the Retry-After the provider gave, in seconds or as an HTTP date', () => {
    expect(decideRetry(agentFailure(answer(429, { 'retry-after': '7' })), first)).toMatchObject({
      action: 'retry',
      reason: 'PROVIDER_RATE_LIMITED',
      delayMs: 7_000,
    });
    const date = new Date(NOW + 42_000).toUTCString();
    expect(decideRetry(agentFailure(answer(429, { 'retry-after': date })), first)).toMatchObject({
      action: 'retry',
      delayMs: 42_000,
    });
    // a raw AI SDK error (not through the agent loop) is classified the same way, at the context's clock
    expect(decideRetry(answer(429, { 'retry-after': date }), first)).toMatchObject({
      action: 'retry',
      delayMs: 42_000,
    });
    expect(decideRetry(agentFailure(answer(429, { 'retry-after-ms': '250' })), first)).toMatchObject({
      action: 'retry',
      delayMs: 250,
    });
    // a date in the past: retry now
    expect(
      decideRetry(agentFailure(answer(429, { 'retry-after': new Date(NOW - 5_000).toUTCString() })), first),
    ).toMatchObject({ action: 'retry', delayMs: 0 });
  });

  it('reads the rate-limit reset headers when there is no Retry-After, waiting for the last one', () => {
    expect(
      decideRetry(
        agentFailure(answer(429, { 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' })),
        first,
      ),
    ).toMatchObject({ delayMs: 360_000 });
    expect(decideRetry(agentFailure(answer(429, { 'x-ratelimit-reset-tokens': '20ms' })), first)).toMatchObject({
      delayMs: 20,
    });
    const reset = new Date(NOW + 30_000).toISOString();
    expect(decideRetry(agentFailure(answer(429, { 'anthropic-ratelimit-tokens-reset': reset })), first)).toMatchObject({
      delayMs: 30_000,
    });
  });

  it('rounds a fractional delay to whole milliseconds', () => {
    expect(decideRetry(agentFailure(answer(429, { 'retry-after-ms': '250.4' })), first)).toMatchObject({
      action: 'retry',
      delayMs: 250,
    });
    expect(decideRetry(agentFailure(answer(429, { 'retry-after': '1.5' })), first)).toMatchObject({
      action: 'retry',
      delayMs: 1_500,
    });
  });

  it("retries a 429 without any delay header now (Temporal's backoff)", () => {
    const decision = decideRetry(agentFailure(answer(429)), first);
    expect(decision).toEqual({
      action: 'retry',
      reason: 'PROVIDER_RATE_LIMITED',
      message: expect.stringMatching(/rate limit \(HTTP 429\)/),
    });
  });

  it('retries a 529 (overloaded) after its Retry-After; caps a delay that is too long', () => {
    expect(decideRetry(agentFailure(answer(529, { 'retry-after': '12' }, 'Overloaded')), first)).toMatchObject({
      action: 'retry',
      reason: 'PROVIDER_UNAVAILABLE',
      delayMs: 12_000,
    });
    expect(decideRetry(agentFailure(answer(529, { 'retry-after': '86400' })), first)).toMatchObject({
      action: 'retry',
      delayMs: MAX_RETRY_DELAY_MS,
    });
  });

  it('retries a rate limit with a reset past the attempt cap: waiting is not a failed attempt', () => {
    for (const failure of [answer(429, { 'retry-after': '7' }), answer(529, { 'retry-after-ms': '7000' })]) {
      expect(decideRetry(agentFailure(failure), last)).toMatchObject({
        action: 'retry',
        delayMs: 7_000,
        rateLimited: true,
      });
    }
    // a 503's Retry-After is a transient failure's delay: it counts
    expect(decideRetry(agentFailure(answer(503, { 'retry-after': '7' })), first)).not.toHaveProperty('rateLimited');
  });

  it('retries an unavailable provider (503) after its Retry-After, capped, as one of the attempts', () => {
    expect(decideRetry(agentFailure(answer(503, { 'retry-after': '7' })), first)).toEqual({
      action: 'retry',
      reason: 'PROVIDER_UNAVAILABLE',
      message: 'model provider unavailable (HTTP 503): provider says no',
      delayMs: 7_000,
    });
    expect(decideRetry(agentFailure(answer(503, { 'retry-after': '86400' })), first)).toMatchObject({
      action: 'retry',
      delayMs: MAX_RETRY_DELAY_MS,
    });
    expect(decideRetry(agentFailure(answer(503, { 'retry-after': '7' })), last)).toMatchObject({ action: 'fail' });
  });

  it('records a rate limit without a reset that outlasts the attempts as failed, with the reason and the status', () => {
    expect(decideRetry(agentFailure(answer(429)), last)).toEqual({
      action: 'fail',
      message: expect.stringMatching(/\(still failing after 5 attempts\)$/),
      details: { reason: 'PROVIDER_RATE_LIMITED', status: 429, attempt: 5 },
    });
  });

  it('classifies a RetryError (the SDK gave up) by its last error', () => {
    const gaveUp = new RetryError({
      message: 'Failed after 3 attempts',
      reason: 'maxRetriesExceeded',
      errors: [answer(503), answer(503), answer(429, { 'retry-after': '3' })],
    });
    expect(decideRetry(agentFailure(gaveUp), first)).toMatchObject({
      action: 'retry',
      reason: 'PROVIDER_RATE_LIMITED',
      delayMs: 3_000,
      message: expect.stringMatching(/after 3 attempts/),
    });
  });

  it('retries model timeouts and unforeseen answers, up to the cap', () => {
    const timedOut = new AbortController();
    timedOut.abort(new DOMException('timed out', 'TimeoutError'));
    expect(decideRetry(agentFailure(new Error('x'), timedOut.signal), first)).toMatchObject({
      action: 'retry',
      reason: 'MODEL_TIMEOUT',
    });
    expect(decideRetry(agentFailure(new Error('malformed answer')), first)).toMatchObject({
      action: 'retry',
      reason: 'MODEL_ERROR',
    });
    expect(decideRetry(agentFailure(new Error('malformed answer')), last)).toMatchObject({
      action: 'fail',
      details: { reason: 'MODEL_ERROR', attempt: 5 },
    });
  });
});

describe('decideRetry: cancellation', () => {
  it('lets a cancellation through, whatever was thrown', () => {
    const cancelled = new AbortController();
    cancelled.abort(new CancelledFailure('activity cancelled'));
    expect(
      decideRetry(agentFailure(new Error('activity cancelled'), cancelled.signal), {
        ...first,
        signal: cancelled.signal,
      }),
    ).toEqual({ action: 'cancel' });
    expect(decideRetry(answer(500), { ...last, signal: cancelled.signal })).toEqual({ action: 'cancel' });
    expect(decideRetry(new CancelledFailure('cancelled'), first)).toEqual({ action: 'cancel' });
    expect(decideRetry(agentFailure(new DOMException('This operation was aborted', 'AbortError')), first)).toEqual({
      action: 'cancel',
    });
    expect(decideRetry(new RetryError({ message: 'aborted', reason: 'abort', errors: [] }), first)).toEqual({
      action: 'cancel',
    });
  });
});

describe('decideRetry: MCP servers', () => {
  it('fails a server that answered with an error (retryable: false) at once', () => {
    const failure = new OperationFailure(
      'SERVER_UNREACHABLE',
      "server 'docs' answered with an error: index unavailable (-32603)",
      { reason: 'SERVER_ERROR', phase: 'request', retryable: false },
    );
    expect(decideRetry(failure, first)).toEqual({
      action: 'fail',
      message: failure.message,
      details: { reason: 'SERVER_ERROR', code: 'SERVER_UNREACHABLE', attempt: 1 },
    });
  });

  it('fails refused credentials at once, with the status', () => {
    const failure = refusedCredentials(server, 'connect', 401, 'Missing bearer token');
    expect(decideRetry(failure, first)).toMatchObject({
      action: 'fail',
      details: { reason: 'SERVER_REFUSED_CREDENTIALS', code: 'SERVER_UNREACHABLE', status: 401, attempt: 1 },
    });
  });

  it('retries a timeout and an outage, and records them as failed at the cap', () => {
    const timeout = new OperationFailure('TIMEOUT', "server 'docs' did not answer in time (request)", {
      phase: 'request',
      elapsedMs: 30_000,
    });
    expect(decideRetry(timeout, first)).toEqual({ action: 'retry', reason: 'TIMEOUT', message: timeout.message });
    expect(decideRetry(timeout, last)).toMatchObject({
      action: 'fail',
      details: { reason: 'TIMEOUT', code: 'TIMEOUT', attempt: 5 },
    });
    const refused = new OperationFailure('SERVER_UNREACHABLE', "server 'docs': fetch failed (ECONNREFUSED)", {
      reason: 'NETWORK_ERROR',
      errno: 'ECONNREFUSED',
    });
    expect(decideRetry(refused, first)).toMatchObject({ action: 'retry', reason: 'NETWORK_ERROR' });
  });

  it('fails a server whose host does not resolve at once', () => {
    const dns = new OperationFailure('SERVER_UNREACHABLE', "server 'docs': fetch failed (ENOTFOUND)", {
      reason: 'NETWORK_ERROR',
      errno: 'ENOTFOUND',
    });
    expect(decideRetry(dns, first)).toMatchObject({ action: 'fail', details: { reason: 'NETWORK_ERROR', attempt: 1 } });
  });

  it.each([
    ['OAUTH_REQUIRED', { oauthRequired: true }, 'OAUTH_REQUIRED'],
    ['FEATURE_NOT_SUPPORTED', { reason: 'CAPABILITY_MISSING' }, 'CAPABILITY_MISSING'],
    ['VALIDATION_ERROR', { reason: 'MODEL_KEY_MISSING', provider: 'openai' }, 'MODEL_KEY_MISSING'],
    ['INTERNAL_ERROR', undefined, 'INTERNAL_ERROR'],
  ] as const)('fails %s at once', (code, details, reason) => {
    expect(decideRetry(new OperationFailure(code, 'no', details), first)).toMatchObject({
      action: 'fail',
      details: { reason, code, attempt: 1 },
    });
  });
});

describe('decideRetry: eval scripts', () => {
  it("fails a question the case's script has no answer for at once, naming it and its tool", () => {
    const named = new UnscriptedQuestion({ name: 'day', toolName: 'ask_twice', message: 'Which day?' }, "the case's");
    expect(decideRetry(named, first)).toEqual({
      action: 'fail',
      message: named.message,
      details: { reason: 'UNSCRIPTED_QUESTION', question: 'day', toolName: 'ask_twice', attempt: 1 },
    });
    const unnamed = new UnscriptedQuestion({ toolName: 'order_coffee', message: 'How?' }, "turn 2's");
    expect(unnamed.message).toBe(
      `tool "order_coffee" asked "How?" and turn 2's elicitation script has no answer for it`,
    );
    expect(decideRetry(unnamed, first)).toMatchObject({
      action: 'fail',
      details: { reason: 'UNSCRIPTED_QUESTION', toolName: 'order_coffee' },
    });
  });
});

describe("decideRetry: failures that are not the iteration's", () => {
  it('retries a database error or a bug now, never recording the iteration as failed', () => {
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'CONNECTION_ENDED' });
    expect(decideRetry(lost, last)).toEqual({
      action: 'retry',
      reason: 'INTERNAL',
      message: 'Connection terminated unexpectedly',
    });
    expect(decideRetry(new TypeError('x is undefined'), last)).toMatchObject({ action: 'retry', reason: 'INTERNAL' });
  });
});

describe('as Temporal failures', () => {
  it('a retry after a delay is an ApplicationFailure with nextRetryDelay; a retry now has none', () => {
    const later = retryFailure({
      action: 'retry',
      reason: 'PROVIDER_RATE_LIMITED',
      message: 'slow down',
      delayMs: 7_000,
    });
    expect(later).toBeInstanceOf(ApplicationFailure);
    expect(later).toMatchObject({
      message: 'slow down',
      type: 'RetryableIterationError',
      nonRetryable: false,
      nextRetryDelay: 7_000,
      details: [{ reason: 'PROVIDER_RATE_LIMITED' }],
    });
    const now = retryFailure({ action: 'retry', reason: 'PROVIDER_UNAVAILABLE', message: 'busy' });
    expect(now.nextRetryDelay).toBeUndefined();
    expect(now.nonRetryable).toBe(false);
  });

  it('a failure of our own retries as IterationInterrupted, keeping the error as its cause', () => {
    const lost = new Error('Connection terminated unexpectedly');
    const failure = retryFailure({ action: 'retry', reason: 'INTERNAL', message: lost.message }, lost);
    expect(failure).toMatchObject({
      type: 'IterationInterrupted',
      nonRetryable: false,
      details: [{ reason: 'INTERNAL' }],
    });
    expect(failure.cause).toBe(lost);
    expect(retryFailure({ action: 'retry', reason: 'INTERNAL', message: 'x' }, 'not an error').cause).toBeUndefined();
  });

  it('a missing run is one non-retryable failure type', () => {
    expect(activityFailure(new RunNotFound('run_x'))).toMatchObject({
      type: 'RunNotFound',
      nonRetryable: true,
      message: 'run run_x does not exist',
    });
  });

  it('a run planned past its bound fails at once; any other error is left to the activity retry policy', () => {
    expect(activityFailure(new TooManyIterations('too many'))).toMatchObject({
      type: 'TooManyIterations',
      nonRetryable: true,
      message: 'too many',
    });
    const outage = new Error('connection refused');
    expect(activityFailure(outage)).toBe(outage);
  });

  it("an activity's work returns its value, and fails as activityFailure says", async () => {
    await expect(asActivity(async () => 42)).resolves.toBe(42);
    await expect(
      asActivity(async () => {
        throw new RunNotFound('run_x');
      }),
    ).rejects.toMatchObject({ type: 'RunNotFound', nonRetryable: true, message: 'run run_x does not exist' });
    const outage = new Error('connection refused');
    await expect(
      asActivity(async () => {
        throw outage;
      }),
    ).rejects.toBe(outage);
  });
});
