import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { evalRunWorkflowId } from '../../domain/ports/runWorkflows.js';
import { createLogger } from '../../runtime/logger.js';
import { startQueueSweep } from '../../runtime/runQueue.js';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';

// Queued runs over HTTP on the whole stack (issue 33): the API, a worker, Temporal and Postgres. One run at a time
// per organization (MAX_CONCURRENT_RUNS=1), at most two queued (MAX_QUEUED_RUNS=2).
describe('queued runs', () => {
  let world: EvalWorld;
  let runsPath: string;
  const SLOW = 'queue-slow';
  const FAST = 'queue-fast';

  beforeAll(async () => {
    world = await startEvalWorld({ MAX_CONCURRENT_RUNS: '1', MAX_QUEUED_RUNS: '2' });
    runsPath = `/projects/${world.org.projectId}/eval-runs`;
    // a run of SLOW stays running until cancelled; a run of FAST ends at once
    world.model.setScript(SLOW, [{ text: 'slow', delayMs: 120_000 }]);
    world.model.setScript(FAST, [{ text: 'fast' }]);
  }, 120_000);
  afterAll(async () => world?.stop());

  let suites = 0;
  const newRun = (model: string, more: Record<string, unknown> = {}) =>
    world.call('POST', runsPath, {
      suiteName: `queued ${++suites}`,
      serverIds: [world.serverId],
      tests: [{ title: 'a case', query: 'say something', provider: 'openai', model }],
      ...more,
    });
  const get = async (runId: string) => (await world.call('GET', `${runsPath}/${runId}`)).body;

  it('queues past the cap, shows positions, cancels while queued, bounds the queue, and starts runs in order as slots free', async () => {
    const first = await newRun(SLOW);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: 'running' });
    expect(first.body.queue).toBeUndefined();

    // Not asked to queue: 429 as before.
    const refused = await newRun(FAST);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', details: { reason: 'CONCURRENT_RUN_LIMIT' } });

    const second = await newRun(FAST, { queue: true });
    const third = await newRun(FAST, { queue: true });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ status: 'queued', queue: { position: 1 } });
    expect(third.body).toMatchObject({ status: 'queued', queue: { position: 2 } });
    expect(await get(third.body.runId)).toMatchObject({
      status: 'queued',
      queue: { position: 2 },
      result: null,
      startedAt: null,
      progress: { total: 0 },
    });

    // Past the bound on queued runs: 429 RUN_QUEUE_FULL in the error envelope, with a Retry-After.
    const full = await newRun(FAST, { queue: true });
    expect(full.status).toBe(429);
    expect(full.body).toMatchObject({
      code: 'RATE_LIMITED',
      details: { reason: 'RUN_QUEUE_FULL', maxQueuedRuns: 2, queuedRuns: 2 },
    });
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0);

    // Cancel while queued: cancelled at once, no workflow was ever started; the run behind it moves up.
    const cancelled = await world.call('POST', `${runsPath}/${second.body.runId}/cancel`);
    expect(cancelled.status).toBe(202);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', result: null, startedAt: null });
    await expect(
      world.stack.temporal.workflow.getHandle(evalRunWorkflowId(second.body.runId)).describe(),
    ).rejects.toThrow();
    expect(await get(third.body.runId)).toMatchObject({ status: 'queued', queue: { position: 1 } });
    const fourth = await newRun(FAST, { queue: true });
    expect(fourth.body).toMatchObject({ status: 'queued', queue: { position: 2 } });

    // The running run ends (cancelled): the worker's finalize tells RunEnded, and the queue starts the oldest,
    // which ends and starts the next. Each one ran alone (the cap), in order.
    await world.call('POST', `${runsPath}/${first.body.runId}/cancel`);
    const ended = [
      await waitForRun(world.call, world.org.projectId, first.body.runId, (r) => r.status === 'cancelled'),
      await waitForRun(world.call, world.org.projectId, third.body.runId, (r) => r.status === 'completed'),
      await waitForRun(world.call, world.org.projectId, fourth.body.runId, (r) => r.status === 'completed'),
    ];
    expect(ended[1].queue).toBeUndefined();
    expect(ended[1].startedAt).toBeGreaterThanOrEqual(ended[0].completedAt);
    expect(ended[2].startedAt).toBeGreaterThanOrEqual(ended[1].completedAt);
    expect(ended[2].progress).toMatchObject({ total: 1, completed: 1 });
  }, 120_000);

  it('queued runs left while no API listened start when an API comes up, once across two replicas', async () => {
    const running = await newRun(SLOW);
    const queued = await newRun(FAST, { queue: true });
    expect(queued.body.status).toBe('queued');
    // The running run ends without any process telling the queue (the one that ended it stopped before telling):
    // its row is ended and its workflow terminated behind the API's back.
    await world.stack.sql`
      UPDATE eval_runs SET status = 'cancelled', completed_at = now() WHERE id = ${running.body.runId}`;
    await world.stack.temporal.workflow.getHandle(evalRunWorkflowId(running.body.runId)).terminate('test');
    expect(await get(queued.body.runId)).toMatchObject({ status: 'queued', queue: { position: 1 } });

    // Two API processes come up on the same database (replicas): each sweeps the queue at start.
    const lines: string[] = [];
    const log = createLogger(
      'info',
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const replicas = [0, 1].map(() =>
      createApp({ ...world.stack.services, temporal: world.stack.temporal, config: world.stack.config, log }),
    );
    const sweeps = replicas.map((app) => startQueueSweep(app.runQueue, { intervalMs: 200, log }));
    try {
      const done = await waitForRun(
        world.call,
        world.org.projectId,
        queued.body.runId,
        (r) => r.status === 'completed',
      );
      expect(done).toMatchObject({ status: 'completed', progress: { total: 1, completed: 1 } });
      // started once: one start logged, and its one workflow execution is the one that completed
      expect(lines.filter((l) => l.includes('queued run started') && l.includes(queued.body.runId))).toHaveLength(1);
      const description = await world.stack.temporal.workflow
        .getHandle(evalRunWorkflowId(queued.body.runId))
        .describe();
      expect(description.status.name).toBe('COMPLETED');
    } finally {
      await Promise.all(sweeps.map((s) => s.stop()));
    }
  }, 120_000);
});
