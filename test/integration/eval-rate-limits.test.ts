import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalRunWorkflowId } from '../../workflows/definitions.js';
import type { ScriptedTurn } from '../fixtures/model/server.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';

/**
 * A model provider that rate-limits a run for a while (issue 16, part 5): the run's lanes wait together for the
 * provider's reset, at the worker's gate (a short reset) or on Temporal's schedule (nextRetryDelay, a long one),
 * and no iteration is lost or recorded failed: waiting for a reset spends no attempt of the cap.
 */
const ITERATION_ATTEMPTS = 5;

const echo = (model: string, rateLimit: ScriptedTurn['rateLimit'], extra: Partial<ScriptedTurn> = {}) => ({
  model,
  script: [
    { rateLimit, toolCalls: [{ name: 'echo', arguments: { message: 'hi' } }], ...extra },
    { text: 'done' },
  ] satisfies ScriptedTurn[],
});

async function startRun(world: EvalWorld, model: string, runs: number, cases = 2) {
  const created = await world.call('POST', `/projects/${world.org.projectId}/eval-runs`, {
    suiteName: `rate limited ${model}`,
    serverIds: [world.serverId],
    modelApiKeys: { openai: 'sk-run' },
    tests: Array.from({ length: cases }, (_, i) => ({
      title: `case ${i}`,
      query: `say hi ${i}`,
      model,
      provider: 'openai',
      runs,
      expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hi' } }],
    })),
  });
  expect(created.status).toBe(202);
  return created.body.runId as string;
}

/** The batch activities of a run as its history has them: the attempt each ended at, and how it ended. */
async function batchActivities(world: EvalWorld, runId: string) {
  const handle = world.stack.temporal.workflow.getHandle(evalRunWorkflowId(runId));
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runIterationBatch')
      .map((e) => String(e.eventId)),
  );
  const started = events.filter(
    (e) =>
      e.activityTaskStartedEventAttributes &&
      scheduled.has(String(e.activityTaskStartedEventAttributes.scheduledEventId)),
  );
  const failed = events.filter(
    (e) =>
      e.activityTaskFailedEventAttributes &&
      scheduled.has(String(e.activityTaskFailedEventAttributes.scheduledEventId)),
  );
  return { attempts: started.map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 1), failed: failed.length };
}

async function rateLimitWaits(world: EvalWorld, runId: string, iterationId: string) {
  const trace = await world.call(
    'GET',
    `/projects/${world.org.projectId}/eval-runs/${runId}/iterations/${iterationId}/trace`,
  );
  expect(trace.status).toBe(200);
  return (trace.body.spans as Array<Record<string, unknown>>).filter((s) => s.category === 'rate-limit');
}

describe('a provider that limits for 2 s, reset within what the worker waits for', () => {
  let world: EvalWorld;

  beforeAll(async () => {
    world = await startEvalWorld({ EVAL_ITERATION_CONCURRENCY: '4' });
  });
  afterAll(async () => world?.stop());

  it('runs every iteration, lanes waiting at the gate together: no attempt spent, each wait in the trace', async () => {
    const { script, model } = echo('limits-2s', { windowMs: 2_000 });
    world.model.setScript(model, script);
    const runId = await startRun(world, model, 6);
    const run = await waitForRun(world.call, world.org.projectId, runId);
    expect(run).toMatchObject({
      status: 'completed',
      result: 'passed',
      summary: { total: 12, passed: 12, failed: 0, errored: 0 },
    });
    const iterations = await allIterations(world.call, world.org.projectId, runId);
    expect(iterations).toHaveLength(12);
    for (const iteration of iterations) expect(iteration).toMatchObject({ status: 'completed', result: 'passed' });

    // The provider refused what came within its window, and nothing was asked of it again before its reset but
    // the one request per lane that was already on its way when the gate closed.
    const calls = world.model.calls(model);
    const refused = calls.filter((c) => c.status === 429);
    const windowStart = calls[0]!.time;
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(4);
    for (const call of refused) expect(call.time - windowStart).toBeLessThan(2_000);

    // No batch activity failed or was retried: the waits spent no attempt.
    const batches = await batchActivities(world, runId);
    expect(batches.failed).toBe(0);
    expect(batches.attempts.every((a) => a === 1)).toBe(true);

    // Each wait is a `rate-limit` span of the iteration that waited: the provider and the time waited.
    const waits = (await Promise.all(iterations.map((i) => rateLimitWaits(world, runId, i.id)))).flat();
    expect(waits.length).toBeGreaterThan(0);
    for (const wait of waits) {
      expect(wait).toMatchObject({ name: 'openai rate limit', provider: 'openai', status: 'ok' });
      expect(wait.delayMs).toEqual(expect.any(Number));
    }
    expect(Math.max(...waits.map((w) => w.delayMs as number))).toBeGreaterThan(500);
  });
});

describe('a provider whose resets are left to Temporal (MODEL_RATE_LIMIT_WAIT_MS=0)', () => {
  let world: EvalWorld;

  beforeAll(async () => {
    world = await startEvalWorld({ EVAL_ITERATION_CONCURRENCY: '2', MODEL_RATE_LIMIT_WAIT_MS: '0' });
  });
  afterAll(async () => world?.stop());

  it('retries after each reset past the attempt cap, and still gives a later failure its full attempts', async () => {
    // Asked to come back every 150 ms for 6 s: many more rate-limited attempts than the cap. Then a server
    // error that one more attempt gets past (the AI SDK retries nothing: retries are Temporal's).
    const { script, model } = echo(
      'limits-via-temporal',
      { windowMs: 6_000, retryAfterMs: 150 },
      { error: { status: 500, message: 'boom', retryAfterMs: 10, times: 1 } },
    );
    world.model.setScript(model, script);
    // one iteration: its one call meets the server error, so that attempt fails and counts
    const runId = await startRun(world, model, 1, 1);
    const run = await waitForRun(world.call, world.org.projectId, runId);
    expect(run).toMatchObject({
      status: 'completed',
      result: 'passed',
      summary: { total: 1, passed: 1, failed: 0, errored: 0 },
    });
    const batches = await batchActivities(world, runId);
    // the batch went past the cap's number of attempts, all but the one of the server error spent waiting
    expect(batches.attempts).toHaveLength(1);
    expect(batches.attempts[0]).toBeGreaterThan(ITERATION_ATTEMPTS + 1);
    const calls = world.model.calls(model);
    expect(calls.filter((c) => c.status === 500)).toHaveLength(1);
    expect(calls.filter((c) => c.status === 429).length).toBeGreaterThan(ITERATION_ATTEMPTS);
  });
});
