import { ScheduleNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreSuiteSchedules, SuiteScheduler } from '../../api/suiteScheduler.js';
import { limits } from '../../domain/limits.js';
import { createLogger } from '../../runtime/logger.js';
import { setProviderKey } from '../../db/providerKeys.js';
import { suiteScheduleId } from '../../workflows/definitions.js';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { everythingOverStdio, saveServer } from '../helpers/mcpServers.js';
import { seedOrganization } from '../helpers/seed.js';

// A schedule's minute lasts this long here (SCHEDULE_MINUTE_MS), so `intervalMinutes: 1` comes due every 2 s.
const MINUTE_MS = 2_000;
const quiet = createLogger('silent');

describe('scheduled suites: PATCH /eval-suites/{s}/schedule runs a suite on a Temporal Schedule', () => {
  let world: EvalWorld;
  const scheduled = new Set<string>();

  beforeAll(async () => {
    world = await startEvalWorld({ SCHEDULE_MINUTE_MS: String(MINUTE_MS), MAX_CONCURRENT_RUNS: '1' });
    world.model.setScript('quick', [{ text: 'nothing to call' }]);
    world.model.setScript('slow', [{ text: 'late', delayMs: 120_000 }]);
  });
  afterAll(async () => {
    // Schedules live in Temporal beyond this file's stack: none is left to fire at a queue nobody serves.
    const scheduler =
      world && new SuiteScheduler(world.stack.temporal, { taskQueue: world.stack.taskQueue, minuteMs: MINUTE_MS });
    for (const suiteId of scheduled) await scheduler?.remove(suiteId);
    await world?.stop();
  });

  /** An organization of its own (its own run cap), with the org's openai key on the scripted model and a saved server. */
  const newOrganization = async () => {
    const org = await seedOrganization(world.stack.sql);
    await setProviderKey(world.stack.sql, world.stack.box, {
      organizationId: org.organizationId,
      provider: 'openai',
      apiKey: 'org-key',
      baseUrl: world.model.url,
    });
    const serverId = await saveServer(world.stack.sql, world.stack.box, {
      projectId: org.projectId,
      name: 'everything',
      ...everythingOverStdio(),
    });
    const call = apiClient(world.stack.baseUrl, org.apiKey);
    const project = `/projects/${org.projectId}`;
    const newSuite = async (
      name: string,
      test: { model: string; provider: string } = { model: 'quick', provider: 'openai' },
      serverIds = [serverId],
    ) => {
      if (serverIds.length === 0) {
        // POST /eval-suites requires servers; a suite without a saved selection comes from ingest.
        const reported = await call('POST', `${project}/eval-ingest/runs/start`, {
          suiteName: name,
          externalRunId: `${name}-run`,
        });
        expect(reported.status).toBe(200);
        return reported.body.suiteId as string;
      }
      const reply = await call('POST', `${project}/eval-suites`, {
        name,
        serverIds,
        model: test.model,
        tests: [{ title: 'no tools', query: 'just answer', isNegativeTest: true, ...test }],
      });
      expect(reply.status).toBe(201);
      return reply.body.suiteId as string;
    };
    const setSchedule = async (suiteId: string, body: unknown) => {
      const reply = await call('PATCH', `${project}/eval-suites/${suiteId}/schedule`, body);
      if (reply.status === 200) scheduled.add(suiteId);
      return reply;
    };
    const suiteRuns = async (suiteId: string) =>
      (await call('GET', `${project}/eval-suites/${suiteId}/runs`)).body.items as any[];
    return { org, serverId, call, project, newSuite, setSchedule, suiteRuns };
  };
  type Organization = Awaited<ReturnType<typeof newOrganization>>;

  const schedule = (suiteId: string) => world.stack.temporal.schedule.getHandle(suiteScheduleId(suiteId));

  /** Polls until check returns a value (not undefined). */
  const eventually = async <T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  /** The suite's schedule as its detail shows it (PATCH answers the detail; re-applying the same state changes nothing). */
  const scheduleOf = async (
    o: Organization,
    suiteId: string,
    state: { enabled: boolean; intervalMinutes?: number },
  ) => {
    const reply = await o.setSchedule(suiteId, state);
    expect(reply.status).toBe(200);
    return reply.body.schedule;
  };

  it('runs the suite on its own every interval: ordinary runs with source "schedule", readable and listed with the suite', async () => {
    const o = await newOrganization();
    const suiteId = await o.newSuite('Every minute');
    const enabled = await o.setSchedule(suiteId, { enabled: true, intervalMinutes: 1 });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({
      id: suiteId,
      name: 'Every minute',
      projectId: o.org.projectId,
      serverIds: [o.serverId],
      environment: { servers: ['everything'] },
      schedule: {
        enabled: true,
        intervalMinutes: 1,
        temporalScheduleId: suiteScheduleId(suiteId),
        lastRunId: null,
        lastRunAt: null,
        lastSkipped: null,
      },
    });

    // nothing triggers it here: the schedule's interval does
    const first = await eventually(
      async () => (await o.suiteRuns(suiteId)).find((r) => r.source === 'schedule'),
      'a scheduled run',
    );
    const finished = await waitForRun(o.call, o.org.projectId, first.id);
    expect(finished).toMatchObject({
      suiteId,
      source: 'schedule',
      status: 'completed',
      result: 'passed',
      summary: { total: 1, passed: 1 },
    });
    // run by the ordinary evalRun workflow, found in Temporal by its source
    const workflow = await world.stack.temporal.workflow.getHandle(`eval-run:${first.id}`).describe();
    expect(workflow.type).toBe('evalRun');
    expect(workflow.searchAttributes).toMatchObject({
      RunwaySource: ['schedule'],
      RunwaySuiteId: [suiteId],
      RunwayOrganizationId: [o.org.organizationId],
    });
    expect(await workflow.staticSummary()).toBe('Eval run of Every minute: 1 iteration');
    expect(await workflow.staticDetails()).toContain('**Source** schedule');
    // the organization's key ran it: the scripted model saw no per-run key
    expect(world.model.calls('quick').every((c) => c.apiKey === 'org-key')).toBe(true);

    const paused = await scheduleOf(o, suiteId, { enabled: false });
    expect(paused).toMatchObject({
      enabled: false,
      intervalMinutes: 1,
      lastRunId: expect.stringMatching(/^run_/),
      lastRunAt: expect.any(Number),
    });
    const runs = await o.suiteRuns(suiteId);
    expect(runs.map((r) => r.id)).toContain(paused.lastRunId);
    expect(runs.every((r) => r.source === 'schedule')).toBe(true);
  });

  it('is a Temporal Schedule named for its suite: listed, disabling pauses it (kept), enabling unpauses it with the new interval', async () => {
    const o = await newOrganization();
    const suiteId = await o.newSuite('Nightly');
    expect((await o.setSchedule(suiteId, { enabled: true, intervalMinutes: 720 })).status).toBe(200);

    const described = await schedule(suiteId).describe();
    expect(described.state.paused).toBe(false);
    expect(described.spec.intervals?.map((i) => i.every)).toEqual([720 * MINUTE_MS]);
    expect(described.memo).toEqual({
      suiteId,
      suiteName: 'Nightly',
      projectId: o.org.projectId,
      organizationId: o.org.organizationId,
    });
    expect(described.state.note).toContain(`suite "Nightly" (${suiteId}) of project ${o.org.projectId}`);
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'scheduledSuiteRun',
      taskQueue: world.stack.taskQueue,
      args: [{ suiteId }],
    });
    expect(described.policies.overlap).toBe('SKIP');
    const listed = await eventually(async () => {
      for await (const summary of world.stack.temporal.schedule.list())
        if (summary.scheduleId === suiteScheduleId(suiteId)) return summary;
      return undefined;
    }, 'the schedule in the list');
    expect(listed.memo).toMatchObject({ suiteName: 'Nightly' });

    const disabled = await o.setSchedule(suiteId, { enabled: false });
    expect(disabled.body.schedule).toMatchObject({
      enabled: false,
      intervalMinutes: 720,
      temporalScheduleId: suiteScheduleId(suiteId),
    });
    const paused = await schedule(suiteId).describe();
    expect(paused.state.paused).toBe(true);
    expect(paused.state.note).toContain('Paused through the Runway API');

    const reenabled = await o.setSchedule(suiteId, { enabled: true, intervalMinutes: 60 });
    expect(reenabled.body.schedule).toMatchObject({ enabled: true, intervalMinutes: 60 });
    const unpaused = await schedule(suiteId).describe();
    expect(unpaused.state.paused).toBe(false);
    expect(unpaused.spec.intervals?.map((i) => i.every)).toEqual([60 * MINUTE_MS]);
  });

  it('a scheduled run holds a slot of the cap; a due run finding the cap full is skipped and recorded, not queued', async () => {
    const o = await newOrganization();
    const slowSuite = await o.newSuite('Slow scheduled', { model: 'slow', provider: 'openai' });
    expect((await o.setSchedule(slowSuite, { enabled: true, intervalMinutes: 10_080 })).status).toBe(200);
    await schedule(slowSuite).trigger();
    const running = await eventually(
      async () => (await o.suiteRuns(slowSuite)).find((r) => r.status === 'running'),
      'the slow scheduled run',
    );
    expect(running.source).toBe('schedule');

    // the scheduled run counts toward the organization's cap (1 here), as an API run does
    const refused = await o.call('POST', `${o.project}/eval-runs`, {
      suiteName: 'Manual',
      serverIds: [o.serverId],
      tests: [{ title: 't', query: 'q', model: 'quick', provider: 'openai', isNegativeTest: true }],
    });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: 'RATE_LIMITED',
      details: { reason: 'CONCURRENT_RUN_LIMIT', maxConcurrentRuns: 1, activeRuns: 1 },
    });

    // another suite's due run finds the cap full: skipped, with the reason on the suite
    const other = await o.newSuite('Crowded out');
    expect((await o.setSchedule(other, { enabled: true, intervalMinutes: 10_080 })).status).toBe(200);
    await schedule(other).trigger();
    const skipped = await eventually(async () => {
      const current = await scheduleOf(o, other, { enabled: true, intervalMinutes: 10_080 });
      return current.lastSkipped ?? undefined;
    }, 'the skip to be recorded');
    expect(skipped).toEqual({
      at: expect.any(Number),
      reason: 'CONCURRENT_RUN_LIMIT',
      message: expect.stringContaining('limit 1'),
    });
    expect(await o.suiteRuns(other)).toEqual([]);
    expect(
      world.stack.logs.some(
        (line) =>
          line.includes('scheduled run skipped') && line.includes(other) && line.includes('CONCURRENT_RUN_LIMIT'),
      ),
    ).toBe(true);

    // a scheduled run is cancelled like any executed run, and its slot is freed
    const cancel = await o.call('POST', `${o.project}/eval-runs/${running.id}/cancel`);
    expect(cancel.status).toBe(202);
    expect(await waitForRun(o.call, o.org.projectId, running.id, undefined, 20_000)).toMatchObject({
      status: 'cancelled',
    });
    await schedule(other).trigger();
    const ran = await eventually(
      async () => (await o.suiteRuns(other))[0],
      "the other suite's run once the slot is free",
    );
    expect(await waitForRun(o.call, o.org.projectId, ran.id)).toMatchObject({
      source: 'schedule',
      status: 'completed',
    });
  });

  it('a model the organization has no key for is skipped with MODEL_KEY_MISSING (no per-run keys on a schedule)', async () => {
    const o = await newOrganization();
    const suiteId = await o.newSuite('Needs anthropic', { model: 'claude-x', provider: 'anthropic' });
    expect((await o.setSchedule(suiteId, { enabled: true, intervalMinutes: 10_080 })).status).toBe(200);
    await schedule(suiteId).trigger();
    const skipped = await eventually(
      async () => (await scheduleOf(o, suiteId, { enabled: true, intervalMinutes: 10_080 })).lastSkipped ?? undefined,
      'the skip',
    );
    expect(skipped).toMatchObject({ reason: 'MODEL_KEY_MISSING', message: expect.stringContaining('anthropic') });
    expect(await o.suiteRuns(suiteId)).toEqual([]);
  });

  it(`an organization runs at most ${limits.schedulesPerOrganization} suites on a schedule: one more is a 400 naming the limit; disabling and re-enabling stay possible`, async () => {
    const o = await newOrganization();
    const suiteId = await o.newSuite('One too many');
    // The organization's other suites, already scheduled (as if enabled earlier), up to the limit.
    await world.stack.sql`
      INSERT INTO eval_suites (id, project_id, name, server_ids, schedule_enabled, schedule_interval_minutes)
      SELECT 'sui_filler' || g || ${suiteId}, project_id, 'scheduled ' || g, server_ids, true, 10080
      FROM eval_suites, generate_series(1, ${limits.schedulesPerOrganization}) g WHERE id = ${suiteId}`;
    const refused = await o.setSchedule(suiteId, { enabled: true, intervalMinutes: 60 });
    expect(refused).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        details: { reason: 'TOO_MANY_SCHEDULES', limit: limits.schedulesPerOrganization },
      },
    });
    await expect(schedule(suiteId).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect((await o.call('GET', `${o.project}/eval-suites/${suiteId}`)).body.schedule).toMatchObject({
      enabled: false,
      intervalMinutes: null,
    });
    // Making room lets it in; a schedule already enabled can be changed at the limit.
    await world.stack.sql`UPDATE eval_suites SET schedule_enabled = false WHERE id = ${`sui_filler1${suiteId}`}`;
    expect((await o.setSchedule(suiteId, { enabled: true, intervalMinutes: 60 })).status).toBe(200);
    expect((await o.setSchedule(suiteId, { enabled: true, intervalMinutes: 120 })).status).toBe(200);
    expect((await o.setSchedule(suiteId, { enabled: false })).status).toBe(200);
    // The fillers have no Temporal Schedule; disabled, no later test (the restore at API start) gives them one.
    await world.stack.sql`UPDATE eval_suites SET schedule_enabled = false WHERE id LIKE ${`sui_filler%${suiteId}`}`;
  });

  it('refuses bad schedule changes with 4xx and changes nothing', async () => {
    const o = await newOrganization();
    const suiteId = await o.newSuite('Validated');
    const patch = (body: unknown, id = suiteId) => o.call('PATCH', `${o.project}/eval-suites/${id}/schedule`, body);
    for (const [body, mention] of [
      [{ enabled: true }, 'intervalMinutes'],
      [{ enabled: true, intervalMinutes: null }, 'intervalMinutes'],
      [{ enabled: true, intervalMinutes: 0 }, 'intervalMinutes'],
      [{ enabled: true, intervalMinutes: 10_081 }, 'intervalMinutes'],
      [{ enabled: true, intervalMinutes: 1.5 }, 'intervalMinutes'],
      [{ enabled: 'yes', intervalMinutes: 5 }, 'enabled'],
      [{ enabled: true, intervalMinutes: 5, interval: 5 }, 'interval'],
      [{}, 'enabled'],
    ] as const) {
      const reply = await patch(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(reply.body)).toContain(mention);
    }
    expect(await patch({ enabled: true, intervalMinutes: 5 }, 'sui_missing')).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    });
    const elsewhere = await newOrganization();
    expect(
      (
        await elsewhere.call('PATCH', `${elsewhere.project}/eval-suites/${suiteId}/schedule`, {
          enabled: true,
          intervalMinutes: 5,
        })
      ).status,
    ).toBe(404);

    // a scheduled run runs on the suite's saved servers: a suite without any cannot be scheduled
    const serverless = await o.newSuite('No servers', undefined, []);
    expect(await patch({ enabled: true, intervalMinutes: 5 }, serverless)).toMatchObject({
      status: 400,
      body: { details: { reason: 'NO_SAVED_SERVER_SELECTION' } },
    });

    // disabling a suite never scheduled is fine and creates nothing in Temporal
    const off = await patch({ enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.schedule).toEqual({
      enabled: false,
      intervalMinutes: null,
      temporalScheduleId: null,
      lastRunId: null,
      lastRunAt: null,
      lastSkipped: null,
    });
    for (const id of [suiteId, serverless])
      await expect(schedule(id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    // disabled with an interval: the schedule exists, paused, with that interval, ready to be enabled
    const pausedFirst = await patch({ enabled: false, intervalMinutes: 30 });
    expect(pausedFirst.body.schedule).toMatchObject({
      enabled: false,
      intervalMinutes: 30,
      temporalScheduleId: suiteScheduleId(suiteId),
    });
    expect((await schedule(suiteId).describe()).state.paused).toBe(true);
    scheduled.add(suiteId);
  });

  it('removing a suite schedule deletes it from Temporal (what deleting the suite does); removing again is a no-op', async () => {
    const o = await newOrganization();
    const suiteId = await o.newSuite('Short-lived');
    expect((await o.setSchedule(suiteId, { enabled: true, intervalMinutes: 10_080 })).status).toBe(200);
    const scheduler = new SuiteScheduler(world.stack.temporal, {
      taskQueue: world.stack.taskQueue,
      minuteMs: MINUTE_MS,
    });
    await scheduler.remove(suiteId);
    await expect(schedule(suiteId).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    await expect(scheduler.remove(suiteId)).resolves.toBeUndefined();
  });

  it("DELETE /eval-suites/{s} deletes its schedule; renaming a suite renames it in the schedule's note", async () => {
    const o = await newOrganization();
    const suiteId = await o.newSuite('Renamed then deleted');
    expect((await o.setSchedule(suiteId, { enabled: true, intervalMinutes: 10_080 })).status).toBe(200);
    expect((await o.call('PATCH', `${o.project}/eval-suites/${suiteId}`, { name: 'New name' })).status).toBe(200);
    expect(JSON.stringify((await schedule(suiteId).describe()).state.note)).toContain('New name');
    const deleted = await o.call('DELETE', `${o.project}/eval-suites/${suiteId}`);
    expect(deleted).toMatchObject({ status: 200, body: { id: suiteId, deleted: true } });
    await expect(schedule(suiteId).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it('at API start, an enabled suite whose schedule Temporal lost gets it back; a paused one stays paused, a disabled one gets none', async () => {
    const o = await newOrganization();
    const lost = await o.newSuite('Lost schedule');
    const paused = await o.newSuite('Paused schedule');
    const never = await o.newSuite('Never scheduled');
    expect((await o.setSchedule(lost, { enabled: true, intervalMinutes: 90 })).status).toBe(200);
    expect((await o.setSchedule(paused, { enabled: true, intervalMinutes: 90 })).status).toBe(200);
    expect((await o.setSchedule(paused, { enabled: false })).status).toBe(200);
    expect((await o.setSchedule(never, { enabled: false })).status).toBe(200);
    await schedule(lost).delete(); // e.g. deleted in Web UI, or a new Temporal cluster

    const restored = await restoreSuiteSchedules(world.stack.sql, world.stack.app.schedules, quiet);
    expect(restored).toBeGreaterThanOrEqual(1);
    const back = await schedule(lost).describe();
    expect(back.state.paused).toBe(false);
    expect(back.spec.intervals?.map((i) => i.every)).toEqual([90 * MINUTE_MS]);
    expect((await schedule(paused).describe()).state.paused).toBe(true);
    await expect(schedule(never).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    // a second start (or a second API process) finds them all there
    expect(await restoreSuiteSchedules(world.stack.sql, world.stack.app.schedules, quiet)).toBe(0);
  });
});
