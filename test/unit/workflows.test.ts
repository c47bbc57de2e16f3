import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { tsToMs } from '@temporalio/common/lib/time.js';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Activities } from '../../activities/index.js';
import { BatchScheduler, inFlightSizing } from '../../workflows/batching.js';
import {
  evalRunWorkflowId,
  progressQuery,
  scheduledSuiteRunWorkflowId,
  type EvalRunInput,
} from '../../workflows/definitions.js';
import type { evalRun, scheduledSuiteRun } from '../../workflows/index.js';
import { startWorkflowTestServer, workflowBundle } from './workflowTesting.js';

// The workflows (workflows/evalRun.ts, scheduledSuiteRun.ts) with mocked activities, as Temporal's samples test
// them: the production input (a run started with its plan), the scheduled run's (planned by the workflow), budgets,
// failures, cancellation and the batch sizing, on a dev server of this file's own, without Postgres or models; and
// the replay of the committed histories, which needs no server.

type MockedActivities = Pick<
  Activities,
  'planRun' | 'runIterationBatch' | 'finalizeRun' | 'startScheduledRun' | 'failScheduledRunStart' | 'adaptiveRound'
>;
type Plan = NonNullable<EvalRunInput['plan']>;
type BatchInput = Parameters<Activities['runIterationBatch']>[0];
type BatchResult = Awaited<ReturnType<Activities['runIterationBatch']>>;
type FinalizeInput = Parameters<Activities['finalizeRun']>[0];
type FinalizeResult = Awaited<ReturnType<Activities['finalizeRun']>>;
type HistoryEvent = Record<string, any>;

/** Each workflow's mocks, by workflow id: one worker serves every test of the file. */
const mocks = new Map<string, Partial<MockedActivities>>();

function mocked<K extends keyof MockedActivities>(name: K): MockedActivities[K] {
  return (async (...args: unknown[]) => {
    const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
    const mock = mocks.get(workflowId)?.[name] as ((...a: unknown[]) => unknown) | undefined;
    if (!mock) throw ApplicationFailure.nonRetryable(`${workflowId} has no mocked ${name}`, 'NoMock');
    return await mock(...args);
  }) as MockedActivities[K];
}

const taskQueue = 'workflows-unit';
let server: Awaited<ReturnType<typeof startWorkflowTestServer>>;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  const [started, bundle] = await Promise.all([startWorkflowTestServer(), workflowBundle()]);
  server = started;
  worker = await Worker.create({
    connection: server.env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities: {
      planRun: mocked('planRun'),
      runIterationBatch: mocked('runIterationBatch'),
      finalizeRun: mocked('finalizeRun'),
      startScheduledRun: mocked('startScheduledRun'),
      failScheduledRunStart: mocked('failScheduledRunStart'),
      adaptiveRound: mocked('adaptiveRound'),
    },
    // Cancellation reaches an activity through its heartbeats: let them through at once.
    maxHeartbeatThrottleInterval: '50 milliseconds',
    defaultHeartbeatThrottleInterval: '50 milliseconds',
  });
  running = worker.run();
});

afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await server?.stop();
});

const newRunId = () => `run_${randomUUID().replaceAll('-', '').slice(0, 12)}`;

/** Starts an eval run's workflow as the API does: `plan` given (POST /eval-runs), or not (a scheduled run's child). */
async function startRun(activities: Partial<MockedActivities>, plan?: Plan) {
  const runId = newRunId();
  const workflowId = evalRunWorkflowId(runId);
  mocks.set(workflowId, activities);
  const input: EvalRunInput = plan ? { runId, plan } : { runId };
  const handle = await server.env.client.workflow.start<typeof evalRun>('evalRun', {
    taskQueue,
    workflowId,
    args: [input],
  });
  return { handle, runId };
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Heartbeats until Temporal says the activity is cancelled, then returns the CancelledFailure to throw. */
async function untilCancelled(): Promise<CancelledFailure> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), 20);
  try {
    await ctx.cancelled;
    throw new Error('unreachable: cancelled always rejects');
  } catch (error) {
    if (error instanceof CancelledFailure) return error;
    throw error;
  } finally {
    clearInterval(beat);
  }
}

const ids = (count: number) => Array.from({ length: count }, (_, i) => `itr_${String(i).padStart(4, '0')}`);
const plan = (iterationIds: string[], batchSize: number, concurrency: number, budget?: Plan['budget']): Plan => ({
  iterationIds,
  batchSize,
  concurrency,
  ...(budget && { budget }),
});
const finished = (input: FinalizeInput): FinalizeResult => ({
  status: input.outcome,
  result: input.outcome === 'completed' ? 'passed' : input.outcome === 'failed' ? 'failed' : null,
  passRate: null,
});
const allPassed = (input: BatchInput, tokensEach?: number): BatchResult => ({
  completed: input.iterationIds.length,
  passed: input.iterationIds.length,
  failed: 0,
  errored: 0,
  ...(tokensEach !== undefined && { tokens: tokensEach * input.iterationIds.length }),
});

/**
 * The replay corpus (below) is recorded here: with RECORD_HISTORIES=<folder>, the runs
 * that pass `name` write their history there as <name>.json.
 */
async function record(name: string, handle: WorkflowHandle): Promise<void> {
  const folder = process.env.RECORD_HISTORIES;
  if (!folder) return;
  const history = JSON.parse(historyToJSON(await handle.fetchHistory()));
  writeFileSync(join(folder, `${name}.json`), `${JSON.stringify(history, null, 2)}\n`);
}

async function historyOf(handle: WorkflowHandle): Promise<HistoryEvent[]> {
  return ((await handle.fetchHistory()).events ?? []) as HistoryEvent[];
}

/** Waits until the workflow's history holds an event `matches` accepts, followed by a completed workflow task. */
async function waitForHistory(handle: WorkflowHandle, matches: (event: HistoryEvent) => boolean): Promise<void> {
  await vi.waitFor(
    async () => {
      const events = await historyOf(handle);
      const at = events.findIndex(matches);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(events.slice(at + 1).some((e) => e.workflowTaskCompletedEventAttributes)).toBe(true);
    },
    { timeout: 30_000, interval: 50 },
  );
}

/** What the run's workflow set RunwayResult to as it ended (Web UI and visibility queries find runs by it). */
const runwayResult = async (handle: WorkflowHandle) =>
  (await handle.describe()).typedSearchAttributes.getAll().find((p) => p.key.name === 'RunwayResult')?.value;

/** A local activity's result, as history records it. */
const localActivity = (event: HistoryEvent) =>
  event.markerRecordedEventAttributes?.markerName === 'core_local_activity';

const scheduledActivities = (events: HistoryEvent[]) =>
  events.flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    return scheduled ? [{ eventId: Number(e.eventId), type: scheduled.activityType?.name as string }] : [];
  });

describe.concurrent('evalRun workflow (mocked activities)', () => {
  it('given its plan (POST /eval-runs), its first workflow task starts the batches: no planning, every iteration once, RunwayResult passed', async () => {
    const planCalls: unknown[] = [];
    const batches: BatchInput[] = [];
    const finalized: FinalizeInput[] = [];
    const { handle, runId } = await startRun(
      {
        planRun: async (input) => {
          planCalls.push(input);
          throw ApplicationFailure.nonRetryable('a run given its plan must not plan again');
        },
        runIterationBatch: async (input) => {
          batches.push(input);
          return allPassed(input);
        },
        finalizeRun: async (input) => {
          finalized.push(input);
          return finished(input);
        },
      },
      plan(ids(6), 2, 2),
    );
    expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
    expect(planCalls).toEqual([]);
    expect(batches.flatMap((b) => b.iterationIds).sort()).toEqual(ids(6));
    expect(batches.every((b) => b.runId === runId && b.lastAttempt === 5)).toBe(true);
    expect(finalized).toEqual([{ runId, outcome: 'completed' }]);
    expect(await runwayResult(handle)).toBe('passed');
    const events = await historyOf(handle);
    expect(events.filter(localActivity)).toEqual([]);
    // the first workflow task's commands are the two lanes' first batches
    const firstTask = events.findIndex((e) => e.workflowTaskCompletedEventAttributes);
    const secondTask = events.findIndex((e, at) => at > firstTask && e.workflowTaskScheduledEventAttributes);
    expect(scheduledActivities(events.slice(firstTask, secondTask)).map((a) => a.type)).toEqual([
      'runIterationBatch',
      'runIterationBatch',
    ]);
    await record('eval-run-completed', handle);
    expect(scheduledActivities(events).map((a) => a.type)).toEqual([
      ...Array<string>(batches.length).fill('runIterationBatch'),
      'finalizeRun',
    ]);
  });

  it('without a plan (a scheduled run), it plans in a local activity, then runs the batches', async () => {
    const planCalls: unknown[] = [];
    const batches: string[][] = [];
    const { handle, runId } = await startRun({
      planRun: async (input) => {
        planCalls.push(input);
        return plan(ids(4), 2, 1);
      },
      runIterationBatch: async (input) => {
        batches.push(input.iterationIds);
        return allPassed(input);
      },
      finalizeRun: async (input) => finished(input),
    });
    expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
    expect(planCalls).toEqual([{ runId }]);
    expect(batches).toEqual([ids(4).slice(0, 2), ids(4).slice(2)]);
    const events = await historyOf(handle);
    expect(events.filter(localActivity)).toHaveLength(1);
    expect(scheduledActivities(events).map((a) => a.type)).toEqual([
      'runIterationBatch',
      'runIterationBatch',
      'finalizeRun',
    ]);
    expect(await handle.query(progressQuery)).toEqual({ total: 4, completed: 4, passed: 4, failed: 0, errored: 0 });
    await record('eval-run-planned-in-workflow', handle);
  });

  it('a failed plan runs no batch and finalizes the run as failed with the reason; the workflow fails', async () => {
    const finalized: FinalizeInput[] = [];
    const batches: BatchInput[] = [];
    const { handle, runId } = await startRun({
      planRun: async () => {
        throw ApplicationFailure.nonRetryable('the suite grew to 12,000 iterations', 'TooManyIterations');
      },
      runIterationBatch: async (input) => {
        batches.push(input);
        return allPassed(input);
      },
      finalizeRun: async (input) => {
        finalized.push(input);
        return finished(input);
      },
    });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('FAILED');
    expect(batches).toEqual([]);
    expect(finalized).toEqual([{ runId, outcome: 'failed', error: 'the suite grew to 12,000 iterations' }]);
  });

  it('a batch failing transiently is retried up to the attempt cap it is given, where it records its iterations as failed', async () => {
    const attempts: number[] = [];
    const finalized: FinalizeInput[] = [];
    const { handle, runId } = await startRun(
      {
        runIterationBatch: async (input) => {
          const { attempt } = Context.current().info;
          attempts.push(attempt);
          // the retry policy's answer to a model outage, with a short delay so the test does not wait for backoff
          if (attempt < input.lastAttempt)
            throw ApplicationFailure.create({ message: 'model outage', nextRetryDelay: '10 milliseconds' });
          // recorded as errored: they could not be scored (domain/evals/verdicts.ts)
          return { completed: input.iterationIds.length, passed: 0, failed: 0, errored: input.iterationIds.length };
        },
        finalizeRun: async (input) => {
          finalized.push(input);
          return finished(input);
        },
      },
      plan(ids(3), 3, 1),
    );
    expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
    expect(attempts).toEqual([1, 2, 3, 4, 5]);
    expect(await handle.query(progressQuery)).toEqual({ total: 3, completed: 3, passed: 0, failed: 0, errored: 3 });
    expect(finalized).toEqual([{ runId, outcome: 'completed' }]);
    await record('eval-run-batch-retried', handle);
  });

  it('a batch that fails for good cancels the other lanes, waits for them, then finalizes the run as failed (RunwayResult failed)', async () => {
    const events: string[] = [];
    const finalized: FinalizeInput[] = [];
    const { handle, runId } = await startRun(
      {
        runIterationBatch: async (input) => {
          if (input.iterationIds[0] === 'itr_0000') {
            // the other lane is busy before this one gives up
            await vi.waitFor(() => expect(events).toContain('other batch started'), { timeout: 30_000, interval: 10 });
            events.push('batch failed');
            throw ApplicationFailure.nonRetryable('run run_x not found', 'RunNotFound');
          }
          events.push('other batch started');
          const cancelled = await untilCancelled();
          events.push('other batch settled');
          throw cancelled;
        },
        finalizeRun: async (input) => {
          events.push('finalize');
          finalized.push(input);
          return finished(input);
        },
      },
      plan(ids(4), 2, 2),
    );
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('FAILED');
    expect(events).toEqual(['other batch started', 'batch failed', 'other batch settled', 'finalize']);
    expect(finalized).toEqual([{ runId, outcome: 'failed', error: 'run run_x not found' }]);
    expect(await runwayResult(handle)).toBe('failed');
    await record('eval-run-failed', handle);
  });

  it('a cancel during batches finalizes only after every lane has settled (RunwayResult cancelled)', async () => {
    const events: string[] = [];
    const bothStarted = deferred();
    const finalizeCalled = deferred();
    const releaseSlowLane = deferred();
    let started = 0;
    const finalized: FinalizeInput[] = [];
    const { handle, runId } = await startRun(
      {
        runIterationBatch: async (input) => {
          const lane = input.iterationIds[0] === 'itr_0000' ? 'fast' : 'slow';
          if (++started === 2) bothStarted.resolve();
          const cancelled = await untilCancelled();
          // The slow lane still works after the cancel (as a model call that takes a moment to abort): it settles
          // when the test lets it, or as soon as finalizeRun is called beside it — which is the fault this test
          // would catch: then 'finalize' comes before 'slow settled'.
          if (lane === 'slow') await Promise.race([releaseSlowLane.promise, finalizeCalled.promise]);
          events.push(`${lane} settled`);
          throw cancelled;
        },
        finalizeRun: async (input) => {
          events.push('finalize');
          finalizeCalled.resolve();
          finalized.push(input);
          return finished(input);
        },
      },
      plan(ids(4), 2, 2),
    );
    await bothStarted.promise;
    await handle.cancel();
    // The workflow has seen the fast lane's batch cancelled and decided what to do next: had it scheduled
    // finalizeRun then, the slow lane would already have been let go by it.
    await waitForHistory(handle, (e) => Boolean(e.activityTaskCanceledEventAttributes));
    releaseSlowLane.resolve();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(events).toEqual(['fast settled', 'slow settled', 'finalize']);
    expect(finalized).toEqual([{ runId, outcome: 'cancelled' }]);
    expect(await runwayResult(handle)).toBe('cancelled');
    await record('eval-run-cancelled', handle);
  });

  it('a cancelled run ends cancelled whatever its batches ended with (a dead worker: the batch times out)', async () => {
    const batchStarted = deferred();
    const finalized: FinalizeInput[] = [];
    const { handle, runId } = await startRun(
      {
        runIterationBatch: async () => {
          batchStarted.resolve();
          await untilCancelled();
          // what the workflow hears of a batch on a worker that died: a failure, not a cancellation
          throw ApplicationFailure.nonRetryable('activity Heartbeat timeout', 'HeartbeatTimeout');
        },
        finalizeRun: async (input) => {
          finalized.push(input);
          return finished(input);
        },
      },
      plan(ids(2), 2, 1),
    );
    await batchStarted.promise;
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(finalized).toEqual([{ runId, outcome: 'cancelled' }]);
    await record('eval-run-cancelled-batch-failed', handle);
  });

  it('a cancel during finalize does not stop it: the run is finalized with what happened before', async () => {
    const finalizeStarted = deferred();
    const releaseFinalize = deferred();
    const finalized: FinalizeInput[] = [];
    let finalizeSawCancel = false;
    const { handle, runId } = await startRun(
      {
        runIterationBatch: async (input) => allPassed(input),
        finalizeRun: async (input) => {
          finalized.push(input);
          finalizeStarted.resolve();
          const ctx = Context.current();
          ctx.cancelled.catch(() => (finalizeSawCancel = true));
          const beat = setInterval(() => ctx.heartbeat(), 20);
          await releaseFinalize.promise;
          clearInterval(beat);
          return finished(input);
        },
      },
      plan(ids(2), 2, 1),
    );
    await finalizeStarted.promise;
    await handle.cancel();
    await waitForHistory(handle, (e) => Boolean(e.workflowExecutionCancelRequestedEventAttributes));
    releaseFinalize.resolve();
    expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
    const events = await historyOf(handle);
    expect(events.some((e) => e.activityTaskCancelRequestedEventAttributes)).toBe(false);
    expect(finalizeSawCancel).toBe(false);
    expect(finalized).toEqual([{ runId, outcome: 'completed' }]);
  });
});

describe.concurrent('evalRun budgets', () => {
  it('a maxIterations budget hands out no more iterations than it allows; the run ends completed, stopped by its budget', async () => {
    const batches: string[][] = [];
    const finalized: FinalizeInput[] = [];
    const { handle, runId } = await startRun(
      {
        runIterationBatch: async (input) => {
          batches.push(input.iterationIds);
          return allPassed(input);
        },
        finalizeRun: async (input) => {
          finalized.push(input);
          return finished(input);
        },
      },
      plan(ids(6), 2, 1, { maxIterations: 3 }),
    );
    expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
    expect(batches).toEqual([ids(6).slice(0, 2), ids(6).slice(2, 3)]);
    expect(finalized).toEqual([{ runId, outcome: 'completed', stoppedBy: 'budget' }]);
    expect(await handle.query(progressQuery)).toMatchObject({ total: 6, completed: 3 });
  });

  it('a maxTokens budget measures one iteration a lane, then hands out what the tokens left pay for', async () => {
    const batches: string[][] = [];
    const finalized: FinalizeInput[] = [];
    const { handle, runId } = await startRun(
      {
        runIterationBatch: async (input) => {
          batches.push(input.iterationIds);
          return allPassed(input, 100);
        },
        finalizeRun: async (input) => {
          finalized.push(input);
          return finished(input);
        },
      },
      plan(ids(8), 4, 1, { maxTokens: 300 }),
    );
    expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
    // 100 tokens an iteration: one measured, then two more (what 200 tokens pay for), then nothing
    expect(batches).toEqual([ids(8).slice(0, 1), ids(8).slice(1, 3)]);
    expect(finalized).toEqual([{ runId, outcome: 'completed', stoppedBy: 'budget' }]);
    await record('eval-run-token-budget-stopped', handle);
  });

  it('an adaptive run looks after each round and runs the rounds its looks plan, until none is planned', async () => {
    const finalized: FinalizeInput[] = [];
    const looks: { runId: string; look: number }[] = [];
    const batches: string[][] = [];
    const rounds = [['itr_r1_a', 'itr_r1_b', 'itr_r1_c'], ['itr_r2_a'], []];
    const { handle, runId } = await startRun(
      {
        runIterationBatch: async (input) => {
          batches.push(input.iterationIds);
          return allPassed(input);
        },
        adaptiveRound: async (input) => {
          looks.push(input);
          return { iterationIds: rounds[input.look] };
        },
        finalizeRun: async (input) => {
          finalized.push(input);
          return finished(input);
        },
      },
      { ...plan(ids(4), 4, 2), adaptive: true },
    );
    expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
    expect(looks).toEqual([0, 1, 2].map((look) => ({ runId, look })));
    // every planned iteration ran once, the first plan's before the rounds', each round after the look that planned it
    const order = batches.flat();
    expect(order).toHaveLength(8);
    expect(order.slice(0, 4).sort()).toEqual(ids(4));
    expect(order.slice(4, 7).sort()).toEqual(rounds[0]);
    expect(order[7]).toBe('itr_r2_a');
    expect(await handle.query(progressQuery)).toMatchObject({ total: 8, completed: 8, passed: 8 });
    expect(finalized).toEqual([{ runId, outcome: 'completed' }]);
    await record('eval-run-adaptive', handle);
  });

  it('a run without adaptive in its plan never looks (plans of older runs replay unchanged)', async () => {
    const looks: unknown[] = [];
    const { handle } = await startRun(
      {
        runIterationBatch: async (input) => allPassed(input),
        adaptiveRound: async (input) => {
          looks.push(input);
          return { iterationIds: [] };
        },
        finalizeRun: async (input) => finished(input),
      },
      plan(ids(2), 2, 1),
    );
    expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
    expect(looks).toEqual([]);
  });

  it('a budget the run stays within does not stop it', async () => {
    const finalized: FinalizeInput[] = [];
    const { handle, runId } = await startRun(
      {
        runIterationBatch: async (input) => allPassed(input, 10),
        finalizeRun: async (input) => {
          finalized.push(input);
          return finished(input);
        },
      },
      plan(ids(4), 2, 2, { maxIterations: 4, maxTokens: 1_000 }),
    );
    expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
    expect(await handle.query(progressQuery)).toMatchObject({ total: 4, completed: 4 });
    expect(finalized).toEqual([{ runId, outcome: 'completed' }]);
  });
});

/** The input of the batch an ActivityTaskScheduled event scheduled. */
const batchInput = (event: HistoryEvent): BatchInput =>
  JSON.parse(Buffer.from(event.activityTaskScheduledEventAttributes.input.payloads[0].data).toString());

/**
 * The batches a run's history says BatchScheduler hands out with in-flight sizing: each workflow task (its time is
 * the task's start, as the workflow's Date.now()) times the batches that came back before it, in the order they came
 * back, and each of their lanes takes its next batch; the run's first task starts every lane.
 */
function batchesByScheduler(events: HistoryEvent[], runPlan: Plan): string[][] {
  const lanes = Math.min(runPlan.concurrency, runPlan.iterationIds.length);
  const scheduler = new BatchScheduler(runPlan.iterationIds, {
    ...inFlightSizing,
    lanes,
    initialSize: runPlan.batchSize,
  });
  const handedOut: string[][] = [];
  const startedAt = new Map<string, number>();
  const take = (now: number) => {
    const batch = scheduler.take(undefined, now);
    if (!batch) return;
    handedOut.push(batch);
    startedAt.set(batch[0], now);
  };
  const batchOf = new Map<number, string[]>();
  let came: number[] = [];
  let now = 0;
  let first = true;
  for (const event of events) {
    if (event.workflowTaskStartedEventAttributes) now = tsToMs(event.eventTime);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'runIterationBatch') {
      batchOf.set(Number(event.eventId), batchInput(event).iterationIds);
    }
    if (event.activityTaskCompletedEventAttributes)
      came.push(Number(event.activityTaskCompletedEventAttributes.scheduledEventId));
    if (!event.workflowTaskCompletedEventAttributes) continue;
    if (first) for (let lane = 0; lane < lanes; lane++) take(now);
    for (const id of came) {
      const batch = batchOf.get(id);
      if (!batch) continue;
      scheduler.observe(batch, now - startedAt.get(batch[0])!);
      take(now);
    }
    first = false;
    came = [];
  }
  return handedOut;
}

describe.concurrent('evalRun batch sizing (workflows/batching.ts)', () => {
  it('sizes batches as the scheduler does with the work in flight, on workflow time: every iteration once and in order', async () => {
    const iterationIds = ids(400);
    const runPlan = plan(iterationIds, 3, 2);
    const batches: string[][] = [];
    const { handle } = await startRun(
      {
        runIterationBatch: async (input) => {
          batches.push(input.iterationIds);
          // a little work per iteration, so that batch times differ with their size
          await new Promise((r) => setTimeout(r, input.iterationIds.length / 4));
          return allPassed(input);
        },
        finalizeRun: async (input) => finished(input),
      },
      runPlan,
    );
    expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
    expect(await handle.query(progressQuery)).toEqual({
      total: 400,
      completed: 400,
      passed: 400,
      failed: 0,
      errored: 0,
    });
    // what Temporal Web UI shows as the run's current details
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe('400 of 400 iterations done: 400 passed, 0 failed, 0 errored');

    // in the order they were handed out (the two lanes' activities may start in either order)
    const ordered = [...batches].sort((a, b) => iterationIds.indexOf(a[0]) - iterationIds.indexOf(b[0]));
    expect(ordered.flat()).toEqual(iterationIds);
    const sizes = ordered.map((b) => b.length);
    expect(sizes.slice(0, 2)).toEqual([3, 3]);
    expect(Math.max(...sizes)).toBeGreaterThan(3);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(inFlightSizing.maxSize);
    expect(batches.length).toBeLessThan(400 / 3);
    // exactly the batches the scheduler hands out with the work in flight, timed as the history says
    const events = await historyOf(handle);
    const scheduled = events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runIterationBatch')
      .map((e) => batchInput(e).iterationIds);
    expect(scheduled).toEqual(batchesByScheduler(events, runPlan));
    await record('eval-run-sized-batches', handle);
  });
});

describe.concurrent('scheduledSuiteRun workflow (mocked activities)', () => {
  const about = { suiteName: 'Nightly', projectName: 'Project', iterations: 2 };
  const labels = { organizationId: 'org_1', projectId: 'prj_1', suiteId: 'sui_1', source: 'schedule' };

  /** Starts the schedule's action as a due time does; `runId` names the run its startScheduledRun creates. */
  async function startScheduled(runId: string, activities: Partial<MockedActivities>) {
    const workflowId = `${scheduledSuiteRunWorkflowId(labels.suiteId)}-${runId}`;
    mocks.set(workflowId, activities);
    return await server.env.client.workflow.start<typeof scheduledSuiteRun>('scheduledSuiteRun', {
      taskQueue,
      workflowId,
      args: [{ suiteId: labels.suiteId }],
    });
  }

  it('runs the run it started as an evalRun child that plans it, and returns once the run has ended', async () => {
    const finalized: FinalizeInput[] = [];
    const runId = newRunId();
    mocks.set(evalRunWorkflowId(runId), {
      planRun: async () => plan(ids(2), 2, 1),
      runIterationBatch: async (input) => allPassed(input),
      finalizeRun: async (input) => {
        finalized.push(input);
        return finished(input);
      },
    });
    const handle = await startScheduled(runId, {
      startScheduledRun: async () => ({ outcome: 'started', run: { ...labels, id: runId }, about }),
    });
    expect(await handle.result()).toEqual({ outcome: 'started', run: { ...labels, id: runId }, about });
    const child = server.env.client.workflow.getHandle(evalRunWorkflowId(runId));
    expect(await child.result()).toEqual({ status: 'completed', result: 'passed' });
    const description = await child.describe();
    expect(description.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['RunwaySuiteId', 'sui_1'],
        ['RunwaySource', 'schedule'],
        ['RunwayResult', 'passed'],
      ]),
    );
    expect(finalized).toEqual([{ runId, outcome: 'completed' }]);
  });

  it('a skipped due time starts no run', async () => {
    const skipped = {
      outcome: 'skipped',
      reason: 'RUN_CAP',
      message: 'the project runs as many runs as it may',
    } as const;
    const handle = await startScheduled(newRunId(), { startScheduledRun: async () => skipped });
    expect(await handle.result()).toEqual(skipped);
    const events = await historyOf(handle);
    expect(events.some((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toBe(false);
  });
});

// The replay corpus: histories of today's workflow code (test/fixtures/histories). Replaying them fails when a change
// would make the workflows already running non-deterministic; ARCHITECTURE.md ("Shipping workflow changes") says
// what such a change needs. No server: the worker replays from the history alone.
//
// Recorded from runs of the workflow tests (mocked activities) with
//   RECORD_HISTORIES=test/fixtures/histories npx vitest run test/unit/workflows.test.ts
// and from real runs on a test stack: eval-run-budget-stopped by test/integration/eval-run-models.test.ts
// -t 'maxIterations budget' with RECORD_HISTORY=test/fixtures/histories/eval-run-budget-stopped.json, the two
// scheduled-suite-run histories (one that started its evalRun child, one that was skipped) with
// `temporal workflow show --workflow-id <id> --output json`.
const folder = new URL('../fixtures/histories/', import.meta.url);
const histories = readdirSync(folder)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .sort();

describe('workflow replay (evalRun, scheduledSuiteRun)', () => {
  it('the corpus holds every kind of run the workflows end with', () => {
    expect(histories).toEqual(
      expect.arrayContaining([
        'eval-run-completed',
        'eval-run-planned-in-workflow',
        'eval-run-failed',
        'eval-run-cancelled',
        'eval-run-budget-stopped',
        'scheduled-suite-run-started',
        'scheduled-suite-run-skipped',
      ]),
    );
  });

  it('replays every committed history deterministically', async () => {
    const workflowBundleCode = await workflowBundle();
    const replayed: Record<string, string> = {};
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: workflowBundleCode },
      histories.map((name) => ({
        workflowId: name,
        history: JSON.parse(readFileSync(new URL(`${name}.json`, folder), 'utf8')),
      })),
    )) {
      replayed[result.workflowId] = result.error ? String(result.error) : 'ok';
    }
    expect(replayed).toEqual(Object.fromEntries(histories.map((name) => [name, 'ok'])));
  });
});
