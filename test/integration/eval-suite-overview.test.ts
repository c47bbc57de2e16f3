import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collection } from '../../api/schemas/common.js';
import { comparisonSchema } from '../../api/schemas/compare.js';
import { suiteListItem } from '../../api/schemas/evals.js';
import { suiteOverviewSchema } from '../../api/schemas/suiteOverview.js';
import { toolAnalysisSchema } from '../../api/schemas/toolAnalysis.js';
import { startEvalWorld, type EvalWorld } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization } from '../helpers/seed.js';

/** A reported result: its case, whether it passed, and the tools it expected and called. */
const result = (
  id: string,
  caseTitle: string,
  passed: boolean,
  expected: string[] = ['echo'],
  called: string[] = ['echo'],
) => ({
  caseTitle,
  query: `ask ${caseTitle}`,
  passed,
  durationMs: 100,
  provider: 'openai',
  model: 'gpt-4.1-mini',
  expectedToolCalls: expected.map((toolName) => ({ toolName, arguments: {} })),
  actualToolCalls: called.map((toolName) => ({ toolName, arguments: {} })),
  tokens: { input: 1, output: 1, total: 2 },
  externalIterationId: id,
});

describe('the console aggregate routes', () => {
  let world: EvalWorld;
  let p: string;
  let suiteId: string;
  /** the three reported runs, oldest first */
  const runIds: string[] = [];
  const other = { call: undefined as unknown as ReturnType<typeof apiClient>, projectId: '' };

  beforeAll(async () => {
    world = await startEvalWorld();
    p = world.org.projectId;
    const otherOrg = await seedOrganization(world.stack.sql);
    other.call = apiClient(world.stack.baseUrl, otherOrg.apiKey);
    other.projectId = otherOrg.projectId;
    // Three runs of one reported suite: `steady` passes 2/2 each time, `flaky` 2/2, then 1/2, then 0/2, and
    // `late` appears in the last run only.
    const runs = [
      [
        result('1a', 'steady', true),
        result('1b', 'steady', true),
        result('1c', 'flaky', true),
        result('1d', 'flaky', true),
      ],
      [
        result('2a', 'steady', true),
        result('2b', 'steady', true),
        result('2c', 'flaky', true),
        result('2d', 'flaky', false),
      ],
      [
        result('3a', 'steady', true),
        result('3b', 'steady', true),
        result('3c', 'flaky', false),
        result('3d', 'flaky', false),
        result('3e', 'late', true),
      ],
    ];
    for (const [i, results] of runs.entries()) {
      const reply = await world.call('POST', `/projects/${p}/eval-ingest/report`, {
        suiteName: 'Overview',
        externalRunId: `overview-${i + 1}`,
        results,
      });
      expect(reply.status).toBe(200);
      suiteId = reply.body.suiteId;
      runIds.push(reply.body.runId);
    }
  });
  afterAll(async () => world?.stop());

  describe('GET /eval-suites/{suiteId}/overview', () => {
    it('answers the suite, its runs newest first and each case’s pass rate per run, oldest first', async () => {
      const reply = await world.call('GET', `/projects/${p}/eval-suites/${suiteId}/overview`);
      expect(reply.status).toBe(200);
      const body = suiteOverviewSchema.parse(reply.body);
      expect(body.suite).toEqual((await world.call('GET', `/projects/${p}/eval-suites/${suiteId}`)).body);
      expect(body.runs.map((r) => r.id)).toEqual(runIds.toReversed());
      expect(body.runs).toEqual((await world.call('GET', `/projects/${p}/eval-suites/${suiteId}/runs`)).body.items);
      const history = Object.fromEntries(body.cases.map((c) => [c.title, c.history]));
      expect(Object.keys(history)).toEqual(['steady', 'flaky', 'late']);
      expect(history.steady).toEqual(runIds.map((runId) => ({ runId, passRate: 1 })));
      expect(history.flaky.map((h) => h.passRate)).toEqual([1, 0.5, 0]);
      expect(history.late.map((h) => h.passRate)).toEqual([null, null, 1]);
    });

    it('takes the newest `limit` runs, clamped to 1..100', async () => {
      const two = await world.call('GET', `/projects/${p}/eval-suites/${suiteId}/overview?limit=2`);
      expect(two.status).toBe(200);
      expect(two.body.runs.map((r: { id: string }) => r.id)).toEqual([runIds[2], runIds[1]]);
      expect(two.body.cases[1].history).toEqual([
        { runId: runIds[1], passRate: 0.5 },
        { runId: runIds[2], passRate: 0 },
      ]);
      const none = await world.call('GET', `/projects/${p}/eval-suites/${suiteId}/overview?limit=0`);
      expect(none.status).toBe(200);
      expect(none.body.runs).toHaveLength(1);
      const many = await world.call('GET', `/projects/${p}/eval-suites/${suiteId}/overview?limit=100000`);
      expect(many.status).toBe(200);
      expect(many.body.runs).toHaveLength(3);
      const unknown = await world.call('GET', `/projects/${p}/eval-suites/${suiteId}/overview?limt=2`);
      expect(unknown.status).toBe(400);
    });

    it("is a 404 for another organization's suite and for one that does not exist", async () => {
      for (const path of [
        `/projects/${p}/eval-suites/${suiteId}/overview`,
        `/projects/${other.projectId}/eval-suites/${suiteId}/overview`,
        `/projects/default/eval-suites/${suiteId}/overview`,
      ]) {
        const reply = await other.call('GET', path);
        expect(reply.status, path).toBe(404);
        expect(reply.body).toMatchObject({ code: 'NOT_FOUND' });
      }
      const missing = await world.call('GET', `/projects/${p}/eval-suites/sui_nope/overview`);
      expect(missing.status).toBe(404);
    });
  });

  describe('GET /eval-runs/{runId}/tools', () => {
    it('scores each tool, lists the confusions and the coverage, as the comparison scores a side', async () => {
      const report = await world.call('POST', `/projects/${p}/eval-ingest/report`, {
        suiteName: 'Tools',
        externalRunId: 'tools-1',
        results: [
          result('t1', 'right', true, ['echo'], ['echo']),
          result('t2', 'confused', false, ['echo'], ['add']),
          result('t3', 'both', true, ['echo', 'add'], ['echo', 'add']),
          result('t4', 'unasked', false, [], ['printEnv']),
          result('t5', 'skipped', false, ['longRunningOperation'], []),
        ],
      });
      expect(report.status, JSON.stringify(report.body)).toBe(200);
      const { runId } = report.body;
      const reply = await world.call('GET', `/projects/${p}/eval-runs/${runId}/tools`);
      expect(reply.status).toBe(200);
      const body = toolAnalysisSchema.parse(reply.body);
      const byName = Object.fromEntries(body.tools.map((t) => [t.toolName, t]));
      expect(body.tools.map((t) => t.toolName)).toEqual(['add', 'echo', 'longRunningOperation', 'printEnv']);
      expect(byName.echo).toEqual({
        toolName: 'echo',
        expected: 3,
        called: 2,
        truePositives: 2,
        precision: 1,
        recall: 2 / 3,
        f1: 0.8,
      });
      expect(byName.add).toMatchObject({ expected: 1, called: 2, truePositives: 1, precision: 0.5, recall: 1 });
      expect(byName.add.f1).toBeCloseTo(2 / 3, 12);
      expect(byName.printEnv).toMatchObject({ expected: 0, called: 1, precision: 0, recall: null, f1: null });
      expect(byName.longRunningOperation).toMatchObject({ expected: 1, called: 0, precision: null, recall: 0 });
      expect(body.confusions).toEqual([{ expected: 'echo', actual: 'add', count: 1 }]);
      expect(body.coverage).toEqual({
        source: 'calls',
        toolsExpected: 3,
        toolsCalled: 3,
        expectedNeverCalled: ['longRunningOperation'],
        calledNeverExpected: ['printEnv'],
      });

      // One implementation: the comparison of the run with itself scores every tool the same.
      const compared = comparisonSchema.parse(
        (await world.call('GET', `/projects/${p}/eval-runs/${runId}/compare?baseRunId=${runId}`)).body,
      );
      for (const t of compared.tools) {
        const { toolName, truePositives: _tp, ...scores } = byName[t.toolName];
        expect({ toolName, ...scores }).toEqual({ toolName: t.toolName, ...t.current });
      }

      const foreign = await other.call('GET', `/projects/${p}/eval-runs/${runId}/tools`);
      expect(foreign.status).toBe(404);
      expect((await world.call('GET', `/projects/${p}/eval-runs/run_nope/tools`)).status).toBe(404);
    });
  });

  describe('GET /eval-suites (list items)', () => {
    it('gives each suite the sources of its runs and its schedule summary', async () => {
      const created = await world.call('POST', `/projects/${p}/eval-suites`, {
        name: 'Scheduled',
        serverIds: [world.serverId],
        model: 'gpt-4.1-mini',
        tests: [{ title: 't', query: 'q', model: 'gpt-4.1-mini', provider: 'openai' }],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const scheduledId = created.body.suiteId;
      const list = async () => {
        const reply = await world.call('GET', `/projects/${p}/eval-suites`);
        expect(reply.status).toBe(200);
        const items = collection(suiteListItem).parse(reply.body).items;
        return Object.fromEntries(items.map((s) => [s.id, s]));
      };
      let items = await list();
      expect(items[suiteId]).toMatchObject({ sources: ['sdk'], schedule: null });
      expect(items[scheduledId]).toMatchObject({ sources: [], schedule: null });

      const before = Date.now();
      const scheduled = await world.call('PATCH', `/projects/${p}/eval-suites/${scheduledId}/schedule`, {
        enabled: true,
        intervalMinutes: 600,
      });
      expect(scheduled.status).toBe(200);
      items = await list();
      const every = 600 * world.stack.config.SCHEDULE_MINUTE_MS;
      expect(items[scheduledId].schedule).toEqual({
        enabled: true,
        intervalMinutes: 600,
        nextRunAt: expect.any(Number),
        lastRunAt: null,
      });
      const next = items[scheduledId].schedule!.nextRunAt!;
      expect(next % every).toBe(0);
      expect(next).toBeGreaterThan(before);
      expect(next - every).toBeLessThanOrEqual(Date.now());

      const paused = await world.call('PATCH', `/projects/${p}/eval-suites/${scheduledId}/schedule`, {
        enabled: false,
      });
      expect(paused.status).toBe(200);
      items = await list();
      expect(items[scheduledId].schedule).toEqual({
        enabled: false,
        intervalMinutes: 600,
        nextRunAt: null,
        lastRunAt: null,
      });
    });
  });
});
