import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ScheduleNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRetentionStore } from '../../db/retention.js';
import { newId, randomBase62 } from '../../domain/ids.js';
import { applyRetention } from '../../domain/useCases/retention/applyRetention.js';
import { createMetrics } from '../../runtime/metrics.js';
import { ensureRetentionSchedule } from '../../worker/retentionSchedule.js';
import { RETENTION_SCHEDULE_ID } from '../../workflows/definitions.js';
import type { RetentionWorkflowResult } from '../../workflows/retention.js';
import { entryArgs } from '../helpers/entryPoints.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const exec = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const DAY = "interval '1 day'";

/*
 * Retention (issue 33) on a seeded database: two organizations with different policies, runs, iterations, traces,
 * uploaded artifacts and upload URLs of various ages. What is removed is counted before and after: exactly what the
 * policies say, the dry run removing nothing and counting the same, the schedule's workflow (batches of 2, continuing
 * as new) running the same use case, and the run and the trace route saying a trace expired.
 */

interface Seeded {
  org: SeededOrganization;
  runs: Record<'old' | 'mid' | 'recent' | 'running', { id: string; iterations: string[] }>;
}

/** The deployment's defaults here: traces 30 days, runs for ever; batches of 2 (RETENTION_BATCH_SIZE). */
const settings = { RETENTION_TRACE_DAYS: '30', RETENTION_RUN_DAYS: 'forever', RETENTION_BATCH_SIZE: '2' };

describe('retention: a policy per organization, applied in batches', () => {
  let stack: TestStack;
  let a: Seeded;
  let b: Seeded;

  /** A run ended (or still running) `daysAgo`, with two iterations whose traces are as old. */
  async function seedRun(org: SeededOrganization, suiteId: string, n: number, status: string, daysAgo: number) {
    const { sql } = stack;
    const runId = newId('run');
    await sql`
      INSERT INTO eval_runs (id, suite_id, project_id, organization_id, run_number, status, created_at, completed_at)
      VALUES (${runId}, ${suiteId}, ${org.projectId}, ${org.organizationId}, ${n}, ${status},
              now() - ${daysAgo} * ${sql.unsafe(DAY)} - interval '1 hour',
              ${status === 'running' ? null : sql`now() - ${daysAgo} * ${sql.unsafe(DAY)}`})`;
    const iterations: string[] = [];
    for (const i of [1, 2]) {
      const id = newId('itr');
      iterations.push(id);
      await sql`INSERT INTO eval_iterations (id, run_id, title, iteration_number, status, result)
        VALUES (${id}, ${runId}, ${'case ' + i}, ${i}, ${status === 'running' ? 'running' : 'completed'}, ${status === 'running' ? null : 'passed'})`;
      await sql`INSERT INTO eval_traces (iteration_id, trace, created_at)
        VALUES (${id}, ${sql.json({ traceVersion: 1, messages: [], spans: [], prompts: [] })},
                now() - ${daysAgo} * ${sql.unsafe(DAY)})`;
    }
    return { id: runId, iterations };
  }

  /** An upload slot: used (with bytes, maybe of a run) or not, created and expiring relative to now. */
  async function seedSlot(
    org: SeededOrganization,
    slot: { createdDaysAgo: number; expiresInHours: number; used: boolean; runId?: string },
  ) {
    const { sql } = stack;
    await sql`
      INSERT INTO ingest_artifacts (id, organization_id, project_id, token_hash, expires_at, used_at, content, run_id, created_at)
      VALUES (${newId('art')}, ${org.organizationId}, ${org.projectId}, ${randomBase62(32)},
              now() + ${slot.expiresInHours} * interval '1 hour', ${slot.used ? sql`now()` : null},
              ${slot.used ? Buffer.from('<testsuite/>') : null}, ${slot.runId ?? null},
              now() - ${slot.createdDaysAgo} * ${sql.unsafe(DAY)})`;
  }

  async function seedOrganizationData(): Promise<Seeded> {
    const org = await seedOrganization(stack.sql);
    const suiteId = newId('sut');
    await stack.sql`INSERT INTO eval_suites (id, project_id, name) VALUES (${suiteId}, ${org.projectId}, 'kept suite')`;
    const runs = {
      old: await seedRun(org, suiteId, 1, 'completed', 100),
      mid: await seedRun(org, suiteId, 2, 'failed', 45),
      recent: await seedRun(org, suiteId, 3, 'completed', 10),
      // never touched while running, however old
      running: await seedRun(org, suiteId, 4, 'running', 100),
    };
    // an ingested report whose run has ended: its bytes go whatever their age
    await seedSlot(org, { createdDaysAgo: 1, expiresInHours: -20, used: true, runId: runs.recent.id });
    // bytes stored without a run (no format): they go after the trace days
    await seedSlot(org, { createdDaysAgo: 40, expiresInHours: -900, used: true });
    await seedSlot(org, { createdDaysAgo: 3, expiresInHours: -60, used: true });
    // unused URLs: expired two days ago (purged), an hour ago (kept a day longer), still valid (kept)
    await seedSlot(org, { createdDaysAgo: 3, expiresInHours: -48, used: false });
    await seedSlot(org, { createdDaysAgo: 1, expiresInHours: -1, used: false });
    await seedSlot(org, { createdDaysAgo: 0, expiresInHours: 1, used: false });
    return { org, runs };
  }

  /** What each organization holds, by kind. */
  async function holdings(org: SeededOrganization) {
    const [row] = await stack.sql<Record<string, number>[]>`
      SELECT
        (SELECT count(*)::int FROM eval_runs WHERE organization_id = ${org.organizationId}) AS runs,
        (SELECT count(*)::int FROM eval_iterations i JOIN eval_runs r ON r.id = i.run_id WHERE r.organization_id = ${org.organizationId}) AS iterations,
        (SELECT count(*)::int FROM eval_traces t JOIN eval_iterations i ON i.id = t.iteration_id JOIN eval_runs r ON r.id = i.run_id
          WHERE r.organization_id = ${org.organizationId}) AS traces,
        (SELECT count(*)::int FROM ingest_artifacts WHERE organization_id = ${org.organizationId} AND content IS NOT NULL) AS blobs,
        (SELECT count(*)::int FROM ingest_artifacts WHERE organization_id = ${org.organizationId}) AS slots`;
    return row;
  }

  const admin = async (...args: string[]) => {
    const { stdout } = await exec(process.execPath, [...entryArgs('cli/admin.ts'), ...args], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: stack.db.url,
        RUNWAY_ENCRYPTION_KEY: stack.config.RUNWAY_ENCRYPTION_KEY,
        ...settings,
      },
    });
    return args.includes('--json') ? JSON.parse(stdout) : stdout;
  };

  beforeAll(async () => {
    stack = await startTestStack({ config: settings });
    a = await seedOrganizationData();
    b = await seedOrganizationData();
  }, 120_000);
  afterAll(async () => {
    await stack?.temporal.schedule
      .getHandle(RETENTION_SCHEDULE_ID)
      .delete()
      .catch((error: unknown) => {
        if (!(error instanceof ScheduleNotFoundError)) throw error;
      });
    await stack?.stop();
  });

  it('admin retention set and show: an organization overrides the defaults field by field', async () => {
    const set = await admin(
      'retention',
      'set',
      '--org',
      b.org.organizationId,
      '--trace-days',
      '7',
      '--run-days',
      '60',
      '--json',
    );
    expect(set.organizations).toEqual([
      expect.objectContaining({
        organizationId: b.org.organizationId,
        own: { traceDays: 7, runDays: 60 },
        effective: { traceDays: 7, runDays: 60 },
      }),
    ]);
    // a field left out keeps its setting; `default` goes back to the deployment's
    await admin('retention', 'set', '--org', b.org.organizationId, '--trace-days', 'forever');
    await admin('retention', 'set', '--org', b.org.organizationId, '--trace-days', '7');
    const shown = await admin('retention', 'show', '--json');
    expect(shown.defaults).toEqual({ traceDays: 30, runDays: null });
    const byOrg = Object.fromEntries(shown.organizations.map((o: any) => [o.organizationId, o]));
    expect(byOrg[a.org.organizationId]).toMatchObject({
      own: { traceDays: 'default', runDays: 'default' },
      effective: { traceDays: 30, runDays: null },
    });
    expect(byOrg[b.org.organizationId]).toMatchObject({ own: { traceDays: 7, runDays: 60 } });
    const text = await admin('retention', 'show', '--org', b.org.organizationId);
    expect(text).toContain('deployment defaults: traces and artifacts 30 days, runs kept for ever');
    expect(text).toMatch(new RegExp(`${b.org.organizationId}.*7 days \\(own\\).*60 days \\(own\\)`));
  });

  it('refuses bad settings and unknown organizations, writing nothing', async () => {
    for (const [args, message] of [
      [['--org', a.org.organizationId, '--trace-days', '0'], 'a whole number of days from 1 to 36500'],
      [['--org', a.org.organizationId, '--run-days', 'soon'], 'a whole number of days from 1 to 36500'],
      [['--org', a.org.organizationId], 'nothing to set'],
      [['--org', 'org_missing', '--trace-days', '3'], 'no organization org_missing'],
    ] as const)
      await expect(admin('retention', 'set', ...args)).rejects.toMatchObject({
        stderr: expect.stringContaining(message),
      });
    const [{ n }] = await stack.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM retention_policies WHERE organization_id = ${a.org.organizationId}`;
    expect(n).toBe(0);
  });

  // A: traces 30 days (default), runs for ever. B: traces 7, runs 60.
  const expectedA = { ingestBlobs: 1, iterations: 0, runs: 0, traces: 4, artifactBlobs: 1, uploadUrls: 1 };
  const expectedB = { ingestBlobs: 1, iterations: 2, runs: 1, traces: 4, artifactBlobs: 1, uploadUrls: 1 };
  const sum = (x: Record<string, number>, y: Record<string, number>) =>
    Object.fromEntries(Object.keys(x).map((k) => [k, x[k] + y[k]]));

  it('a dry run counts what the policies say, per organization, and deletes nothing', async () => {
    const before = [await holdings(a.org), await holdings(b.org)];
    const report = await admin('retention', 'run', '--dry-run', '--json');
    expect(report).toMatchObject({ dryRun: true, done: true, counts: sum(expectedA, expectedB) });
    const nonZero = (x: Record<string, number>) => Object.fromEntries(Object.entries(x).filter(([, n]) => n > 0));
    expect(report.byOrganization[a.org.organizationId]).toEqual(nonZero(expectedA));
    expect(report.byOrganization[b.org.organizationId]).toEqual(nonZero(expectedB));
    const text = await admin('retention', 'run', '--dry-run');
    expect(text).toContain('would delete ingestBlobs 2, iterations 2, runs 1, traces 8, artifactBlobs 2, uploadUrls 2');
    expect(text).toContain('nothing was deleted (dry run)');
    expect([await holdings(a.org), await holdings(b.org)]).toEqual(before);
  });

  it("the schedule's workflow runs the same use case in batches of 2, continuing as new, and removes exactly that", async () => {
    const before = { a: await holdings(a.org), b: await holdings(b.org) };
    // the schedule exists once, pointed at the worker's queue, running the retention workflow
    const settingsOfSchedule = { taskQueue: stack.taskQueue, intervalMinutes: 1440 };
    // The tests share one Temporal: a worker process another test file started (worker/main.ts) made it already.
    await stack.temporal.schedule
      .getHandle(RETENTION_SCHEDULE_ID)
      .delete()
      .catch(() => {});
    expect(await ensureRetentionSchedule(stack.temporal, settingsOfSchedule)).toBe(true);
    expect(await ensureRetentionSchedule(stack.temporal, settingsOfSchedule)).toBe(false);
    const described = await stack.temporal.schedule.getHandle(RETENTION_SCHEDULE_ID).describe();
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'retention',
      taskQueue: stack.taskQueue,
    });
    expect(described.spec.intervals).toMatchObject([{ every: 1440 * 60_000 }]);

    // one batch per activity, two activities per run of the workflow: the pass continues as new several times
    const handle = await stack.temporal.workflow.start<(input: object) => Promise<RetentionWorkflowResult>>(
      'retention',
      {
        taskQueue: stack.taskQueue,
        workflowId: `retention-test-${randomBase62(8)}`,
        args: [{ activitiesPerRun: 2, batchesPerActivity: 1 }],
        workflowExecutionTimeout: '2 minutes',
      },
    );
    const result = await handle.result();
    const first = await stack.temporal.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
    expect(result.counts).toEqual({ ...sum(expectedA, expectedB), idempotencyKeys: 0 });

    const after = { a: await holdings(a.org), b: await holdings(b.org) };
    // A: the traces of the runs ended 100 and 45 days ago; one blob of an ended run, one older than 30 days; one URL
    expect(after.a).toEqual({
      runs: before.a.runs,
      iterations: before.a.iterations,
      traces: before.a.traces - 4,
      blobs: before.a.blobs - 2,
      slots: before.a.slots - 1,
    });
    // B: the run ended 100 days ago with its iterations; the traces of the runs ended 45 and 10 days ago
    expect(after.b).toEqual({
      runs: before.b.runs - 1,
      iterations: before.b.iterations - 2,
      traces: before.b.traces - 2 - 4,
      blobs: before.b.blobs - 2,
      slots: before.b.slots - 1,
    });
    const [gone] = await stack.sql`SELECT id FROM eval_runs WHERE id = ${b.runs.old.id}`;
    expect(gone).toBeUndefined();
    // the running run keeps everything; B's recent run lost its traces, not its iterations
    const [kept] = await stack.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM eval_traces WHERE iteration_id = ANY(${[...a.runs.running.iterations, ...b.runs.running.iterations, ...a.runs.recent.iterations]})`;
    expect(kept.n).toBe(6);

    // nothing more has expired: another pass removes nothing
    const again = await admin('retention', 'run', '--json');
    expect(Object.values(again.counts).every((n) => n === 0)).toBe(true);
  }, 120_000);

  it('a run and an iteration whose trace expired say so, and the trace route answers TRACE_EXPIRED', async () => {
    const call = apiClient(stack.baseUrl, a.org.apiKey);
    const base = `/projects/${a.org.projectId}/eval-runs/${a.runs.mid.id}`;
    const run = await call('GET', base);
    expect(run.status).toBe(200);
    expect(run.body.tracesExpiredAt).toEqual(expect.any(Number));
    const page = await call('GET', `${base}/iterations`);
    expect(page.body.items.map((i: any) => i.traceExpiredAt)).toEqual([expect.any(Number), expect.any(Number)]);
    const trace = await call('GET', `${base}/iterations/${a.runs.mid.iterations[0]}/trace`);
    const today = new Date().toISOString().slice(0, 10);
    expect(trace.status).toBe(404);
    expect(trace.body).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining(`trace expired on ${today}`),
      details: { reason: 'TRACE_EXPIRED', expiredAt: expect.stringMatching(new RegExp(`^${today}T`)) },
    });
    // a kept trace is served as before, and its run says nothing expired
    const recent = `/projects/${a.org.projectId}/eval-runs/${a.runs.recent.id}`;
    expect((await call('GET', recent)).body.tracesExpiredAt).toBeUndefined();
    const served = await call('GET', `${recent}/iterations/${a.runs.recent.iterations[0]}/trace`);
    expect(served.status).toBe(200);
    expect(served.body.traceVersion).toBe(1);
  });

  it('counts what it removed in the worker metrics, per kind', async () => {
    const org = await seedOrganization(stack.sql);
    const suiteId = newId('sut');
    await stack.sql`INSERT INTO eval_suites (id, project_id, name) VALUES (${suiteId}, ${org.projectId}, 'metrics suite')`;
    await seedRun(org, suiteId, 1, 'completed', 50);
    const metrics = createMetrics();
    const pass = applyRetention({
      retention: createRetentionStore(stack.sql),
      defaults: { traceDays: 30, runDays: null },
      batchSize: 1,
      metrics,
    });
    const report = await pass();
    expect(report.done).toBe(true);
    expect(report.byOrganization[org.organizationId]).toEqual({ traces: 2 });
    // batches of one: at least two that removed a trace, and one per kind that found nothing more
    expect(report.batches).toBeGreaterThanOrEqual(2 + 6);
    const text = await metrics.registry.metrics();
    expect(text).toContain(`runway_retention_deleted_total{kind="traces"} ${report.counts.traces}`);
  });
});
