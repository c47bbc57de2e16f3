import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';

/**
 * Two runs of one suite through the scripted model: a case that regresses from 10/10 to 2/10 (significant), one that
 * drifts from 3/3 to 2/3 (noise), one new in the second run and one removed from it. Failures are scripted as a
 * provider's 400 answer for the first N requests of a query (`error.times`), so exactly N iterations fail.
 */
describe('GET /eval-runs/{id}/compare', () => {
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
  const test = (title: string, query: string, runs: number) => ({
    title,
    query,
    runs,
    model: 'scripted-cmp',
    provider: 'openai',
    expectedToolCalls: [{ toolName: 'echo' }],
  });

  it('calls the 10/10 -> 2/10 case a significant regression and the 3/3 -> 2/3 drift noise', async () => {
    const { call, org, serverId, model } = world;
    const p = org.projectId;
    model.setScript('scripted-cmp', {
      byQuery: { 'regress me': pass('regress me'), 'drift me': pass('drift me'), 'remove me': pass('remove me') },
    });
    const first = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Compare',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      tests: [test('regresses', 'regress me', 10), test('drifts', 'drift me', 3), test('removed', 'remove me', 2)],
    });
    expect(first.status).toBe(202);
    const { suiteId, runId: baseRunId } = first.body;
    expect((await waitForRun(call, p, baseRunId)).status).toBe('completed');

    const removed = first.body.caseUpsert.committed.find((c: { name: string }) => c.name === 'removed');
    expect((await call('DELETE', `/projects/${p}/eval-suites/${suiteId}/cases/${removed.id}`)).status).toBeLessThan(
      300,
    );

    model.setScript('scripted-cmp', {
      byQuery: {
        'regress me': failFirst('regress me', 8),
        'drift me': failFirst('drift me', 1),
        'brand new': pass('brand new'),
      },
    });
    const second = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId,
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      tests: [test('new', 'brand new', 2)],
    });
    expect(second.status).toBe(202);
    const runId = second.body.runId;
    expect((await waitForRun(call, p, runId)).status).toBe('completed');

    // The default base is the suite's previous completed run.
    const reply = await call('GET', `/projects/${p}/eval-runs/${runId}/compare`);
    expect(reply.status).toBe(200);
    const body = reply.body;
    expect(body.base.runId).toBe(baseRunId);
    expect(body.current.runId).toBe(runId);
    const byTitle = Object.fromEntries(body.cases.map((c: { title: string }) => [c.title, c]));
    expect(byTitle.regresses).toMatchObject({
      status: 'regressed',
      significant: true,
      base: { passed: 10, total: 10 },
      current: { passed: 2, total: 10 },
      difference: -0.8,
    });
    expect(byTitle.regresses.pValue).toBeCloseTo((2 * 66) / 184756, 10);
    expect(byTitle.regresses.differenceInterval.high).toBeLessThan(0);
    expect(byTitle.drifts).toMatchObject({
      status: 'changed',
      significant: false,
      base: { passed: 3, total: 3 },
      current: { passed: 2, total: 3 },
    });
    expect(byTitle.drifts.iterationsNeeded).toBeGreaterThan(3);
    expect(byTitle.new).toMatchObject({ status: 'new_case', base: null, significant: false, pValue: null });
    expect(byTitle.removed).toMatchObject({ status: 'removed_case', current: null, significant: false });
    expect(body.cases.map((c: { status: string }) => c.status)).toEqual([
      'regressed',
      'changed',
      'new_case',
      'removed_case',
    ]);
    expect(body.suite.verdict).toBe('regressed');
    expect(body.suite.base).toEqual({ passed: 15, total: 15, passRate: 1 });
    expect(body.suite.current).toMatchObject({ passed: 6, total: 15 });
    expect(body.tools).toEqual([
      expect.objectContaining({ toolName: 'echo', base: expect.objectContaining({ precision: 1, recall: 1, f1: 1 }) }),
    ]);
    expect(body.performance.base.tokens.total).toBeGreaterThan(0);
    expect(body.performance.current.latencyMs.p95).not.toBeNull();

    // The same two runs by explicit base; a run compared with itself changes nothing.
    const explicit = await call('GET', `/projects/${p}/eval-runs/${runId}/compare?baseRunId=${baseRunId}`);
    expect(explicit.body.cases).toEqual(body.cases);
    const itself = await call('GET', `/projects/${p}/eval-runs/${baseRunId}/compare?baseRunId=${baseRunId}`);
    expect(itself.body.suite.verdict).toBe('no_significant_change');
    expect(itself.body.cases.map((c: { status: string }) => c.status)).toEqual([
      'unchanged_passed',
      'unchanged_passed',
      'unchanged_passed',
    ]);

    // by=model: this run has one model, so there is nothing to compare it with.
    const byModel = await call('GET', `/projects/${p}/eval-runs/${runId}/compare?by=model`);
    expect(byModel.status).toBe(200);
    expect(byModel.body).toMatchObject({
      by: 'model',
      baseModel: 'scripted-cmp',
      models: ['scripted-cmp'],
      comparisons: [],
    });
  });

  it('by=model compares the models of one run: every model against the first, or baseModel', async () => {
    const { call, org, serverId, model } = world;
    const p = org.projectId;
    model.setScript('scripted-good', { byQuery: { 'pick a model': pass('pick a model') } });
    model.setScript('scripted-worse', { byQuery: { 'pick a model': failFirst('pick a model', 8) } });
    const created = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Models',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      tests: [
        {
          title: 'which model',
          query: 'pick a model',
          runs: 10,
          models: [
            { model: 'scripted-good', provider: 'openai' },
            { model: 'scripted-worse', provider: 'openai' },
          ],
          expectedToolCalls: [{ toolName: 'echo' }],
        },
      ],
    });
    expect(created.status).toBe(202);
    const runId = created.body.runId;
    await waitForRun(call, p, runId);
    const reply = await call('GET', `/projects/${p}/eval-runs/${runId}/compare?by=model`);
    expect(reply.status).toBe(200);
    expect(reply.body.models).toHaveLength(2);
    expect(reply.body.comparisons).toHaveLength(1);
    const [first] = reply.body.comparisons;
    const good = first.base.model === 'scripted-good';
    // The base is the model the run used first; the other is compared against it.
    expect([first.base.model, first.current.model].sort()).toEqual(['scripted-good', 'scripted-worse']);
    expect(first.cases).toEqual([
      expect.objectContaining({ title: 'which model', status: good ? 'regressed' : 'fixed', significant: true }),
    ]);
    const flipped = await call(
      'GET',
      `/projects/${p}/eval-runs/${runId}/compare?by=model&baseModel=${good ? 'scripted-worse' : 'scripted-good'}`,
    );
    expect(flipped.body.comparisons[0].cases[0].status).toBe(good ? 'fixed' : 'regressed');
    expect(flipped.body.comparisons[0].suite.verdict).toBe(good ? 'improved' : 'regressed');

    // Non-inferiority: is scripted-worse (2/10) no worse than scripted-good (10/10) by more than 10 points? No.
    const margin = await call(
      'GET',
      `/projects/${p}/eval-runs/${runId}/compare?by=model&baseModel=scripted-good&margin=0.1`,
    );
    expect(margin.status, JSON.stringify(margin.body)).toBe(200);
    expect(margin.body.margin).toBe(0.1);
    const ni = margin.body.comparisons[0].nonInferiority;
    expect(ni.margin).toBe(0.1);
    expect(ni.overall.verdict).toBe('inferior');
    expect(ni.overall.difference).toBeCloseTo(-0.8, 10);
    expect(ni.cases).toEqual([expect.objectContaining({ title: 'which model', verdict: 'inferior' })]);
    expect(margin.body.choices.map((c: { model: string; verdict: string }) => [c.model, c.verdict])).toEqual([
      ['scripted-good', 'baseline'],
      ['scripted-worse', 'inferior'],
    ]);
    expect(margin.body.choices[1]).toMatchObject({ passed: 2, total: 10, latencyMs: { p50: expect.any(Number) } });
    expect(margin.body.cheapestNonInferior).toBe('scripted-good');
    // the scripted models have no price: the choice is by tokens, and says so
    expect(margin.body.cheapestBy).toBe('tokens');
    expect(margin.body.choices[0].costUsd).toBeNull();
    // the other way round, scripted-good is no worse than scripted-worse
    const reversed = await call(
      'GET',
      `/projects/${p}/eval-runs/${runId}/compare?by=model&baseModel=scripted-worse&margin=0.1`,
    );
    expect(reversed.body.comparisons[0].nonInferiority.overall.verdict).toBe('non_inferior');
    // without a margin, none of it
    expect(reply.body.comparisons[0].nonInferiority).toBeUndefined();
    expect(reply.body.choices).toBeUndefined();
    for (const bad of ['0', '1', '-0.1', 'five', '', '1e-400']) {
      const refused = await call('GET', `/projects/${p}/eval-runs/${runId}/compare?by=model&margin=${bad}`);
      expect(refused.status, `margin=${bad}`).toBe(400);
      expect(refused.body.code).toBe('VALIDATION_ERROR');
      expect(refused.body.message).toContain('margin');
    }
  });

  it('compares ingested runs alike, with the confusions (expected A, called B) and per-tool recall', async () => {
    const { call, org } = world;
    const p = org.projectId;
    const results = (prefix: string, passing: number) =>
      Array.from({ length: 10 }, (_, i) => ({
        caseTitle: 'reported case',
        query: 'reported query',
        passed: i < passing,
        durationMs: 100 + i,
        provider: 'openai',
        model: 'gpt-4.1-mini',
        expectedToolCalls: [{ toolName: 'echo', arguments: {} }],
        actualToolCalls: [{ toolName: i < passing ? 'echo' : 'get-sum', arguments: {} }],
        tokens: { input: 10, output: 5, total: 15 },
        externalIterationId: `${prefix}-${i}`,
      }));
    const report = (prefix: string, passing: number) =>
      call('POST', `/projects/${p}/eval-ingest/report`, {
        suiteName: 'Reported for comparison',
        externalRunId: prefix,
        results: results(prefix, passing),
      });
    const before = await report('cmp-1', 10);
    expect(before.status).toBe(200);
    const after = await report('cmp-2', 2);
    expect(after.status).toBe(200);
    expect(after.body.suiteId).toBe(before.body.suiteId);
    const reply = await call('GET', `/projects/${p}/eval-runs/${after.body.runId}/compare`);
    expect(reply.status).toBe(200);
    expect(reply.body.base.runId).toBe(before.body.runId);
    expect(reply.body.current.source).toBe('sdk');
    expect(reply.body.cases).toEqual([
      expect.objectContaining({ title: 'reported case', status: 'regressed', significant: true }),
    ]);
    expect(reply.body.confusions).toEqual({
      base: [],
      current: [{ expected: 'echo', called: 'get-sum', count: 8 }],
    });
    const echo = reply.body.tools.find((t: { toolName: string }) => t.toolName === 'echo');
    expect(echo.base).toMatchObject({ precision: 1, recall: 1 });
    expect(echo.current).toMatchObject({ precision: 1, recall: 0.2 });
    expect(reply.body.coverage.calledNeverExpected).toEqual(['get-sum']);
    expect(reply.body.performance.current.latencyMs.p50).toBeCloseTo(104.5, 5);
    expect(reply.body.performance.current.tokens).toEqual({ input: 100, output: 50, total: 150 });
  });

  it('answers 404 for an unknown run or base and without a previous run, 400 for mixed parameters', async () => {
    const { call, org, serverId, model } = world;
    const p = org.projectId;
    model.setScript('scripted-lone', [{ text: 'ok' }]);
    const lone = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Lone',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      tests: [{ title: 'only', query: 'nothing', model: 'scripted-lone', provider: 'openai', isNegativeTest: true }],
    });
    await waitForRun(call, p, lone.body.runId);
    const none = await call('GET', `/projects/${p}/eval-runs/${lone.body.runId}/compare`);
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ code: 'NOT_FOUND', details: { reason: 'NO_PREVIOUS_RUN' } });
    expect((await call('GET', `/projects/${p}/eval-runs/run_unknown/compare`)).status).toBe(404);
    const badBase = await call('GET', `/projects/${p}/eval-runs/${lone.body.runId}/compare?baseRunId=run_unknown`);
    expect(badBase.status).toBe(404);
    expect(badBase.body.code).toBe('NOT_FOUND');
    const mixed = await call(
      'GET',
      `/projects/${p}/eval-runs/${lone.body.runId}/compare?by=model&baseRunId=${lone.body.runId}`,
    );
    expect(mixed.status).toBe(400);
    expect(mixed.body.code).toBe('VALIDATION_ERROR');
    const unknownModel = await call(
      'GET',
      `/projects/${p}/eval-runs/${lone.body.runId}/compare?by=model&baseModel=nope`,
    );
    expect(unknownModel.status).toBe(400);
    expect((await call('GET', `/projects/${p}/eval-runs/${lone.body.runId}/compare?by=nothing`)).status).toBe(400);
  });
});
