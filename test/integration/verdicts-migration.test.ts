import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../db/migrate.js';
import { countVerdicts } from '../../domain/evals/verdicts.js';
import { allIterations } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const MIGRATION = '059_disjoint_verdicts.sql';

/*
 * Issue 29 item 6: runs finished before passed, failed and errored were told apart (domain/evals/verdicts.ts) stored
 * summaries whose `failed` counted the errored iterations too (and the oldest had no `errored` at all), and ingest
 * stored a passed result with an error as `failed`. The migration brings them to the definition, so an old run reads
 * as a new one does: its summary agrees with its progress and with its iterations.
 */
describe('migration: stored runs follow the one definition of passed, failed and errored', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
  });
  afterAll(async () => stack?.stop());

  const report = async (externalRunId: string) => {
    const result = (caseTitle: string, passed: boolean, extra: object = {}) => ({
      caseTitle,
      passed,
      externalIterationId: caseTitle,
      ...extra,
    });
    const reply = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
      suiteName: `Old ${externalRunId}`,
      externalRunId,
      results: [
        result('passed', true),
        result('passed with a remark', true, { error: 'retried once' }),
        result('failed', false),
        result('errored', false, { error: 'model timed out' }),
      ],
    });
    expect(reply.status).toBe(200);
    return reply.body.runId as string;
  };
  const read = async (runId: string) => {
    const run = (await call('GET', `/projects/${org.projectId}/eval-runs/${runId}`)).body;
    return { run, counts: countVerdicts(await allIterations(call, org.projectId, runId)) };
  };

  it('rewrites what the earlier reading stored: failed without the errored, errored counted, a passed row completed', async () => {
    const [withErrored, withoutErrored, current] = [await report('old-1'), await report('old-2'), await report('new')];
    const before = await read(current);
    // As the earlier reading stored them: failed = total - passed, and ingest's passed result with an error `failed`.
    await stack.sql`
      UPDATE eval_runs SET summary = summary || jsonb_build_object('failed', 2)
      WHERE id IN (${withErrored}, ${withoutErrored})`;
    await stack.sql`UPDATE eval_runs SET summary = summary - 'errored' WHERE id = ${withoutErrored}`;
    await stack.sql`
      UPDATE eval_iterations SET status = 'failed'
      WHERE run_id IN (${withErrored}, ${withoutErrored}) AND title = 'passed with a remark'`;

    await stack.sql`DELETE FROM schema_migrations WHERE name = ${MIGRATION}`;
    expect(await migrate(stack.sql)).toEqual([MIGRATION]);

    for (const runId of [withErrored, withoutErrored, current]) {
      const { run, counts } = await read(runId);
      expect(run.summary).toMatchObject({ total: 4, passed: 2, failed: 1, errored: 1, passRate: 0.5 });
      expect(run.progress).toEqual({ total: 4, completed: 4, passed: 2, failed: 1, errored: 1 });
      expect(counts).toMatchObject({ passed: 2, failed: 1, errored: 1 });
    }
    // A run already stored the new way is left as it was.
    expect((await read(current)).run).toEqual(before.run);
  });
});
