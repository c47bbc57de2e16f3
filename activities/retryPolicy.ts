/**
 * The one retry policy of eval runs. Whatever an iteration meets (a model provider's error, an MCP server's
 * OperationFailure, a cancellation, a failure of our own) maps to exactly one decision:
 * - `retry` now: an outage or a timeout that may pass; Temporal retries the batch with its backoff;
 * - `retry` after `delayMs`: the provider said when (Retry-After, rate-limit reset headers): the activity fails
 *   with ApplicationFailure.nextRetryDelay, so Temporal waits that long instead of its backoff; a rate limit (429,
 *   529) with a delay is retried past the attempt cap (waiting for a reset is not a failed attempt);
 * - `fail` now: retrying cannot help (a host that does not resolve, a refused key, an unknown model, a refused
 *   request, a server that answered with an error, a server question the case's script has no answer for), or the transient failure (an outage, a judge's unparsable
 *   reply) outlasted the attempt cap: the
 *   iteration is recorded as failed with the reason;
 * - `cancel`: the run was cancelled; the cancellation goes on as it is.
 * A failure that is not the iteration's (the database, a bug) is retried without a cap: it only delays the run.
 * The one owner of model-call retries in eval runs: the AI SDK retries nothing (MODEL_CALL_RETRIES,
 * domain/models/agentLoop.ts), and the rate-limit gate re-sends only what a provider turned away unread for its rate
 * limit, while the reset is near (domain/models/rateLimits.ts).
 * Callers: runIterations.ts (iterations), every activity (activityFailure: a run that does not exist or cannot be
 * planned).
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import type { FailureDetails } from '../domain/evals/executeIteration.js';
import { UnscriptedQuestion } from '../domain/evals/iterationQuestions.js';
import { JudgeReplyError } from '../domain/evals/judge.js';
import { RunNotFound, TooManyIterations } from '../domain/evals/runFailures.js';
import { OperationFailure } from '../domain/failures.js';
import { AgentRunFailure } from '../domain/models/agentLoop.js';
import {
  classifyModelError,
  isModelError,
  MODEL_FAILURES,
  type ModelErrorClassification,
} from '../domain/models/failures.js';
import { isRateLimitStatus } from '../domain/models/rateLimits.js';

/*
 * Why an iteration failed, in `error_details.reason`: a model failure's reason (MODEL_FAILURES,
 * domain/models/failures.ts), JUDGE_REPLY_INVALID, UNSCRIPTED_QUESTION, or a server failure's own reason.
 */

/** A server asked a question the case's elicitation script has no answer for (domain/evals/iterationQuestions.ts). */
export const UNSCRIPTED_QUESTION = 'UNSCRIPTED_QUESTION';

export type RetryDecision =
  | { action: 'cancel' }
  | {
      action: 'retry';
      reason: string;
      message: string;
      delayMs?: number;
      /** a provider's rate limit with its reset: waiting, not a failed attempt (the caller does not count it) */
      rateLimited?: true;
    }
  | { action: 'fail'; message: string; details: FailureDetails };

export interface FailureContext {
  /** this attempt of the batch activity (Temporal's, from 1) */
  attempt: number;
  /** from this attempt on, a transient model or server failure is recorded as failed instead of retried */
  lastAttempt: number;
  /** the run's cancellation signal */
  signal?: AbortSignal;
  /** now, in ms (reads HTTP-date Retry-After headers) */
  now?: number;
}

/** The longest a provider's Retry-After is honoured; past it the batch retries anyway (and may be told again). */
export const MAX_RETRY_DELAY_MS = 10 * 60_000;

export function decideRetry(error: unknown, context: FailureContext): RetryDecision {
  if (context.signal?.aborted || error instanceof CancelledFailure) return { action: 'cancel' };
  if (error instanceof OperationFailure) return serverFailure(error, context);
  // The same script meets the same server's question again: the case (or the server) has to change.
  if (error instanceof UnscriptedQuestion) {
    const { name, toolName } = error.question;
    return fail(
      error.message,
      // Stryker disable next-line ConditionalExpression: the details travel as JSON (the activity's result, the row's errorDetails), which drops a question that is undefined
      { reason: UNSCRIPTED_QUESTION, ...(name !== undefined && { question: name }), toolName },
      context,
    );
  }
  // A judge that answered without a proper verdict may answer properly next time; never a pass.
  if (error instanceof JudgeReplyError)
    return transientFailure(error.message, { reason: 'JUDGE_REPLY_INVALID' }, context);
  const classified = modelClassification(error, context);
  if (classified) {
    if (classified.kind === 'aborted') return { action: 'cancel' };
    const { reason, transient } = MODEL_FAILURES[classified.kind];
    const status = classified.status;
    if (!transient) return fail(classified.message, { reason, ...(status !== undefined && { status }) }, context);
    // The provider limits and said until when: waiting is all there is to do, so it spends no attempt of the cap
    // (the batch's schedule-to-close timeout still bounds it). A short reset was already waited for in-process, at
    // the run's rate-limit gate (domain/models/rateLimits.ts); this is a long one.
    if (isRateLimitStatus(status) && classified.retryAfterMs !== undefined)
      return {
        action: 'retry',
        reason,
        message: classified.message,
        delayMs: Math.min(Math.max(0, Math.round(classified.retryAfterMs)), MAX_RETRY_DELAY_MS),
        rateLimited: true,
      };
    return transientFailure(
      classified.message,
      { reason, ...(status !== undefined && { status }) },
      context,
      classified.retryAfterMs,
    );
  }
  return { action: 'retry', reason: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

function modelClassification(error: unknown, context: FailureContext): ModelErrorClassification | undefined {
  if (error instanceof AgentRunFailure) return error.failure;
  if (isModelError(error)) return classifyModelError(error, context.signal, context.now);
  return undefined;
}

/**
 * An MCP server's failure (domain/mcp/failures.ts). An outage or a timeout may pass; a server that answered with
 * an error or refused our credentials (`retryable: false`), a host that does not resolve, and every other code
 * (OAuth needed, a missing capability, a refused request, a model the run cannot use) will answer the same.
 */
function serverFailure(failure: OperationFailure, context: FailureContext): RetryDecision {
  const details = failure.details ?? {};
  const reason = typeof details.reason === 'string' ? details.reason : failure.code;
  const facts = { reason, code: failure.code, ...(typeof details.status === 'number' && { status: details.status }) };
  const outage = failure.code === 'SERVER_UNREACHABLE' || failure.code === 'TIMEOUT';
  if (outage && details.retryable !== false && details.errno !== 'ENOTFOUND')
    return transientFailure(failure.message, facts, context);
  return fail(failure.message, facts, context);
}

function transientFailure(
  message: string,
  facts: Omit<FailureDetails, 'attempt'>,
  context: FailureContext,
  delayMs?: number,
): RetryDecision {
  if (context.attempt >= context.lastAttempt)
    return fail(`${message} (still failing after ${context.attempt} attempts)`, facts, context);
  const retry = { action: 'retry' as const, reason: facts.reason, message };
  return delayMs === undefined
    ? retry
    : { ...retry, delayMs: Math.min(Math.max(0, Math.round(delayMs)), MAX_RETRY_DELAY_MS) };
}

function fail(message: string, facts: Omit<FailureDetails, 'attempt'>, context: FailureContext): RetryDecision {
  return { action: 'fail', message, details: { ...facts, attempt: context.attempt } };
}

/** A retry decision as the activity's failure: Temporal retries it, after `delayMs` when the provider said so. */
export function retryFailure(
  decision: Extract<RetryDecision, { action: 'retry' }>,
  cause?: unknown,
): ApplicationFailure {
  return ApplicationFailure.create({
    message: decision.message,
    type: decision.reason === 'INTERNAL' ? 'IterationInterrupted' : 'RetryableIterationError',
    details: [{ reason: decision.reason }],
    // Stryker disable next-line ConditionalExpression: ApplicationFailure.create treats nextRetryDelay: undefined as not given
    ...(decision.delayMs !== undefined && { nextRetryDelay: decision.delayMs }),
    ...(cause instanceof Error && { cause }),
  });
}

/**
 * The domain's failures that no retry can change (a run that does not exist will not appear on a retry; a run
 * planned past its bound stays past it) fail the activity at once, with the domain error's name as the type.
 * Anything else is returned as it is: Temporal retries it by the activity's policy.
 */
export function activityFailure(error: unknown): unknown {
  if (error instanceof RunNotFound || error instanceof TooManyIterations) {
    return ApplicationFailure.nonRetryable(error.message, error.name);
  }
  return error;
}

/** Runs an activity's domain work, its failures mapped by activityFailure. */
export async function asActivity<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw activityFailure(error);
  }
}
