import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Activities } from '../../activities/index.js';
import type { FinalizeInput, FinalizeResult } from '../../domain/evals/finalize.js';
import type { RunPlan } from '../../domain/evals/plan.js';
import type { BatchInput, BatchResult } from '../../activities/runIterations.js';
import { randomBase62 } from '../../db/ids.js';
import { progressQuery } from '../../workflows/definitions.js';

// The evalRun workflow (workflows/evalRun.ts) on the shared Temporal dev server with mocked activities, as
// Temporal's samples test workflows: its failure paths, cancellation and batching, without Postgres or models.

type EvalRunActivities = Pick<Activities, 'planRun' | 'runIterationBatch' | 'finalizeRun'>;

Runtime.install({ logger: new DefaultLogger('WARN') });

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createFromExistingServer({ address: inject('temporalAddress') });
});

afterAll(async () => {
  await env?.teardown();
});

/** A worker with the real workflow bundle and the given activities runs while `body` does. */
async function withWorkflow<T>(
  activities: EvalRunActivities,
  body: (handle: WorkflowHandle, runId: string) => Promise<T>,
): Promise<T> {
  const taskQueue = `wf-test-${randomBase62(10)}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities,
    // Cancellation reaches an activity through its heartbeats: let them through at once.
    maxHeartbeatThrottleInterval: '50 milliseconds',
    defaultHeartbeatThrottleInterval: '50 milliseconds',
  });
  const runId = `run_${randomBase62(8)}`;
  return await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('evalRun', {
      taskQueue,
      workflowId: `eval-run-test:${runId}`,
      args: [{ runId }],
    });
    return await body(handle, runId);
  });
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
const plan = (iterationIds: string[], batchSize: number, concurrency: number): RunPlan => ({
  iterationIds,
  batchSize,
  concurrency,
});
const finished = (input: FinalizeInput): FinalizeResult => ({
  status: input.outcome,
  result: input.outcome === 'completed' ? 'passed' : input.outcome === 'failed' ? 'failed' : null,
  passRate: null,
});
const allPassed = (input: BatchInput): BatchResult => ({
  completed: input.iterationIds.length,
  passed: input.iterationIds.length,
  failed: 0,
});

/** Waits until the workflow's history holds an event `matches` accepts, followed by a completed workflow task. */
async function waitForHistory(
  handle: WorkflowHandle,
  matches: (event: Record<string, unknown>) => boolean,
): Promise<void> {
  await vi.waitFor(
    async () => {
      const events = ((await handle.fetchHistory()).events ?? []) as unknown as Record<string, unknown>[];
      const at = events.findIndex(matches);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(events.slice(at + 1).some((e) => e.workflowTaskCompletedEventAttributes)).toBe(true);
    },
    { timeout: 30_000, interval: 100 },
  );
}

describe('evalRun workflow (mocked activities)', () => {
  it('a failed plan runs no batch and finalizes the run as failed with the reason; the workflow fails', async () => {
    const finalized: FinalizeInput[] = [];
    const batches: BatchInput[] = [];
    await withWorkflow(
      {
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
      },
      async (handle, runId) => {
        const failure = await handle.result().catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(WorkflowFailedError);
        expect((await handle.describe()).status.name).toBe('FAILED');
        expect(batches).toEqual([]);
        expect(finalized).toEqual([{ runId, outcome: 'failed', error: 'the suite grew to 12,000 iterations' }]);
      },
    );
  });

  it('a batch failing transiently is retried up to the attempt cap it is given, where it records its iterations as failed', async () => {
    const attempts: number[] = [];
    const finalized: FinalizeInput[] = [];
    await withWorkflow(
      {
        planRun: async () => plan(ids(3), 3, 1),
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
      async (handle, runId) => {
        expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
        expect(attempts).toEqual([1, 2, 3, 4, 5]);
        expect(await handle.query(progressQuery)).toEqual({ total: 3, completed: 3, passed: 0, failed: 0, errored: 3 });
        expect(finalized).toEqual([{ runId, outcome: 'completed' }]);
      },
    );
  });

  it('a batch that fails for good cancels the other lanes, waits for them, then finalizes the run as failed', async () => {
    const events: string[] = [];
    const finalized: FinalizeInput[] = [];
    await withWorkflow(
      {
        planRun: async () => plan(ids(4), 2, 2),
        runIterationBatch: async (input) => {
          if (input.iterationIds[0] === 'itr_0000') {
            // the other lane is busy before this one gives up
            await vi.waitFor(() => expect(events).toContain('other batch started'), { timeout: 30_000 });
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
      async (handle, runId) => {
        await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
        expect((await handle.describe()).status.name).toBe('FAILED');
        expect(events).toEqual(['other batch started', 'batch failed', 'other batch settled', 'finalize']);
        expect(finalized).toEqual([{ runId, outcome: 'failed', error: 'run run_x not found' }]);
      },
    );
  });

  it('a cancel during batches finalizes only after every lane has settled', async () => {
    const events: string[] = [];
    const bothStarted = deferred();
    const finalizeCalled = deferred();
    const releaseSlowLane = deferred();
    let started = 0;
    const finalized: FinalizeInput[] = [];
    await withWorkflow(
      {
        planRun: async () => plan(ids(4), 2, 2),
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
      async (handle, runId) => {
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
      },
    );
  });

  it('a cancel during finalize does not stop it: the run is finalized with what happened before', async () => {
    const finalizeStarted = deferred();
    const releaseFinalize = deferred();
    const finalized: FinalizeInput[] = [];
    let finalizeSawCancel = false;
    await withWorkflow(
      {
        planRun: async () => plan(ids(2), 2, 1),
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
      async (handle, runId) => {
        await finalizeStarted.promise;
        await handle.cancel();
        await waitForHistory(handle, (e) => Boolean(e.workflowExecutionCancelRequestedEventAttributes));
        releaseFinalize.resolve();
        expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
        const events = ((await handle.fetchHistory()).events ?? []) as unknown as Record<string, unknown>[];
        expect(events.some((e) => e.activityTaskCancelRequestedEventAttributes)).toBe(false);
        expect(finalizeSawCancel).toBe(false);
        expect(finalized).toEqual([{ runId, outcome: 'completed' }]);
      },
    );
  });

  it('ends by setting RunwayResult to how the run ended: passed, failed, cancelled', async () => {
    const runwayResult = async (handle: WorkflowHandle) =>
      (await handle.describe()).typedSearchAttributes.getAll().find((p) => p.key.name === 'RunwayResult')?.value;
    const passed = await withWorkflow(
      {
        planRun: async () => plan(ids(2), 2, 1),
        runIterationBatch: async (input) => allPassed(input),
        finalizeRun: async (input) => finished(input),
      },
      async (handle) => {
        await handle.result();
        return await runwayResult(handle);
      },
    );
    const failed = await withWorkflow(
      {
        planRun: async () => {
          throw ApplicationFailure.nonRetryable('no servers', 'NoServers');
        },
        runIterationBatch: async (input) => allPassed(input),
        finalizeRun: async (input) => finished(input),
      },
      async (handle) => {
        await handle.result().catch(() => {});
        return await runwayResult(handle);
      },
    );
    const batchStarted = deferred();
    const cancelled = await withWorkflow(
      {
        planRun: async () => plan(ids(2), 2, 1),
        runIterationBatch: async () => {
          batchStarted.resolve();
          throw await untilCancelled();
        },
        finalizeRun: async (input) => finished(input),
      },
      async (handle) => {
        await batchStarted.promise;
        await handle.cancel();
        await handle.result().catch(() => {});
        return await runwayResult(handle);
      },
    );
    expect({ passed, failed, cancelled }).toEqual({ passed: 'passed', failed: 'failed', cancelled: 'cancelled' });
  });

  it('sizes batches adaptively: the first ones as planned, larger once iterations prove fast, every iteration once and in order', async () => {
    const iterationIds = ids(400);
    const batches: string[][] = [];
    await withWorkflow(
      {
        planRun: async () => plan(iterationIds, 3, 2),
        runIterationBatch: async (input) => {
          batches.push(input.iterationIds);
          return allPassed(input);
        },
        finalizeRun: async (input) => finished(input),
      },
      async (handle) => {
        expect(await handle.result()).toEqual({ status: 'completed', result: 'passed' });
        // batches that count no errored (as those run before it was counted) add none
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
      },
    );
    // in the order they were handed out (the two lanes' activities may start in either order)
    const ordered = [...batches].sort((a, b) => iterationIds.indexOf(a[0]) - iterationIds.indexOf(b[0]));
    expect(ordered.flat()).toEqual(iterationIds);
    const sizes = ordered.map((b) => b.length);
    expect(sizes.slice(0, 2)).toEqual([3, 3]);
    expect(Math.max(...sizes)).toBeGreaterThan(3);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    expect(batches.length).toBeLessThan(400 / 3);
  });
});
