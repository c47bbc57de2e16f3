import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { sampleResults } from '../helpers/ingest.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** Clients retry on 429, 5xx and network errors, so every ingest call may arrive twice, or many times at once. */
describe('eval ingest: every call is idempotent', () => {
  const PARALLEL = 8;
  let stack: TestStack;
  let org: SeededOrganization;
  let ingest: (suffix: string, body: unknown) => Promise<{ status: number; body: any }>;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    org = await seedOrganization(stack.sql);
    const call = apiClient(stack.baseUrl, org.apiKey);
    ingest = (suffix, body) => call('POST', `/projects/${org.projectId}/eval-ingest/${suffix}`, body);
  });
  afterAll(async () => stack?.stop());

  const runsWith = async (externalRunId: string) =>
    (
      await stack.sql<
        { id: string }[]
      >`SELECT id FROM eval_runs WHERE project_id = ${org.projectId} AND external_run_id = ${externalRunId}`
    ).map((r) => r.id);
  const iterationCount = async (runId: string) =>
    (await stack.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM eval_iterations WHERE run_id = ${runId}`)[0].n;

  it('start with a known externalRunId reuses the run; once finished it is returned with its summary', async () => {
    const body = { suiteName: 'Reuse', externalRunId: 'reuse-1' };
    const first = await ingest('runs/start', body);
    const again = await ingest('runs/start', body);
    expect(again.body).toEqual({ ...first.body, reused: true });
    await ingest('runs/iterations', { runId: first.body.runId, results: sampleResults(3) });
    await ingest('runs/finalize', { runId: first.body.runId, externalRunId: 'reuse-1' });
    const afterFinish = await ingest('runs/start', body);
    expect(afterFinish.body).toEqual({
      ok: true,
      reused: true,
      suiteId: first.body.suiteId,
      runId: first.body.runId,
      status: 'completed',
      result: 'passed',
      summary: expect.objectContaining({ total: 3, passed: 3, failed: 0 }),
    });
  });

  it('iterations already received are skipped, within a call and across calls', async () => {
    const {
      body: { runId },
    } = await ingest('runs/start', { suiteName: 'Dedupe', externalRunId: 'dedupe-1' });
    const results = sampleResults(10, { prefix: 'dd' });
    expect((await ingest('runs/iterations', { runId, results: results.slice(0, 6) })).body).toEqual({
      ok: true,
      inserted: 6,
      skipped: 0,
      total: 6,
    });
    // a retry of the same batch, then an overlapping one carrying a duplicate of its own
    expect((await ingest('runs/iterations', { runId, results: results.slice(0, 6) })).body).toEqual({
      ok: true,
      inserted: 0,
      skipped: 6,
      total: 6,
    });
    expect((await ingest('runs/iterations', { runId, results: [...results.slice(4), results[9]] })).body).toEqual({
      ok: true,
      inserted: 4,
      skipped: 3,
      total: 10,
    });
    const finished = await ingest('runs/finalize', { runId });
    expect(finished.body.summary.total).toBe(10);
    // Retries that reach a finalized run are still answered; only new results are refused.
    expect((await ingest('runs/iterations', { runId, results: results.slice(0, 2) })).body).toEqual({
      ok: true,
      inserted: 0,
      skipped: 2,
      total: 10,
    });
    const late = await ingest('runs/iterations', { runId, results: sampleResults(1, { prefix: 'late' }) });
    expect(late).toMatchObject({
      status: 409,
      body: { code: 'CONFLICT', details: { reason: 'RUN_FINALIZED', status: 'completed' } },
    });
    expect(await iterationCount(runId)).toBe(10);
  });

  it('finalizing twice changes nothing', async () => {
    const {
      body: { runId },
    } = await ingest('runs/start', { suiteName: 'Finalize twice', externalRunId: 'fin-1' });
    await ingest('runs/iterations', { runId, results: sampleResults(4) });
    const first = await ingest('runs/finalize', { runId, externalRunId: 'fin-1' });
    const [before] = await stack.sql`SELECT completed_at, summary FROM eval_runs WHERE id = ${runId}`;
    const second = await ingest('runs/finalize', { externalRunId: 'fin-1' });
    expect(second.body).toEqual(first.body);
    const [after] = await stack.sql`SELECT completed_at, summary FROM eval_runs WHERE id = ${runId}`;
    expect(after).toEqual(before);
    expect((await ingest('runs/finalize', { runId, externalRunId: 'another-id' })).status).toBe(404);
    expect((await ingest('runs/finalize', {})).status).toBe(400);
  });

  it('report with a known externalRunId returns the existing run; one still running gets the results and is finalized', async () => {
    const body = { suiteName: 'Report twice', externalRunId: 'rep-1', results: sampleResults(5) };
    const first = await ingest('report', body);
    const second = await ingest('report', { ...body, results: sampleResults(7, { prefix: 'other' }) });
    expect(second.body).toEqual(first.body);
    expect(await iterationCount(first.body.runId)).toBe(5);

    const started = await ingest('runs/start', { suiteName: 'Report after start', externalRunId: 'rep-2' });
    await ingest('runs/iterations', { runId: started.body.runId, results: sampleResults(3) });
    const reported = await ingest('report', {
      suiteName: 'Report after start',
      externalRunId: 'rep-2',
      results: sampleResults(5),
    });
    expect(reported.body).toMatchObject({ runId: started.body.runId, status: 'completed', summary: { total: 5 } });
  });

  it('concurrent duplicate starts create one run', async () => {
    const replies = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        ingest('runs/start', { suiteName: 'Racing starts', externalRunId: 'race-start' }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(PARALLEL).fill(200));
    expect(new Set(replies.map((r) => r.body.runId)).size).toBe(1);
    expect(replies.filter((r) => !r.body.reused)).toHaveLength(1);
    expect(await runsWith('race-start')).toEqual([replies[0].body.runId]);
    const [{ n }] =
      await stack.sql`SELECT count(*)::int AS n FROM eval_suites WHERE project_id = ${org.projectId} AND name = 'Racing starts'`;
    expect(n).toBe(1);
  });

  it('concurrent duplicate reports create one run with one set of iterations', async () => {
    const body = {
      suiteName: 'Racing reports',
      externalRunId: 'race-report',
      results: sampleResults(50, { cases: 7 }),
    };
    const replies = await Promise.all(Array.from({ length: PARALLEL }, () => ingest('report', body)));
    expect(replies.map((r) => r.status)).toEqual(Array(PARALLEL).fill(200));
    for (const reply of replies) expect(reply.body).toEqual(replies[0].body);
    expect(await runsWith('race-report')).toEqual([replies[0].body.runId]);
    expect(await iterationCount(replies[0].body.runId)).toBe(50);
    expect(replies[0].body.summary.total).toBe(50);
  });

  it('concurrent duplicate and overlapping iteration batches store each result once, numbered without gaps', async () => {
    const {
      body: { runId },
    } = await ingest('runs/start', { suiteName: 'Racing batches', externalRunId: 'race-batches' });
    const results = sampleResults(200, { cases: 4 });
    const batches = [
      results,
      results,
      results.slice(0, 100),
      results.slice(100),
      results.slice(50, 150),
      results,
      results.slice(150),
      results.slice(0, 10),
    ];
    const replies = await Promise.all(batches.map((batch) => ingest('runs/iterations', { runId, results: batch })));
    expect(replies.map((r) => r.status)).toEqual(Array(batches.length).fill(200));
    expect(replies.reduce((sum, r) => sum + r.body.inserted, 0)).toBe(200);
    expect(replies.map((r) => r.body.inserted + r.body.skipped)).toEqual(batches.map((b) => b.length));
    const iterations = await allIterations(apiClient(stack.baseUrl, org.apiKey), org.projectId, runId, 200);
    expect(iterations).toHaveLength(200);
    expect(new Set(iterations.map((i) => i.externalIterationId)).size).toBe(200);
    for (const title of ['case 0', 'case 1', 'case 2', 'case 3']) {
      expect(
        iterations
          .filter((i) => i.title === title)
          .map((i) => i.iterationNumber)
          .sort((a, b) => a - b),
      ).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    }
  });

  it('concurrent finalizes, also racing a last batch, end with one consistent summary', async () => {
    const {
      body: { runId },
    } = await ingest('runs/start', { suiteName: 'Racing finalize', externalRunId: 'race-finalize' });
    await ingest('runs/iterations', { runId, results: sampleResults(20) });
    const replies = await Promise.all(
      Array.from({ length: PARALLEL }, () => ingest('runs/finalize', { runId, externalRunId: 'race-finalize' })),
    );
    for (const reply of replies) expect(reply.body).toEqual(replies[0].body);
    expect(replies[0].body.summary.total).toBe(20);

    // A batch and a finalize in flight together: either the batch lands first and is counted, or it is refused.
    const { body: raced } = await ingest('runs/start', {
      suiteName: 'Racing finalize',
      externalRunId: 'race-finalize-2',
    });
    const [batch, finalized] = await Promise.all([
      ingest('runs/iterations', { runId: raced.runId, results: sampleResults(30) }),
      ingest('runs/finalize', { runId: raced.runId }),
    ]);
    const stored = await iterationCount(raced.runId);
    expect(finalized.body.summary.total).toBe(stored);
    expect(batch.status === 200 ? stored === 30 : batch.status === 409 && stored === 0).toBe(true);
  });
});
