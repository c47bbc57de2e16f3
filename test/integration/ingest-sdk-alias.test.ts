import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/http.js';
import { sampleResults } from '../helpers/ingest.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

describe('eval ingest: the /sdk/v1 alias and the request limits', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let api: ReturnType<typeof apiClient>;
  let sdk: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    org = await seedOrganization(stack.sql);
    api = apiClient(stack.baseUrl, org.apiKey);
    sdk = apiClient(`${stack.origin}/sdk/v1`, org.apiKey);
  });
  afterAll(async () => stack?.stop());

  it("GET /sdk/v1/info answers the SDK's capability probe, which sends no key", async () => {
    expect(await apiClient(`${stack.origin}/sdk/v1`)('GET', '/info')).toMatchObject({
      status: 200,
      body: { capabilities: { evalsHostConfig: 0 } },
    });
  });

  it("serves the ingest handlers on the key organization's default project, readable through /api/v1", async () => {
    const report = await sdk('POST', '/evals/report', {
      suiteName: 'Via SDK path',
      externalRunId: 'sdk-1',
      results: sampleResults(3),
    });
    expect(report).toMatchObject({ status: 200, body: { ok: true, status: 'completed', summary: { total: 3 } } });
    expect((await api('GET', `/projects/${org.projectId}/eval-runs/${report.body.runId}`)).body).toMatchObject({
      source: 'sdk',
      status: 'completed',
    });

    const start = await sdk('POST', '/evals/runs/start', { suiteName: 'Via SDK path', externalRunId: 'sdk-2' });
    expect(start.body).toMatchObject({ ok: true, reused: false, status: 'running', result: 'pending' });
    expect(
      (await sdk('POST', '/evals/runs/iterations', { runId: start.body.runId, results: sampleResults(2) })).body,
    ).toEqual({ ok: true, inserted: 2, skipped: 0, total: 2 });
    const finalized = await sdk('POST', '/evals/runs/finalize', { runId: start.body.runId, externalRunId: 'sdk-2' });
    expect(finalized.body).toMatchObject({ ok: true, runId: start.body.runId, status: 'completed' });
    // The same run through either path.
    expect(
      (
        await api('POST', '/projects/default/eval-ingest/runs/start', {
          suiteName: 'Via SDK path',
          externalRunId: 'sdk-2',
        })
      ).body,
    ).toMatchObject({ reused: true, runId: start.body.runId });

    const url = await sdk('POST', '/evals/artifacts/upload-url', {});
    expect(url.body.uploadUrl).toMatch(new RegExp(`^${stack.origin}/api/v1/eval-ingest/uploads\\?token=`));
  });

  it('errors there also carry an `error` string (the SDK reads only that); /api/v1 errors do not', async () => {
    const invalid = await sdk('POST', '/evals/report', { suiteName: 'x', results: [] });
    expect(invalid).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', message: expect.any(String), details: { issues: expect.any(Array) } },
    });
    expect(invalid.body.error).toBe(invalid.body.message);
    const missing = await sdk('POST', '/evals/runs/iterations', { runId: 'run_nope', results: sampleResults(1) });
    expect(missing).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND', error: expect.stringContaining('not found') },
    });
    const noKey = await apiClient(`${stack.origin}/sdk/v1`)('POST', '/evals/report', {});
    expect(noKey).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', error: expect.any(String) } });
    const unknown = await sdk('POST', '/evals/nothing-here', {});
    expect(unknown).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', error: expect.any(String) } });
    const notJson = await sdk('POST', '/evals/runs/start', '{"suiteName": ');
    expect(notJson).toMatchObject({ status: 400, body: { error: 'request body is not valid JSON' } });

    const plain = await api('POST', `/projects/${org.projectId}/eval-ingest/report`, { suiteName: 'x', results: [] });
    expect(plain.status).toBe(400);
    expect(plain.body).not.toHaveProperty('error');
  });

  it('is rate-limited like /api/v1, with Retry-After', async () => {
    const limited = await startTestStack({
      worker: false,
      database: stack.db,
      config: { RATE_LIMIT_BURST: '2', RATE_LIMIT_PER_MINUTE: '1' },
    });
    try {
      const other = await seedOrganization(stack.sql);
      const call = apiClient(`${limited.origin}/sdk/v1`, other.apiKey);
      const replies = [];
      for (let i = 0; i < 3; i++)
        replies.push(await call('POST', '/evals/runs/start', { suiteName: 'Limited', externalRunId: 'limited' }));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(replies[2].body).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('rate limit') });
      expect(Number(replies[2].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.stop();
    }
  });

  it('takes bodies up to 6 MiB (1 MiB elsewhere); beyond, 400 BODY_TOO_LARGE on both paths', async () => {
    const bigTrace = 'x'.repeat(4 * 1024 * 1024);
    const big = await api('POST', '/projects/default/eval-ingest/report', {
      suiteName: 'Big',
      externalRunId: 'big-1',
      results: [{ caseTitle: 'large trace', passed: true, trace: bigTrace, externalIterationId: 'b1' }],
    });
    expect(big.status).toBe(200);
    const [row] =
      await stack.sql`SELECT length(t.trace->'messages'->0->>'content') AS n FROM eval_traces t JOIN eval_iterations i ON i.id = t.iteration_id WHERE i.run_id = ${big.body.runId}`;
    expect(row.n).toBe(bigTrace.length);

    const tooBig = JSON.stringify({
      suiteName: 'Too big',
      externalRunId: 'big-2',
      results: [{ caseTitle: 't', passed: true, trace: 'x'.repeat(6 * 1024 * 1024) }],
    });
    for (const reply of [
      await api('POST', '/projects/default/eval-ingest/report', tooBig),
      await sdk('POST', '/evals/report', tooBig),
    ]) {
      expect(reply).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_ERROR', details: { reason: 'BODY_TOO_LARGE', limit: 6 * 1024 * 1024 } },
      });
    }
    expect((await sdk('POST', '/evals/report', tooBig)).body.error).toContain('exceeds the limit');
    // Other routes keep their 1 MiB limit.
    const host = await api('POST', `/projects/${org.projectId}/hosts`, {
      name: 'x',
      template: 'claude',
      pad: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(host.body.details.reason).toBe('BODY_TOO_LARGE');
  });

  it('takes at most 200 results per call; beyond, a 400 that says how to send more', async () => {
    const start = await sdk('POST', '/evals/runs/start', { suiteName: 'Counted', externalRunId: 'count-1' });
    const over = await sdk('POST', '/evals/runs/iterations', { runId: start.body.runId, results: sampleResults(201) });
    expect(over).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', details: { issues: [{ path: 'body.results' }] } },
    });
    expect(over.body.error).toMatch(/at most 200 results per call/);
    expect(
      (await sdk('POST', '/evals/runs/iterations', { runId: start.body.runId, results: sampleResults(200) })).body
        .inserted,
    ).toBe(200);
    const report = await sdk('POST', '/evals/report', {
      suiteName: 'Counted',
      externalRunId: 'count-2',
      results: sampleResults(201),
    });
    expect(report.status).toBe(400);
    expect(await stack.sql`SELECT id FROM eval_runs WHERE external_run_id = 'count-2'`).toHaveLength(0);
  });

  it('malformed results name the offending field', async () => {
    const reply = await sdk('POST', '/evals/report', {
      suiteName: 'Bad',
      externalRunId: 'bad-1',
      results: [{ caseTitle: 'x', passed: 'yes' }],
    });
    expect(reply).toMatchObject({ status: 400, body: { details: { issues: [{ path: 'body.results.0.passed' }] } } });
    const badSpan = await sdk('POST', '/evals/report', {
      suiteName: 'Bad',
      externalRunId: 'bad-2',
      results: [
        {
          caseTitle: 'x',
          passed: true,
          trace: { spans: [{ id: 's', name: 'n', category: 'thinking', startMs: 0, endMs: 1 }] },
        },
      ],
    });
    expect(badSpan.status).toBe(400);
    // JSON nested so deep that serializing it would overflow the stack is a 400, not a 500.
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const tooDeep = await sdk(
      'POST',
      '/evals/report',
      `{"suiteName":"Bad","externalRunId":"bad-3","results":[{"caseTitle":"x","passed":true,"trace":[{"role":"tool","content":${deep}}]}]}`,
    );
    expect(tooDeep).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        error: expect.stringContaining('nested deeper than 64 levels'),
        details: { reason: 'BODY_TOO_DEEP', limit: 64, path: 'body.results.0.trace.0' },
      },
    });
  });
});
