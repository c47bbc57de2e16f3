import {
  ActivityCancellationType,
  CancellationScope,
  CancelledFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { BatchScheduler, inFlightSizing } from './batching.js';
import { BudgetTracker } from './budget.js';
import {
  progressQuery,
  runCurrentDetails,
  runResultSearchAttribute,
  type EvalRunInput,
  type EvalRunProgress,
} from './definitions.js';

/**
 * The attempt cap of a batch: from this attempt on, a transient model or MCP failure is recorded as a failed
 * iteration instead of retried. What is transient, and what fails at once, the retry policy decides
 * (activities/retryPolicy.ts); the workflow only passes the cap.
 */
const ITERATION_ATTEMPTS = 5;

const shortActivity = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 30 },
} as const;

const { finalizeRun, adaptiveRound } = proxyActivities<Activities>(shortActivity);

// A run that comes without its plan (a suite's scheduled run) plans in a local activity: it runs in the workflow task
// that started the run, whose completion schedules the first batches, instead of a round trip through the task queue
// and a second workflow task (issue 16: POST -> first model request). Same timeout and retries; a retry that waits
// long is a timer in history.
const { planRun } = proxyLocalActivities<Activities>(shortActivity);

const batchActivity = {
  startToCloseTimeout: '1 hour',
  // Heartbeats go out every second: a worker that died is noticed within 15 s and its batch moves on.
  heartbeatTimeout: '15 seconds',
  // Attempts are not capped, time is: a database or Temporal outage only delays the batch. Model and MCP failures
  // stop being retried at ITERATION_ATTEMPTS, where the activity records them as failed iterations instead; what
  // cannot be retried (a missing run) fails as non-retryable, and a provider's Retry-After sets the next delay.
  scheduleToCloseTimeout: '6 hours',
  // wait for the activity to stop its model and MCP calls before finalizing
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
  },
} as const;

// Where a batch starts (issue 34). The workflow's tasks stay on the worker that ran its first one (sticky), and an
// activity its task schedules eagerly starts on that same worker whenever it has a free slot. The run's first batch
// is scheduled so: its first model request goes out from the reply to the workflow task, with no trip through the
// task queue (issue 16). Every other batch goes through the task queue, where any worker with a free slot takes it,
// so a run spreads over the workers instead of filling the first one's slots before another gets any work (eager
// for every lane's first batch put a run's whole first round on one worker: bench/workers.ts, docs/OPERATIONS.md).
// Not in history (the scheduled event does not record it): replay is the same either way.
const { runIterationBatch: runFirstBatch } = proxyActivities<Activities>(batchActivity);
const { runIterationBatch: runLaterBatch } = proxyActivities<Activities>({
  ...batchActivity,
  allowEagerDispatch: false,
});

/** The first batches of an adaptive round: the round spread over its lanes. */
const initialRoundBatch = (iterations: number, lanes: number) => Math.max(1, Math.ceil(iterations / lanes));

/**
 * Runs `count` lanes at once and settles when every lane has settled: a lane that fails, or the run's cancellation,
 * cancels the other lanes' batches, and their model and MCP calls have stopped (WAIT_CANCELLATION_COMPLETED) before
 * this rejects with the first failure, so finalizeRun never runs beside a batch still at work.
 */
async function runLanes(count: number, lane: () => Promise<void>): Promise<void> {
  const scope = new CancellationScope();
  let firstFailure: { error: unknown } | undefined;
  await scope.run(() =>
    Promise.allSettled(
      Array.from({ length: count }, lane).map((running) =>
        running.catch((error: unknown) => {
          firstFailure ??= { error };
          scope.cancel();
        }),
      ),
    ),
  );
  if (firstFailure) throw firstFailure.error;
}

/**
 * One eval run: plan the iterations, run them in batches with bounded parallelism, and always finalize — also
 * after a failure or a cancellation. Everything large lives in Postgres; history holds ids and counts only.
 */
export async function evalRun(input: EvalRunInput): Promise<{ status: string; result: string | null }> {
  const { runId } = input;
  const progress: EvalRunProgress = { total: 0, completed: 0, passed: 0, failed: 0, errored: 0 };
  setHandler(progressQuery, () => progress);

  let outcome: 'completed' | 'failed' | 'cancelled' = 'completed';
  let stoppedBy: 'budget' | undefined;
  let error: string | undefined;
  let failure: unknown;
  try {
    // A run planned as it was created (POST /eval-runs) brings its plan; a scheduled run plans here.
    const plan = input.plan ?? (await planRun({ runId }));
    progress.total = plan.iterationIds.length;
    // Web UI's current details: no command, so no history changes.
    setCurrentDetails(runCurrentDetails(progress));
    const lanes = Math.min(plan.concurrency, plan.iterationIds.length);
    // A run with a budget (issue 16) stops handing out batches once it is spent.
    const budget = plan.budget ? new BudgetTracker(plan.budget, lanes) : undefined;
    let batchesScheduled = 0;
    const runBatch = async (iterationIds: string[]) => {
      const runIterationBatch = batchesScheduled++ === 0 ? runFirstBatch : runLaterBatch;
      const done = await runIterationBatch({ runId, iterationIds, lastAttempt: ITERATION_ATTEMPTS });
      budget?.spent(done.completed, done.tokens ?? 0, done.costUsd ?? 0);
      progress.completed += done.completed;
      progress.passed += done.passed;
      progress.failed += done.failed;
      // Batches run before errored was counted apart (histories replayed) counted it among failed.
      progress.errored += done.errored ?? 0;
      setCurrentDetails(runCurrentDetails(progress));
    };
    // Batches sized by how long iterations take, counting the work still in flight (workflows/batching.ts).
    let scheduler = new BatchScheduler(plan.iterationIds, { ...inFlightSizing, lanes, initialSize: plan.batchSize });
    const take = () => {
      const batch = scheduler.take(budget?.allowance(), Date.now());
      budget?.handedOut(batch?.length ?? 0);
      return batch;
    };
    const lane = async () => {
      for (let batch = take(); batch; batch = take()) {
        const startedAt = Date.now();
        await runBatch(batch);
        scheduler.observe(batch, Date.now() - startedAt);
      }
    };
    await runLanes(lanes, lane);
    // An adaptive run (issue 31; its plan says so, which the plans of older histories never do) looks after each
    // round: decided cases stop, open ones get another round, until none is open or the budget is spent.
    for (let look = 0; plan.adaptive && !(budget && scheduler.remaining > 0); look++) {
      const next = await adaptiveRound({ runId, look });
      if (next.iterationIds.length === 0) break;
      progress.total += next.iterationIds.length;
      setCurrentDetails(runCurrentDetails(progress));
      const roundLanes = Math.min(plan.concurrency, next.iterationIds.length);
      scheduler = new BatchScheduler(next.iterationIds, {
        ...inFlightSizing,
        lanes: roundLanes,
        initialSize: initialRoundBatch(next.iterationIds.length, roundLanes),
      });
      await runLanes(roundLanes, lane);
    }
    // What was never handed out stays unrun: the run ends completed, stopped by its budget.
    if (budget && scheduler.remaining > 0) stoppedBy = 'budget';
  } catch (err) {
    failure = err;
    if (isCancellation(err)) outcome = 'cancelled';
    else if (CancellationScope.current().consideredCancelled) {
      // The user cancelled the run, whatever its batches ended with: batches on a dead worker hear of the cancel only
      // when their heartbeat times out (retry state CANCEL_REQUESTED), and that timeout is not the run's failure.
      outcome = 'cancelled';
      // It ends cancelled in Temporal too.
      failure = new CancelledFailure('the run was cancelled', [], err instanceof Error ? err : undefined);
    } else {
      outcome = 'failed';
      error = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    }
  }

  const finished = await CancellationScope.nonCancellable(() =>
    finalizeRun({ runId, outcome, error, ...(stoppedBy && { stoppedBy }) }),
  );
  // Web UI and visibility queries (`RunwayResult = "failed"`) find runs by how they ended.
  upsertSearchAttributes([runResultSearchAttribute(finished)]);
  // Cancelled and failed runs also end that way in Temporal, so the Web UI tells the same story.
  if (failure) throw failure;
  return { status: finished.status, result: finished.result };
}
