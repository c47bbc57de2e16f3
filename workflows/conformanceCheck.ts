import {
  ActivityCancellationType,
  ActivityFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type { ConformanceCheckInput } from '../domain/ports/conformanceWorkflows.js';

type Activities = ReturnType<typeof createActivities>;

/** The innermost message of an activity's failure (the activity's own error, not Temporal's wrapper). */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? reason(error.cause) : error.message;
}

/** How far past the check's own limit Temporal lets an attempt run before it times the attempt out. */
const ATTEMPT_MARGIN_MS = 30_000;

/**
 * A conformance check of a saved server (issue 32; id conformanceCheckWorkflowId(checkId)): one activity runs the
 * official suite and stores the report or why there is none. The activity records every ending of the suite itself;
 * this records the ones it cannot: its attempts timed out or failed for good (the worker died, the database stayed
 * away), or the workflow was cancelled.
 */
export async function conformanceCheck(input: ConformanceCheckInput): Promise<{ status: string }> {
  const { runConformanceCheck } = proxyActivities<Activities>({
    startToCloseTimeout: input.timeoutMs + ATTEMPT_MARGIN_MS,
    heartbeatTimeout: '1 minute',
    // A worker that died is retried on another; the suite's own failures are never thrown (the activity records them).
    retry: { maximumAttempts: 3, initialInterval: '2 seconds' },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  const { endConformanceCheck } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 10 },
  });
  try {
    return await runConformanceCheck(input);
  } catch (error) {
    const cancelled = isCancellation(error);
    const timedOut = error instanceof ActivityFailure && error.cause instanceof TimeoutFailure;
    await CancellationScope.nonCancellable(() =>
      endConformanceCheck({
        checkId: input.checkId,
        status: cancelled ? 'cancelled' : 'failed',
        code: cancelled ? 'CANCELLED' : timedOut ? 'TIMEOUT' : 'INTERNAL_ERROR',
        message: cancelled
          ? 'the check was cancelled'
          : timedOut
            ? "the check's worker did not finish within its time limit"
            : `the check could not be run: ${reason(error)}`,
      }),
    );
    if (cancelled) throw error;
    return { status: 'failed' };
  }
}
