import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';

/**
 * Adaptive iterations (issue 31) through HTTP and the scripted model: a baseline run where three cases pass 10/10,
 * then an adaptive run against it (first round 5, at most 30 per case). The steady case passes again and stops
 * after its first round (no plausible continuation would decide it); the wobbly one fails its first 3 iterations
 * (2/5: open) and gets more rounds until it is decided unchanged at 12/15; the broken one fails every iteration and
 * is decided regressed at 0/10. Failures are scripted as a provider's 400 answer for the first N requests of a query.
 */
describe('POST /eval-runs with adaptive', () => {
  let world: EvalWorld;
  beforeAll(async () => {
    world = await startEvalWorld();
  });
  afterAll(async () => world?.stop());

  const pass = (query: string) => [{ toolCalls: [{ name: 'echo', arguments: { message: query } }] }, { text: 'ok' }];
  const failFirst = (query: string, times: number) => [
    {
      error: { status: 400, message: 'scripted failure', type: 'invalid_request_error', times },
      toolCalls: [{ name: 'echo', arguments: { message: query } }],
    },
    { text: 'ok' },
  ];
  const test = (title: string, query: string) => ({
    title,
    query,
    runs: 10,
    model: 'scripted-adaptive',
    provider: 'openai',
    expectedToolCalls: [{ toolName: 'echo' }],
  });

  it('stops a clearly unchanged case early, spends more on an open one, and decides a regression', async () => {
    const { call, org, serverId, model } = world;
    const p = org.projectId;
    // The baseline's model takes 50 ms a call, one iteration at a time: it is still running while the run below asks
    // for "previous".
    const slow = (query: string) => [{ ...pass(query)[0], delayMs: 50 }, pass(query)[1]];
    model.setScript('scripted-adaptive', {
      byQuery: { 'steady q': slow('steady q'), 'wobbly q': slow('wobbly q'), 'broken q': slow('broken q') },
    });
    const adaptive = { baseline: 'previous', maxIterationsPerCase: 30, stopWhen: 'decided', firstRound: 5 };

    // A new suite has no baseline; refused before anything is written.
    const newSuite = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Adaptive',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      tests: [test('steady', 'steady q')],
      adaptive,
    });
    expect(newSuite.status).toBe(400);
    expect(newSuite.body.details.reason).toBe('NO_BASELINE_SUITE');

    const first = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Adaptive',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      concurrency: 1,
      tests: [test('steady', 'steady q'), test('wobbly', 'wobbly q'), test('broken', 'broken q')],
    });
    expect(first.status).toBe(202);
    const { suiteId, runId: baseRunId } = first.body;

    // While the baseline runs, "previous" has no completed run to name.
    const early = await call('POST', `/projects/${p}/eval-runs`, { suiteId, modelApiKeys: { openai: 'k' }, adaptive });
    expect(early.status).toBe(404);
    expect(early.body.details.reason).toBe('NO_PREVIOUS_RUN');
    expect((await waitForRun(call, p, baseRunId)).status).toBe('completed');

    // What cannot work is refused with a 4xx naming it.
    const refusals: [object, number, string | undefined][] = [
      [{ ...adaptive, baseline: 'run_doesnotexist' }, 404, undefined],
      [{ ...adaptive, maxIterationsPerCase: 3 }, 400, 'BELOW_FIRST_ROUND'],
      [{ ...adaptive, maxIterationsPerCase: 101 }, 400, undefined],
      [{ ...adaptive, stopWhen: 'never' }, 400, undefined],
    ];
    for (const [asked, status, reason] of refusals) {
      const reply = await call('POST', `/projects/${p}/eval-runs`, {
        suiteId,
        modelApiKeys: { openai: 'k' },
        adaptive: asked,
      });
      expect(reply.status, JSON.stringify(asked)).toBe(status);
      if (reason) expect(reply.body.details.reason).toBe(reason);
    }
    const withIterations = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId,
      modelApiKeys: { openai: 'k' },
      iterationOverride: 4,
      adaptive,
    });
    expect(withIterations.status).toBe(400);
    expect(withIterations.body.details.reason).toBe('ADAPTIVE_WITH_ITERATIONS');
    const other = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Another',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      tests: [test('steady', 'steady q')],
    });
    expect(other.status).toBe(202);
    const otherSuite = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId: other.body.suiteId,
      modelApiKeys: { openai: 'k' },
      adaptive: { ...adaptive, baseline: baseRunId },
    });
    expect(otherSuite.status).toBe(400);
    expect(otherSuite.body.details.reason).toBe('BASELINE_OF_ANOTHER_SUITE');
    await waitForRun(call, p, other.body.runId);

    model.setScript('scripted-adaptive', {
      byQuery: {
        'steady q': pass('steady q'),
        'wobbly q': failFirst('wobbly q', 3),
        'broken q': failFirst('broken q', 1000),
      },
    });
    // Its estimate counts the first round, and every case's maximum for the top of the range.
    const estimate = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId,
      modelApiKeys: { openai: 'k' },
      adaptive,
      dryRun: true,
    });
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
    for (const entry of estimate.body.plan.entries) expect(entry).toMatchObject({ iterations: 5, maxIterations: 30 });
    const started = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId,
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      concurrency: 2,
      adaptive,
    });
    expect(started.status).toBe(202);
    const runId = started.body.runId;
    const run = await waitForRun(call, p, runId);
    expect(run.status).toBe('completed');
    expect(run.adaptive).toEqual({
      baselineRunId: baseRunId,
      maxIterationsPerCase: 30,
      stopWhen: 'decided',
      firstRound: 5,
      roundSize: 5,
    });
    const cases = Object.fromEntries(run.summary.adaptive.cases.map((c: { title: string }) => [c.title, c]));
    expect(run.summary.adaptive).toMatchObject({ baselineRunId: baseRunId, maxIterationsPerCase: 30, alpha: 0.05 });
    expect(cases.steady).toMatchObject({ iterations: 5, stopReason: 'decided_unchanged' });
    expect(cases.wobbly).toMatchObject({ iterations: 15, stopReason: 'decided_unchanged' });
    expect(cases.broken).toMatchObject({ iterations: 10, stopReason: 'decided_regressed' });
    expect(cases.broken.pValue).toBeLessThanOrEqual(cases.broken.level);
    // 30 model calls in all, where a fixed run of 30 per case would have made 90
    expect(run.progress).toMatchObject({ total: 30, completed: 30, passed: 17 });
  });
});
