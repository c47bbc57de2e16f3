import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import type { apiClient } from '../helpers/http.js';
import type { ScriptedModelServer } from '../fixtures/model/server.js';
import type { SeededOrganization } from '../helpers/seed.js';
import type { TestStack } from '../helpers/stack.js';

describe('eval run rules: validation, the concurrency cap, cancellation', () => {
  let world: EvalWorld;
  let stack: TestStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;
  const keys = { openai: 'sk-run' };

  beforeAll(async () => {
    world = await startEvalWorld({
      HOSTED_MODELS: 'openai/gpt-4.1-mini anthropic/claude-sonnet-4-5',
      MAX_CONCURRENT_RUNS: '2',
    });
    ({ stack, model, org, call, serverId } = world);
  });
  afterAll(async () => world?.stop());

  const runs = () => call('POST', `/projects/${org.projectId}/eval-runs`, undefined);
  const newRun = (body: unknown) => call('POST', `/projects/${org.projectId}/eval-runs`, body);
  const test = (extra: Record<string, unknown> = {}) => ({
    title: 'case',
    query: 'question',
    model: 'slow',
    provider: 'openai',
    isNegativeTest: true,
    ...extra,
  });
  const rowCounts = async () =>
    (
      await stack.sql`SELECT (SELECT count(*) FROM eval_runs)::int AS runs, (SELECT count(*) FROM eval_suites)::int AS suites, (SELECT count(*) FROM eval_cases)::int AS cases`
    )[0];

  it.each([
    ['an empty body', {}, 'suiteName'],
    ['inline tests without a suite identity', { tests: [test()] }, 'inline tests need a suite identity'],
    ['a new suite without tests', { suiteName: 'x', serverIds: ['srv_x'] }, 'tests'],
    ['a new suite without serverIds', { suiteName: 'x', tests: [test()] }, 'serverIds'],
    ['an empty suiteName', { suiteName: '', tests: [test()], serverIds: ['s'] }, 'suiteName'],
    ['empty serverIds', { suiteName: 'x', tests: [test()], serverIds: [] }, 'serverIds'],
    [
      'more than 100 inline tests',
      { suiteName: 'x', serverIds: ['s'], tests: Array.from({ length: 101 }, (_, i) => test({ title: `t${i}` })) },
      'at most 100',
    ],
    ['iterationOverride 0', { suiteId: 'sui_x', iterationOverride: 0 }, 'iterationOverride'],
    ['iterationOverride 11', { suiteId: 'sui_x', iterationOverride: 11 }, 'iterationOverride'],
    ['runs of 11', { suiteName: 'x', serverIds: ['s'], tests: [test({ runs: 11 })] }, 'runs'],
    ['a test without a query', { suiteName: 'x', serverIds: ['s'], tests: [{ title: 't' }] }, 'query'],
    [
      'a non-object modelApiKeys',
      { suiteName: 'x', serverIds: ['s'], tests: [test()], modelApiKeys: 'sk' },
      'modelApiKeys',
    ],
    [
      'minimumPassRate over 100',
      { suiteName: 'x', serverIds: ['s'], tests: [test()], passCriteria: { minimumPassRate: 101 } },
      'minimumPassRate',
    ],
  ])('rejects %s with 400 VALIDATION_ERROR and writes nothing', async (_label, body, mention) => {
    const before = await rowCounts();
    const reply = await newRun(body);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(reply.body)).toContain(mention);
    expect(await rowCounts()).toEqual(before);
  });

  it('an empty request body is 400 too', async () => {
    expect((await runs()).status).toBe(400);
  });

  it('rejects a model the API cannot execute, listing the hosted ids of that provider', async () => {
    const before = await rowCounts();
    const unknownHosted = await newRun({
      suiteName: 'm',
      serverIds: [serverId],
      tests: [test({ model: 'openai/gpt-9', provider: undefined })],
    });
    expect(unknownHosted.status).toBe(400);
    expect(unknownHosted.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { model: 'openai/gpt-9', hostedModels: ['openai/gpt-4.1-mini'] },
    });
    // the organization has an openai key, not an anthropic one
    const bareWithoutKey = await newRun({
      suiteName: 'm',
      serverIds: [serverId],
      tests: [test({ model: 'claude-3', provider: 'anthropic' })],
    });
    expect(bareWithoutKey.status).toBe(400);
    expect(bareWithoutKey.body.details).toMatchObject({
      model: 'claude-3',
      provider: 'anthropic',
      reason: 'MODEL_KEY_MISSING',
    });
    const noModel = await newRun({ suiteName: 'm', serverIds: [serverId], tests: [{ title: 'x', query: 'y' }] });
    expect(noModel.status).toBe(400);
    expect(await rowCounts()).toEqual(before);
  });

  it('404 for an unknown suite or server; 400 NO_SAVED_SERVER_SELECTION for a suite without servers', async () => {
    expect((await newRun({ suiteId: 'sui_unknown' })).status).toBe(404);
    const unknownServer = await newRun({
      suiteName: 's',
      serverIds: ['srv_unknown'],
      tests: [test()],
      modelApiKeys: keys,
    });
    expect(unknownServer).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });

    // A suite without servers: one that reported results made (POST /eval-suites needs servers).
    const reported = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
      suiteName: 'No servers',
      externalRunId: 'no-servers',
      results: [
        { caseTitle: 'case', query: 'question', model: 'slow', provider: 'openai', isNegativeTest: true, passed: true },
      ],
    });
    expect(reported.status).toBe(200);
    const authored = { body: { suiteId: reported.body.suiteId as string } };
    const rerun = await newRun({ suiteId: authored.body.suiteId, modelApiKeys: keys });
    expect(rerun.status).toBe(400);
    expect(rerun.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { suiteId: authored.body.suiteId, reason: 'NO_SAVED_SERVER_SELECTION' },
    });
    // Its case holds the reported result only (ingested cases are not run): the rerun writes it as a test.
    const withServers = await newRun({
      suiteId: authored.body.suiteId,
      serverIds: [serverId],
      modelApiKeys: keys,
      tests: [test()],
    });
    expect(withServers.status).toBe(202);
    await waitForRun(call, org.projectId, withServers.body.runId);
  });

  it('reports per-case upsert failures without aborting the run', async () => {
    model.setScript('quick', [{ text: 'ok' }]);
    const reply = await newRun({
      suiteName: 'Partial',
      serverIds: [serverId],
      modelApiKeys: keys,
      tests: [
        test({ model: 'quick', title: 'a' }),
        test({ model: 'quick', title: 'a' }),
        test({ model: 'quick', title: 'b' }),
      ],
    });
    expect(reply.status).toBe(202);
    expect(reply.body.caseUpsert).toEqual({
      committed: [
        { id: expect.any(String), name: 'a' },
        { id: expect.any(String), name: 'b' },
      ],
      failed: [{ name: 'a', error: expect.stringContaining('duplicate') }],
    });
    expect(await waitForRun(call, org.projectId, reply.body.runId)).toMatchObject({
      status: 'completed',
      progress: { total: 2 },
    });
  });

  it('caps running runs per organization (429 CONCURRENT_RUN_LIMIT), cancels a run keeping what finished, and frees the slot', async () => {
    // the first iteration of each run finishes at once; the second blocks in the model for a long time
    model.setScript('slow', { byQuery: { fast: [{ text: 'quick' }], slow: [{ text: 'late', delayMs: 120_000 }] } });
    const slowSuite = (name: string) => ({
      suiteName: name,
      serverIds: [serverId],
      modelApiKeys: keys,
      tests: [test({ title: 'fast', query: 'fast' }), test({ title: 'slow', query: 'slow' })],
    });
    const first = await newRun(slowSuite('Slow 1'));
    const second = await newRun(slowSuite('Slow 2'));
    expect([first.status, second.status]).toEqual([202, 202]);

    const third = await newRun(slowSuite('Slow 3'));
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({
      code: 'RATE_LIMITED',
      details: { reason: 'CONCURRENT_RUN_LIMIT', maxConcurrentRuns: 2 },
    });
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // wait until the slow iteration is in the model, then cancel
    await waitForRun(call, org.projectId, first.body.runId, (r) => r.progress.completed === 1);
    const deadline = Date.now() + 10_000;
    while (
      !model.calls('slow').some((c) => c.lastUserText === 'slow' && c.outcome === 'pending') &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 50));
    const cancel = await call('POST', `/projects/${org.projectId}/eval-runs/${first.body.runId}/cancel`);
    expect(cancel.status).toBe(202);
    const cancelled = await waitForRun(call, org.projectId, first.body.runId, undefined, 20_000);
    expect(cancelled).toMatchObject({ status: 'cancelled', result: null, summary: { total: 1, passed: 1 } });
    const iterations = await allIterations(call, org.projectId, first.body.runId);
    expect(iterations.map((i) => [i.title, i.status])).toEqual([
      ['fast', 'completed'],
      ['slow', 'cancelled'],
    ]);
    // the in-flight model request was aborted, not left running
    await new Promise((r) => setTimeout(r, 200));
    expect(
      model
        .calls('slow')
        .filter((c) => c.lastUserText === 'slow')
        .some((c) => c.outcome === 'aborted'),
    ).toBe(true);

    const again = await call('POST', `/projects/${org.projectId}/eval-runs/${first.body.runId}/cancel`);
    expect(again).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });

    const fourth = await newRun(slowSuite('Slow 4'));
    expect(fourth.status).toBe(202);
    for (const id of [second.body.runId, fourth.body.runId]) {
      await call('POST', `/projects/${org.projectId}/eval-runs/${id}/cancel`);
      await waitForRun(call, org.projectId, id, undefined, 20_000);
    }
  });
});
