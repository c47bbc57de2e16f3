import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';

/*
 * Issue 29, item 1: cases that ingest creates hold reported results only. A run of their suite plans the runnable
 * cases, leaves the ingested ones out and says so; a suite with nothing runnable is refused naming that; a case
 * without a model is named when a run is refused for it; databases written before this (ingested cases stored as
 * runnable ones) run again after the migration.
 */

const MIGRATION = new URL('../../db/migrations/058_ingested_cases.sql', import.meta.url);

describe('ingested cases are results only: runs of their suite plan the runnable cases', () => {
  let world: EvalWorld;
  let p: string;

  beforeAll(async () => {
    world = await startEvalWorld({ MAX_CONCURRENT_RUNS: '10' });
    p = world.org.projectId;
    world.model.setScript('scripted', {
      byQuery: {
        'echo hello': [{ toolCalls: [{ name: 'echo', arguments: { message: 'hello' } }] }, { text: 'It said hello.' }],
      },
      default: [{ text: 'Hello there.' }],
    });
  });
  afterAll(async () => world?.stop());

  const echo = (title = 'echo') => ({
    title,
    query: 'echo hello',
    model: 'scripted',
    provider: 'openai',
    expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
  });
  const newSuite = async (name: string, tests: object[]) => {
    const reply = await world.call('POST', `/projects/${p}/eval-runs`, {
      suiteName: name,
      serverIds: [world.serverId],
      modelApiKeys: { openai: 'k' },
      tests,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    await waitForRun(world.call, p, reply.body.runId);
    return reply.body.suiteId as string;
  };
  /** What a JUnit report of that suite makes ingest send: the classname as the query, no model. */
  const junitLike = (titles: string[], suiteName: string, prefix: string) =>
    titles.map((title, i) => ({
      caseTitle: title,
      query: suiteName,
      passed: true,
      externalIterationId: `${prefix}-${i}`,
    }));
  const report = (suiteName: string, externalRunId: string, results: object[]) =>
    world.call('POST', `/projects/${p}/eval-ingest/report`, { suiteName, externalRunId, results });
  const cases = async (suiteId: string) =>
    (await world.call('GET', `/projects/${p}/eval-suites/${suiteId}/cases`)).body.items as {
      id: string;
      title: string;
      prompt: string;
      ingested?: boolean;
    }[];
  const rerun = (suiteId: string, extra: object = {}) =>
    world.call('POST', `/projects/${p}/eval-runs`, { suiteId, modelApiKeys: { openai: 'k' }, ...extra });

  it('a run of a suite that ingest reported into plans only its runnable cases and says how many it left out and why', async () => {
    const suiteId = await newSuite('Authored then reported', [echo()]);
    const reported = await report('Authored then reported', 'ingest-1', [
      ...junitLike(['echo', 'small talk'], 'Authored then reported', 'junit'),
      // an SDK reporter's result: a prompt and a model of its own; still a result, not a case Runway runs
      { caseTitle: 'sdk case', query: 'say hi', model: 'gpt-4.1-mini', provider: 'openai', passed: false },
    ]);
    expect(reported.status, JSON.stringify(reported.body)).toBe(200);
    expect(reported.body.suiteId).toBe(suiteId);

    const listed = await cases(suiteId);
    expect(listed.map((c) => [c.title, c.ingested ?? false])).toEqual([
      ['echo', false],
      ['echo', true],
      ['small talk', true],
      ['sdk case', true],
    ]);

    const run = await rerun(suiteId);
    expect(run.status, JSON.stringify(run.body)).toBe(202);
    expect(run.body.leftOut).toEqual({
      cases: 3,
      reason: 'INGESTED_RESULTS_ONLY',
      message: expect.stringMatching(/^3 cases of the suite were left out: .*created by ingest/),
    });
    const finished = await waitForRun(world.call, p, run.body.runId);
    expect(finished).toMatchObject({ status: 'completed', result: 'passed', summary: { total: 1, passed: 1 } });
    const iterations = await allIterations(world.call, p, run.body.runId);
    expect(iterations.map((i) => i.testCaseId)).toEqual([listed[0].id]);

    // Nothing left out, nothing said.
    const plain = await rerun(await newSuite('Only authored', [echo()]));
    expect(plain.status).toBe(202);
    expect(plain.body).not.toHaveProperty('leftOut');
    await waitForRun(world.call, p, plain.body.runId);
  });

  it('a suite with no runnable case is a 400 naming that, with what to do; nothing is written', async () => {
    const reported = await report('Only reported', 'only-1', junitLike(['a', 'b'], 'Only reported', 'only'));
    expect(reported.status).toBe(200);
    const { suiteId } = reported.body;
    const runsBefore = (await world.call('GET', `/projects/${p}/eval-suites/${suiteId}/runs`)).body.items.length;
    const refused = await rerun(suiteId, { serverIds: [world.serverId] });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { suiteId, reason: 'NO_RUNNABLE_CASES', ingestedCases: 2 },
    });
    expect(refused.body.message).toMatch(/no case to run: its 2 cases .*ingest/);
    expect(refused.body.message).toContain(`/eval-suites/${suiteId}/cases`);
    expect((await world.call('GET', `/projects/${p}/eval-suites/${suiteId}/runs`)).body.items).toHaveLength(runsBefore);
  });

  it('writing a case with the identity of an ingested one makes it runnable; "model is required" names the case', async () => {
    const reported = await report('Taken over', 'taken-1', [
      ...junitLike(['first', 'second'], 'Taken over', 'taken'),
      { caseTitle: 'third', query: 'echo hello', passed: true },
    ]);
    const { suiteId } = reported.body;
    const [first, second] = await cases(suiteId);

    // An inline test with the title and prompt of an ingested case is that case, written: it runs from now on.
    const withTest = await rerun(suiteId, { serverIds: [world.serverId], tests: [echo('third')] });
    expect(withTest.status, JSON.stringify(withTest.body)).toBe(202);
    expect(withTest.body.leftOut).toMatchObject({ cases: 2 });
    await waitForRun(world.call, p, withTest.body.runId);
    expect((await cases(suiteId)).find((c) => c.title === 'third')).not.toHaveProperty('ingested');

    // An edit takes a case over as well; this one has no model, and the suite no default one: the refusal names it.
    const edited = await world.call('PATCH', `/projects/${p}/eval-suites/${suiteId}/cases/${first.id}`, {
      prompt: 'echo hello',
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).not.toHaveProperty('ingested');
    const noModel = await rerun(suiteId, { serverIds: [world.serverId] });
    expect(noModel.status).toBe(400);
    expect(noModel.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'MODEL_REQUIRED', caseId: first.id, caseTitle: 'first' },
    });
    expect(noModel.body.message).toContain(`case "first" (${first.id})`);
    expect(noModel.body.message).toMatch(/has no model/);
    expect((await cases(suiteId)).find((c) => c.id === second.id)).toMatchObject({ ingested: true });
  });

  it('an inline test without a model is named by its place in the request', async () => {
    const reply = await world.call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'No model',
      serverIds: [world.serverId],
      tests: [echo('fine'), { title: 'modelless', query: 'hello' }],
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ details: { reason: 'MODEL_REQUIRED', caseTitle: 'modelless', test: 1 } });
    expect(reply.body.message).toMatch(/^case "modelless" \(tests\[1\]\) has no model/);
  });

  it('results reported under an authored case stay with it, and it stays runnable; ingest stays idempotent', async () => {
    const suiteId = await newSuite('Shared identity', [echo()]);
    const sdk = { caseTitle: 'echo', query: 'echo hello', model: 'scripted', provider: 'openai', passed: true };
    const first = await report('Shared identity', 'shared-1', [{ ...sdk, externalIterationId: 's-1' }]);
    const again = await report('Shared identity', 'shared-1', [{ ...sdk, externalIterationId: 's-1' }]);
    expect(again.body).toMatchObject({ runId: first.body.runId, suiteId });
    const listed = await cases(suiteId);
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('ingested');
    const [reportedIteration] = await allIterations(world.call, p, first.body.runId);
    expect(reportedIteration.testCaseId).toBe(listed[0].id);
    const run = await rerun(suiteId);
    expect(run.status).toBe(202);
    expect(run.body).not.toHaveProperty('leftOut');
    await waitForRun(world.call, p, run.body.runId);

    // The chunked flow, retried: the same cases, still ingested.
    const start = { suiteName: 'Chunked', externalRunId: 'chunked-1' };
    const started = await world.call('POST', `/projects/${p}/eval-ingest/runs/start`, start);
    const chunk = { runId: started.body.runId, results: junitLike(['x', 'y'], 'Chunked', 'chunk') };
    expect((await world.call('POST', `/projects/${p}/eval-ingest/runs/iterations`, chunk)).body).toMatchObject({
      inserted: 2,
    });
    expect((await world.call('POST', `/projects/${p}/eval-ingest/runs/iterations`, chunk)).body).toMatchObject({
      inserted: 0,
      skipped: 2,
    });
    expect((await cases(started.body.suiteId)).map((c) => c.ingested)).toEqual([true, true]);
  });

  it('a database written before ingested cases existed runs again after the migration', async () => {
    const { stack } = world;
    // As ingest stored them before: the report's cases as runnable cases, in the suite the CLI runs.
    const suiteId = await newSuite('Legacy demo', [echo()]);
    await report('Legacy demo', 'legacy-1', junitLike(['echo', 'small talk'], 'Legacy demo', 'legacy'));
    // An SDK reporter's case that Runway then ran (it had a model): a runnable case that must stay one.
    const sdkSuite = (
      await report('Legacy SDK', 'legacy-sdk', [
        { caseTitle: 'ran', query: 'echo hello', model: 'scripted', provider: 'openai', passed: true },
      ])
    ).body.suiteId as string;
    await stack.sql`UPDATE eval_cases SET ingested = false WHERE suite_id IN (${suiteId}, ${sdkSuite})`;
    const ranBefore = await rerun(sdkSuite, { serverIds: [world.serverId] });
    expect(ranBefore.status, JSON.stringify(ranBefore.body)).toBe(202);
    await waitForRun(world.call, p, ranBefore.body.runId);

    const broken = await rerun(suiteId);
    expect(broken.status).toBe(400);
    expect(broken.body.details).toMatchObject({ reason: 'MODEL_REQUIRED', caseTitle: 'echo' });

    await stack.sql.unsafe(readFileSync(MIGRATION, 'utf8'));

    const fixed = await rerun(suiteId);
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(202);
    expect(fixed.body.leftOut).toMatchObject({ cases: 2, reason: 'INGESTED_RESULTS_ONLY' });
    expect(await waitForRun(world.call, p, fixed.body.runId)).toMatchObject({ result: 'passed' });
    expect((await cases(sdkSuite))[0]).not.toHaveProperty('ingested');
    const sdkRun = await rerun(sdkSuite, { serverIds: [world.serverId] });
    expect(sdkRun.status).toBe(202);
    await waitForRun(world.call, p, sdkRun.body.runId);
  });
});
