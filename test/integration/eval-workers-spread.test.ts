import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { composeActivities, createRunwayWorker } from '../../worker/createWorker.js';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';

// Issue 34: a run's batches spread over the workers that poll its task queue. Only the run's first batch starts
// eagerly on the worker that ran the workflow task; every other one goes through the task queue, where any worker
// with a free slot takes it. Before, every batch started eagerly on that one worker while it had free slots (32),
// and a second worker sat idle.

const ITERATIONS = 160;
const CONCURRENCY = 16;

describe('two workers on one task queue', () => {
  let world: EvalWorld;
  const workers: { worker: Worker; running: Promise<void>; connection: NativeConnection }[] = [];
  /** batches and iterations each worker ran, by worker */
  const ran = [
    { batches: 0, iterations: 0 },
    { batches: 0, iterations: 0 },
  ];

  beforeAll(async () => {
    world = await startEvalWorld();
    const { stack } = world;
    // The stack's own worker makes way for two of this test's, each counting the batches it runs.
    await stack.stopWorker();
    for (const counts of ran) {
      const activities = composeActivities({
        sql: stack.sql,
        box: stack.box,
        catalog: stack.services.catalog,
        config: stack.config,
        temporal: stack.temporal,
        log: createLogger('silent'),
        mcp: stack.mcp,
      });
      const connection = await NativeConnection.connect({ address: stack.config.TEMPORAL_ADDRESS });
      const worker = await createRunwayWorker({
        connection,
        namespace: stack.config.TEMPORAL_NAMESPACE,
        taskQueue: stack.taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        activities: {
          ...activities,
          async runIterationBatch(input) {
            counts.batches += 1;
            const result = await activities.runIterationBatch(input);
            counts.iterations += result.completed;
            return result;
          },
        },
      });
      workers.push({ worker, running: worker.run(), connection });
    }
  });
  afterAll(async () => {
    for (const { worker, running, connection } of workers) {
      worker.shutdown();
      await running;
      await connection.close();
    }
    await world?.stop();
  });

  it('both run batches of one run, though either has slots for all of its lanes', async () => {
    const { model, org, call, serverId } = world;
    model.setScript('spread', [{ text: 'ok', delayMs: 50 }]);
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Spread',
      serverIds: [serverId],
      modelApiKeys: { openai: 'sk-run' },
      concurrency: CONCURRENCY,
      tests: Array.from({ length: ITERATIONS / 2 }, (_, i) => ({
        title: `case ${i}`,
        query: `question ${i}`,
        runs: 2,
        model: 'spread',
        provider: 'openai',
        isNegativeTest: true,
      })),
    });
    expect(created.status).toBe(202);
    const run = await waitForRun(call, org.projectId, created.body.runId);
    expect(run).toMatchObject({ status: 'completed', progress: { completed: ITERATIONS, passed: ITERATIONS } });

    expect(ran[0].iterations + ran[1].iterations).toBe(ITERATIONS);
    // The first batch starts on the worker of the workflow task; the other 30 or so go through the task queue, where
    // both workers poll: all of them to one worker would be a coin landing the same way 30 times.
    expect(ran[0].batches, JSON.stringify(ran)).toBeGreaterThan(0);
    expect(ran[1].batches, JSON.stringify(ran)).toBeGreaterThan(0);
  });
});
