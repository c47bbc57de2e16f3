import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import type { apiClient } from '../helpers/http.js';
import { sampleResults } from '../helpers/ingest.js';
import type { SeededOrganization } from '../helpers/seed.js';
import type { TestStack } from '../helpers/stack.js';

/** A Jest `--json` report of one test file with `tests` passing tests. */
const jestReport = (tests: number, prefix: string, duration = 1) =>
  JSON.stringify({
    testResults: [
      {
        name: `/repo/test/${prefix}.test.ts`,
        status: 'passed',
        assertionResults: Array.from({ length: tests }, (_, i) => ({
          title: `${prefix} ${i}`,
          status: 'passed',
          duration,
        })),
      },
    ],
  });

describe('bounds on the work a caller can trigger: results per artifact, cases per suite, iterations per run', () => {
  let world: EvalWorld;
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;
  const keys = { openai: 'sk-run' };

  beforeAll(async () => {
    world = await startEvalWorld({ MAX_CONCURRENT_RUNS: '5' });
    ({ stack, org, call, serverId } = world);
  });
  afterAll(async () => world?.stop());

  const ingest = (suffix: string, body: unknown) =>
    call('POST', `/projects/${org.projectId}/eval-ingest/${suffix}`, body);
  const upload = async (url: string, body: string) => {
    const response = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
    return { status: response.status, body: (await response.json()) as any };
  };
  const mint = async (body: Record<string, unknown>) =>
    (await ingest('artifacts/upload-url', body)).body.uploadUrl as string;
  const suiteByName = async (name: string) =>
    (await stack.sql`SELECT id FROM eval_suites WHERE project_id = ${org.projectId} AND name = ${name}`)[0]?.id as
      string | undefined;
  const counts = async (suiteId: string) =>
    (
      await stack.sql`SELECT (SELECT count(*) FROM eval_cases WHERE suite_id = ${suiteId})::int AS cases, (SELECT count(*) FROM eval_runs WHERE suite_id = ${suiteId})::int AS runs`
    )[0];
  const iterationCount = async (runId: string) =>
    (await stack.sql`SELECT count(*)::int AS n FROM eval_iterations WHERE run_id = ${runId}`)[0].n as number;
  /** Cases put straight into a suite: `case <i>` / `query <i>`, the identities sampleResults and test() use. */
  const seedCases = async (suiteId: string, count: number, from = 0) => {
    await stack.sql`
      INSERT INTO eval_cases (id, suite_id, title, query, runs)
      SELECT 'case_seed_' || ${suiteId} || '_' || g, ${suiteId}, 'case ' || g, 'query ' || g, 1 FROM generate_series(${from}::int, ${from + count - 1}::int) AS g`;
  };
  const test = (i: number, extra: Record<string, unknown> = {}) => ({
    title: `case ${i}`,
    query: `query ${i}`,
    model: 'quick',
    provider: 'openai',
    isNegativeTest: true,
    ...extra,
  });

  it('an artifact holds at most 10,000 tests: one past it is a 400 TOO_MANY_RESULTS, nothing is written and the URL stays usable', async () => {
    const url = await mint({ format: 'jest-json', suiteName: 'Big artifacts' });
    const tooMany = await upload(url, jestReport(10_001, 'big'));
    expect(tooMany).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        error: expect.stringContaining('10,000'),
        details: { reason: 'TOO_MANY_RESULTS', limit: 10_000, results: 10_001, format: 'jest-json' },
      },
    });
    expect(await suiteByName('Big artifacts')).toBeUndefined();
    expect(
      (
        await stack.sql`SELECT count(*)::int AS n FROM ingest_artifacts WHERE suite_name = 'Big artifacts' AND used_at IS NOT NULL`
      )[0].n,
    ).toBe(0);

    // A suite of exactly the bound fits; the suite is then full, so an artifact bringing one new test is refused,
    // while another run of the same tests is still taken.
    const fits = await upload(url, jestReport(10_000, 'big'));
    expect(fits).toMatchObject({
      status: 200,
      body: { status: 'completed', summary: { total: 10_000, passed: 10_000 } },
    });
    const suiteId = fits.body.suiteId;
    expect(await counts(suiteId)).toEqual({ cases: 10_000, runs: 1 });
    const onlyNew = await upload(
      await mint({ format: 'jest-json', suiteName: 'Big artifacts' }),
      jestReport(1, 'other'),
    );
    expect(onlyNew).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        details: { reason: 'TOO_MANY_CASES', limit: 10_000, cases: 10_000, adding: 1, suiteId },
      },
    });
    expect(await counts(suiteId)).toEqual({ cases: 10_000, runs: 1 });
    // (another report of the same tests: the same bytes again would be the same run, uploads being idempotent)
    const again = await upload(
      await mint({ format: 'jest-json', suiteName: 'Big artifacts' }),
      jestReport(10_000, 'big', 2),
    );
    expect(again).toMatchObject({ status: 200, body: { summary: { total: 10_000 } } });
    expect(await counts(suiteId)).toEqual({ cases: 10_000, runs: 2 });
  }, 180_000);

  it('a suite holds at most 10,000 cases: inline tests that would pass it are a 400 TOO_MANY_CASES, counted exactly, nothing written', async () => {
    const authored = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Grown',
      serverIds: [serverId],
      model: 'quick',
      tests: [test(0)],
    });
    expect(authored.status).toBe(201);
    const { suiteId } = authored.body;
    await seedCases(suiteId, 9_950, 1);
    // 40 of these are cases the suite holds (their runs would be updated), 60 are new: 9,951 + 60 > 10,000.
    const tests = [
      ...Array.from({ length: 40 }, (_, i) => test(i + 1, { runs: 3 })),
      ...Array.from({ length: 60 }, (_, i) => test(20_000 + i)),
    ];
    const reply = await call('POST', `/projects/${org.projectId}/eval-runs`, { suiteId, modelApiKeys: keys, tests });
    expect(reply).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        details: { reason: 'TOO_MANY_CASES', limit: 10_000, cases: 9_951, adding: 60, suiteId },
      },
    });
    expect(reply.body.message).toContain('10,000');
    expect(await counts(suiteId)).toEqual({ cases: 9_951, runs: 0 });
    expect(
      (await stack.sql`SELECT count(*)::int AS n FROM eval_cases WHERE suite_id = ${suiteId} AND runs <> 1`)[0].n,
    ).toBe(0);
  });

  it('a run plans at most 1,000 iterations: a rerun past it is a 400 TOO_MANY_ITERATIONS before anything is written', async () => {
    const authored = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Wide',
      serverIds: [serverId],
      model: 'quick',
      tests: Array.from({ length: 100 }, (_, i) => test(i, { runs: 10 })),
    });
    expect(authored.status).toBe(201);
    const { suiteId } = authored.body;
    const oneMore = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteId,
      modelApiKeys: keys,
      tests: [test(100)],
    });
    expect(oneMore).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        details: { reason: 'TOO_MANY_ITERATIONS', limit: 1_000, planned: 1_001, suiteId },
      },
    });
    expect(oneMore.body.message).toContain('1,000');
    expect(await counts(suiteId)).toEqual({ cases: 100, runs: 0 });

    // A suite grown by ingest (here straight in the database) cannot be rerun whole either; its cases are untouched.
    const grown = (
      await call('POST', `/projects/${org.projectId}/eval-suites`, {
        name: 'Grown by ingest',
        serverIds: [serverId],
        model: 'quick',
        tests: [test(0)],
      })
    ).body.suiteId;
    await seedCases(grown, 1_000, 1);
    const rerun = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteId: grown,
      modelApiKeys: keys,
      tests: [test(5, { runs: 2 })],
    });
    expect(rerun).toMatchObject({
      status: 400,
      body: { details: { reason: 'TOO_MANY_ITERATIONS', limit: 1_000, planned: 1_002 } },
    });
    expect((await stack.sql`SELECT runs FROM eval_cases WHERE suite_id = ${grown} AND title = 'case 5'`)[0].runs).toBe(
      1,
    );
    expect(await counts(grown)).toEqual({ cases: 1_001, runs: 0 });
  });

  it('a suite that grows past the bound after a run was created does not change the run: it runs what it planned', async () => {
    await stack.stopWorker();
    let runId: string;
    try {
      const started = await call('POST', `/projects/${org.projectId}/eval-runs`, {
        suiteName: 'Late growth',
        serverIds: [serverId],
        modelApiKeys: keys,
        tests: [test(0)],
      });
      expect(started.status).toBe(202);
      runId = started.body.runId;
      // The run was planned as it was created (its iterations written with it), before its workflow ran.
      expect(await iterationCount(runId)).toBe(1);
      await seedCases(started.body.suiteId, 1_000, 1);
    } finally {
      await stack.startWorker();
    }
    const run = await waitForRun(call, org.projectId, runId!);
    expect(run).toMatchObject({ status: 'completed', progress: { total: 1, completed: 1 } });
    expect(await iterationCount(runId!)).toBe(1);
  });

  it('an ingested run holds at most 10,000 iterations: a chunk past it is a 400 TOO_MANY_ITERATIONS and writes nothing; retries still answer', async () => {
    const tooBig = await ingest('runs/start', {
      suiteName: 'Long run',
      externalRunId: 'long-0',
      expectedIterations: 10_001,
    });
    expect(tooBig).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
    expect(JSON.stringify(tooBig.body)).toContain('expectedIterations');

    const start = await ingest('runs/start', {
      suiteName: 'Long run',
      externalRunId: 'long-1',
      expectedIterations: 10_000,
    });
    const { runId } = start.body;
    await stack.sql`
      INSERT INTO eval_iterations (id, run_id, title, query, iteration_number, status, result, external_iteration_id)
      SELECT 'itr_seed_' || g, ${runId}, 'seeded', '', g, 'completed', 'passed', 'seed-' || g FROM generate_series(1, 9990) AS g`;
    const past = await ingest('runs/iterations', { runId, results: sampleResults(20, { prefix: 'past' }) });
    expect(past).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        details: { reason: 'TOO_MANY_ITERATIONS', limit: 10_000, iterations: 9_990, adding: 20, runId },
      },
    });
    expect(await iterationCount(runId)).toBe(9_990);
    expect(await counts(start.body.suiteId)).toEqual({ cases: 0, runs: 1 });

    const last = sampleResults(10, { prefix: 'last' });
    expect((await ingest('runs/iterations', { runId, results: last })).body).toEqual({
      ok: true,
      inserted: 10,
      skipped: 0,
      total: 10_000,
    });
    // A retry of what the run already holds adds nothing, so it is answered as before.
    expect((await ingest('runs/iterations', { runId, results: last })).body).toEqual({
      ok: true,
      inserted: 0,
      skipped: 10,
      total: 10_000,
    });
    const one = await ingest('runs/iterations', { runId, results: sampleResults(1, { prefix: 'one' }) });
    expect(one).toMatchObject({
      status: 400,
      body: { details: { reason: 'TOO_MANY_ITERATIONS', iterations: 10_000, adding: 1 } },
    });
    // report into the same (still running) run is held to the same bound
    const report = await ingest('report', {
      suiteName: 'Long run',
      externalRunId: 'long-1',
      results: sampleResults(1, { prefix: 'report' }),
    });
    expect(report).toMatchObject({ status: 400, body: { details: { reason: 'TOO_MANY_ITERATIONS' } } });
    expect(await iterationCount(runId)).toBe(10_000);
    expect((await ingest('runs/finalize', { runId })).body).toMatchObject({
      status: 'completed',
      summary: { total: 10_000 },
    });
  });

  it('ingest into a full suite: results of new cases are a 400 TOO_MANY_CASES and write nothing, results of its cases are taken', async () => {
    const start = await ingest('runs/start', { suiteName: 'Crowded', externalRunId: 'crowded-1' });
    const { runId, suiteId } = start.body;
    await seedCases(suiteId, 9_995);
    const fresh = sampleResults(10, { prefix: 'fresh', cases: 10 }).map((r, i) => ({
      ...r,
      caseTitle: `new case ${i}`,
    }));
    const refused = await ingest('runs/iterations', { runId, results: fresh });
    expect(refused).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        details: { reason: 'TOO_MANY_CASES', limit: 10_000, cases: 9_995, adding: 10, suiteId },
      },
    });
    expect(await counts(suiteId)).toEqual({ cases: 9_995, runs: 1 });
    expect(await iterationCount(runId)).toBe(0);
    // sampleResults names `case <i>` / `query <i>`: cases the suite holds
    const known = await ingest('runs/iterations', {
      runId,
      results: sampleResults(50, { prefix: 'known', cases: 25 }),
    });
    expect(known.body).toEqual({ ok: true, inserted: 50, skipped: 0, total: 50 });
    expect(await counts(suiteId)).toEqual({ cases: 9_995, runs: 1 });
  });

  it('the OpenAPI document serves the bounds', async () => {
    const doc = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as any;
    const schemas = doc.components.schemas;
    expect(schemas.CreateEvalRun.properties.tests.maxItems).toBe(100);
    expect(schemas.IngestReport.properties.results.maxItems).toBe(200);
    expect(schemas.IngestRunStart.properties.expectedIterations.maximum).toBe(10_000);
    const runs = doc.paths['/projects/{projectId}/eval-runs'].post.description;
    expect(runs).toContain('1,000 iterations');
    expect(runs).toContain('10,000 cases');
    expect(doc.paths['/projects/{projectId}/eval-ingest/runs/iterations'].post.description).toContain(
      '10,000 iterations',
    );
    expect(doc.paths['/eval-ingest/uploads'].put.description).toContain('10,000 tests');
    expect(doc.info.description).toContain('10,000 tests per artifact');
  });
});
