import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteOverviewSchema } from '../../api/schemas/suiteOverview.js';
import { expectUnharmed, healthzDuring, healthzWorstMs } from '../helpers/fairness.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const CASES = 4_000;
const RUNS = 20;

/**
 * Issue 27, finding 7: a suite of 4,000 cases with 20 runs made GET .../overview answer 14.6 MB in 0.9 s, stalling
 * every other request meanwhile. The cases come in pages now; the page is bounded whatever the suite holds.
 */
describe('GET /eval-suites/{suiteId}/overview of a large suite', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let suiteId: string;
  let otherSuiteId: string;
  const path = () => `/projects/${org.projectId}/eval-suites/${suiteId}/overview`;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    // 20 reported runs of one suite (one result each), then 4,000 more cases and one iteration per case and run,
    // straight into the tables: cheap, and the same rows a run writes.
    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const reply = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
        suiteName: 'Large',
        externalRunId: `large-${i}`,
        results: [{ caseTitle: 'first', query: 'first', passed: true, durationMs: 1, externalIterationId: `f${i}` }],
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      suiteId = reply.body.suiteId;
      runIds.push(reply.body.runId);
    }
    await stack.sql`
      INSERT INTO eval_cases (id, suite_id, title, query, runs)
      SELECT 'case_big_' || g, ${suiteId}, 'a case of a large suite, number ' || g, 'query ' || g, 1
      FROM generate_series(1, ${CASES}::int) AS g`;
    await stack.sql`
      INSERT INTO eval_iterations (id, run_id, case_id, title, query, iteration_number, status, result)
      SELECT 'itr_big_' || r.n || '_' || g, r.id, 'case_big_' || g, 'case ' || g, '', 1, 'completed',
             CASE WHEN (g + r.n) % 3 = 0 THEN 'failed' ELSE 'passed' END
      FROM generate_series(1, ${CASES}::int) AS g,
           unnest(${runIds}::text[]) WITH ORDINALITY AS r(id, n)`;
    const other = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
      suiteName: 'Other',
      externalRunId: 'other-0',
      results: [{ caseTitle: 'x', query: 'x', passed: true, durationMs: 1, externalIterationId: 'x' }],
    });
    otherSuiteId = other.body.suiteId;
  }, 120_000);
  afterAll(async () => stack?.stop());

  it('answers one bounded page of cases with a cursor to the next, each with its whole history', async () => {
    const reply = await fetch(`${stack.baseUrl}${path()}`, { headers: { authorization: `Bearer ${org.apiKey}` } });
    expect(reply.status).toBe(200);
    const text = await reply.text();
    expect(text.length, 'bytes of one overview').toBeLessThan(256 * 1024);
    const body = suiteOverviewSchema.parse(JSON.parse(text));
    expect(body.runs).toHaveLength(RUNS);
    expect(body.cases.length).toBeGreaterThan(0);
    expect(body.cases.length).toBeLessThanOrEqual(100);
    expect(body.casesNextCursor).toEqual(expect.any(String));
    for (const c of body.cases) expect(c.history).toHaveLength(RUNS);
    // A case's history is its own: 2 of 3 iterations of case_big_<g> pass over the runs (as seeded).
    const seeded = body.cases.find((c) => c.id === 'case_big_1')!;
    expect(seeded.history.map((h) => h.passRate)).toEqual(
      Array.from({ length: RUNS }, (_, i) => ((1 + i + 1) % 3 === 0 ? 0 : 1)),
    );
  });

  it('pages through every case once, oldest first, with casesLimit clamped to 1..200', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const query = new URLSearchParams({ casesLimit: '200', ...(cursor ? { casesCursor: cursor } : {}) });
      const reply = await call('GET', `${path()}?${query}`);
      expect(reply.status, JSON.stringify(reply.body).slice(0, 500)).toBe(200);
      expect(reply.body.cases.length).toBeLessThanOrEqual(200);
      seen.push(...reply.body.cases.map((c: { id: string }) => c.id));
      cursor = reply.body.casesNextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil((CASES + 1) / 200));
    expect(new Set(seen).size).toBe(CASES + 1);
    const ids = (await stack.sql`SELECT id FROM eval_cases WHERE suite_id = ${suiteId} ORDER BY created_at, id`).map(
      (r) => r.id as string,
    );
    expect(seen).toEqual(ids);

    const huge = await call('GET', `${path()}?casesLimit=100000`);
    expect(huge.body.cases).toHaveLength(200);
    const one = await call('GET', `${path()}?casesLimit=0`);
    expect(one.body.cases).toHaveLength(1);
  });

  it("refuses a cursor that is not this suite's (400 INVALID_CURSOR)", async () => {
    const first = await call('GET', `${path()}?casesLimit=1`);
    const foreign = await call(
      'GET',
      `/projects/${org.projectId}/eval-suites/${otherSuiteId}/overview?casesCursor=${first.body.casesNextCursor}`,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'INVALID_CURSOR' } });
    const forged = await call('GET', `${path()}?casesCursor=abc.def`);
    expect(forged.status).toBe(400);
  });

  it('keeps /healthz at its normal time while overviews are read concurrently', async () => {
    const baseline = await healthzWorstMs(stack.origin);
    const { worstMs } = await healthzDuring(stack.origin, async () => {
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            const reply = await call('GET', path());
            expect(reply.status).toBe(200);
          }),
        );
      }
    });
    // x8: on a loaded 2-core CI machine it measured x6 once (150 ms against the 25 ms floor), passing elsewhere.
    expectUnharmed('healthz during overviews', baseline, worstMs, 8);
  }, 120_000);
});
