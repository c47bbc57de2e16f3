import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countIterations } from '../../../db/ingestIterations.js';
import { findOrCreateSuiteByName } from '../../../db/evalSuites.js';
import { insertRun } from '../../../db/evalRuns.js';
import { createIngestStore } from '../../../db/ingestStore.js';
import { limits } from '../../../domain/limits.js';
import type { Principal } from '../../../domain/principal.js';
import { appendIngestResults } from '../../../domain/useCases/ingest/appendIngestResults.js';
import { finalizeIngestRun } from '../../../domain/useCases/ingest/finalizeIngestRun.js';
import { reportIngestRun } from '../../../domain/useCases/ingest/reportIngestRun.js';
import { startIngestRun } from '../../../domain/useCases/ingest/startIngestRun.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { sampleResults } from '../../helpers/ingest.js';
import { seedOrganization, type SeededOrganization } from '../../helpers/seed.js';

// The reported-run stories (domain/useCases/ingest), run without HTTP on a fresh database.

const principalOf = (org: SeededOrganization): Principal => ({
  keyId: org.keyId,
  userId: org.userId,
  organizationId: org.organizationId,
  orgRole: 'owner',
});

describe('ingest use cases: reported runs', () => {
  let db: TestDatabase;
  let org: SeededOrganization;
  let other: SeededOrganization;
  let principal: Principal;
  let report: ReturnType<typeof reportIngestRun>;
  let start: ReturnType<typeof startIngestRun>;
  let append: ReturnType<typeof appendIngestResults>;
  let finalize: ReturnType<typeof finalizeIngestRun>;

  beforeAll(async () => {
    db = await createTestDatabase();
    org = await seedOrganization(db.sql);
    other = await seedOrganization(db.sql);
    principal = principalOf(org);
    const ingest = createIngestStore(db.sql);
    report = reportIngestRun({ ingest });
    start = startIngestRun({ ingest });
    append = appendIngestResults({ ingest });
    finalize = finalizeIngestRun({ ingest });
  });
  afterAll(async () => db?.drop());

  it('reportIngestRun saves results as a completed run; the same externalRunId again returns it unchanged', async () => {
    const run = { suiteName: 'One shot', externalRunId: 'ci-1', framework: 'vitest' };
    const finished = await report({ principal, projectId: org.projectId, run, results: sampleResults(8) });
    expect(finished).toMatchObject({
      projectId: org.projectId,
      externalRunId: 'ci-1',
      framework: 'vitest',
      createdByKeyId: org.keyId,
      status: 'completed',
      result: 'failed',
      summary: { total: 8, passed: 6, failed: 2 },
    });
    expect(await countIterations(db.sql, finished.id)).toBe(8);
    const again = await report({
      principal,
      projectId: org.projectId,
      run,
      results: sampleResults(3, { prefix: 'x' }),
    });
    expect(again).toEqual(finished);
    expect(await countIterations(db.sql, finished.id)).toBe(8);
  });

  it('reportIngestRun answers the default project, and hides other organizations projects as not found', async () => {
    const run = { suiteName: 'Default', externalRunId: 'ci-default' };
    const finished = await report({ principal, projectId: 'default', run, results: sampleResults(1) });
    expect(finished.projectId).toBe(org.projectId);
    await expect(
      report({ principal, projectId: other.projectId, run, results: sampleResults(1) }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'project not found',
      details: { projectId: other.projectId },
    });
  });

  it('chunked: start creates then reuses, append skips what it has, finalize ends the run once', async () => {
    const input = { principal, projectId: org.projectId, run: { suiteName: 'Chunked', externalRunId: 'ci-2' } };
    const first = await start(input);
    expect(first.reused).toBe(false);
    expect(first.run).toMatchObject({ status: 'running', externalRunId: 'ci-2', source: 'sdk' });
    const second = await start(input);
    expect(second.reused).toBe(true);
    expect(second.run).toMatchObject({ id: first.run.id, status: 'running', startedAt: expect.any(Date) });

    const runId = first.run.id;
    const results = sampleResults(6);
    expect(await append({ principal, projectId: org.projectId, runId, results: results.slice(0, 4) })).toEqual({
      inserted: 4,
      skipped: 0,
      total: 4,
    });
    // A retried call, overlapping the first: only the new results count.
    expect(await append({ principal, projectId: org.projectId, runId, results: results.slice(2) })).toEqual({
      inserted: 2,
      skipped: 2,
      total: 6,
    });

    const finished = await finalize({ principal, projectId: org.projectId, externalRunId: 'ci-2' });
    expect(finished).toMatchObject({ id: runId, status: 'completed', summary: { total: 6 } });
    expect(await finalize({ principal, projectId: org.projectId, runId })).toEqual(finished);

    // Nothing new is taken once finished; what it holds already is skipped.
    expect(await append({ principal, projectId: org.projectId, runId, results })).toEqual({
      inserted: 0,
      skipped: 6,
      total: 6,
    });
    await expect(
      append({ principal, projectId: org.projectId, runId, results: sampleResults(1, { prefix: 'late' }) }),
    ).rejects.toMatchObject({ code: 'CONFLICT', details: { runId, status: 'completed', reason: 'RUN_FINALIZED' } });
    // start on a finished run reuses it as it is
    expect(await start(input)).toMatchObject({ run: { id: runId, status: 'completed' }, reused: true });
  });

  it('append and finalize refuse runs they may not touch: unknown, in another project, executed by Runway', async () => {
    await expect(
      append({ principal, projectId: org.projectId, runId: 'run_nope', results: sampleResults(1) }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'eval run not found', details: { runId: 'run_nope' } });
    const { run } = await start({
      principal: principalOf(other),
      projectId: other.projectId,
      run: { suiteName: 'Theirs', externalRunId: 'theirs' },
    });
    await expect(finalize({ principal, projectId: org.projectId, runId: run.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(finalize({ principal, projectId: other.projectId, runId: run.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'project not found',
    });

    const executed = await db.sql.begin(async (tx) => {
      const suite = await findOrCreateSuiteByName(tx, { projectId: org.projectId, name: 'Executed', source: 'api' });
      return await insertRun(tx, {
        suiteId: suite.id,
        projectId: org.projectId,
        organizationId: org.organizationId,
        source: 'api',
        passCriteria: { minimumPassRate: 0.8 },
        serverIds: [],
      });
    });
    for (const call of [
      () => append({ principal, projectId: org.projectId, runId: executed.id, results: sampleResults(1) }),
      () => finalize({ principal, projectId: org.projectId, runId: executed.id }),
    ]) {
      await expect(call()).rejects.toMatchObject({
        code: 'CONFLICT',
        message: `run ${executed.id} was executed by Runway, not reported; only runs created by runs/start take results`,
        details: { runId: executed.id, reason: 'NOT_AN_INGESTED_RUN' },
      });
    }
  });

  it('a call past the bound on a run writes none of its results', async () => {
    const { run } = await start({
      principal,
      projectId: org.projectId,
      run: { suiteName: 'Bounded', externalRunId: 'ci-bounded' },
    });
    await append({ principal, projectId: org.projectId, runId: run.id, results: sampleResults(2) });
    const tooMany = sampleResults(limits.iterationsPerIngestedRun - 1, { prefix: 'many' });
    await expect(
      append({ principal, projectId: org.projectId, runId: run.id, results: tooMany }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'TOO_MANY_ITERATIONS' } });
    expect(await countIterations(db.sql, run.id)).toBe(2);
  });
});
