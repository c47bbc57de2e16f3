import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { evalRunWorkflowId } from '../../workflows/definitions.js';
import { wilsonInterval } from '../../domain/evals/statistics.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import type { apiClient } from '../helpers/http.js';
import type { ScriptedModelServer } from '../fixtures/model/server.js';
import type { SeededOrganization } from '../helpers/seed.js';
import type { TestStack } from '../helpers/stack.js';
import { entryArgs } from '../helpers/entryPoints.js';

// Issue 16 parts 3, 4 and 6, end to end on a stack: a case compared across two models (summary.models), budgets that
// stop a run half-way, per-run concurrency, and the organization's ceilings set with `runway-admin org-limits`.

const exec = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const KEYS = { openai: 'sk-models-test' };
/** Every scripted turn costs 50 tokens: an iteration that calls a tool (two turns) 100. */
const usage = { prompt_tokens: 40, completion_tokens: 10 };

describe('several models per case, budgets and concurrency', () => {
  let world: EvalWorld;
  let stack: TestStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;

  beforeAll(async () => {
    world = await startEvalWorld({ MAX_CONCURRENT_RUNS: '5', EVAL_ITERATION_CONCURRENCY: '4' });
    ({ stack, model, org, call, serverId } = world);
    // model-a calls the expected tool (passes), model-b answers without it (fails)
    model.setScript('model-a', [
      { toolCalls: [{ name: 'echo', arguments: { message: 'hi' } }], usage },
      { text: 'said hi', usage },
    ]);
    model.setScript('model-b', [{ text: 'no tools today', usage }]);
  });
  afterAll(async () => world?.stop());

  const newRun = (body: Record<string, unknown>) =>
    call('POST', `/projects/${org.projectId}/eval-runs`, { modelApiKeys: KEYS, ...body });
  const echoCase = (extra: Record<string, unknown>) => ({
    title: 'echo',
    query: 'echo hi',
    provider: 'openai',
    expectedToolCalls: [{ toolName: 'echo' }],
    ...extra,
  });
  /** The run's plan, as the workflow's history recorded it: its input (planned at creation), else a plan's result. */
  const recordedPlan = async (runId: string) => {
    const { events } = await stack.temporal.workflow.getHandle(evalRunWorkflowId(runId)).fetchHistory();
    for (const event of events ?? []) {
      const payloads = [
        ...(event.workflowExecutionStartedEventAttributes?.input?.payloads ?? []),
        ...(event.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
        ...Object.values(event.markerRecordedEventAttributes?.details ?? {}).flatMap((p) => p.payloads ?? []),
      ];
      for (const payload of payloads) {
        const text = payload?.data ? Buffer.from(payload.data).toString('utf8') : '';
        const parsed = text.startsWith('{') ? JSON.parse(text) : undefined;
        const result = parsed?.plan ?? parsed;
        if (Array.isArray(result?.iterationIds)) return result as { concurrency: number; budget?: object };
      }
    }
    throw new Error('no planRun result in the history');
  };

  it('runs every iteration of a two-model case once per model; iterations, cases and summary.models carry the model', async () => {
    const created = await newRun({
      suiteName: 'Two models',
      serverIds: [serverId],
      tests: [
        echoCase({
          runs: 2,
          models: [
            { model: 'model-a', provider: 'openai' },
            { model: 'model-b', provider: 'openai' },
          ],
        }),
      ],
    });
    expect(created.status).toBe(202);
    const run = await waitForRun(call, org.projectId, created.body.runId);
    expect(run).toMatchObject({
      status: 'completed',
      result: 'failed',
      progress: { total: 4, completed: 4, passed: 2, failed: 2 },
      summary: { total: 4, passed: 2, failed: 2, passRate: 0.5 },
      budget: null,
      concurrency: null,
    });
    expect(run.summary.stoppedBy).toBeUndefined();
    const latency = { p50: expect.any(Number), p95: expect.any(Number), mean: expect.any(Number) };
    expect(run.summary.models).toEqual([
      {
        model: 'model-a',
        provider: 'openai',
        total: 2,
        passed: 2,
        passRate: 1,
        wilson95: wilsonInterval(2, 2),
        tokens: { input: 160, output: 40, total: 200 },
        // model-a and model-b have no price (runway-admin model-prices): unknown, never 0
        costUsd: null,
        latency,
      },
      {
        model: 'model-b',
        provider: 'openai',
        total: 2,
        passed: 0,
        passRate: 0,
        wilson95: wilsonInterval(0, 2),
        tokens: { input: 80, output: 20, total: 100 },
        costUsd: null,
        latency,
      },
    ]);
    expect(run.summary.cases).toEqual([
      expect.objectContaining({ model: 'model-a', provider: 'openai', total: 2, passed: 2, passAtK: 1, passHatK: 1 }),
      expect.objectContaining({ model: 'model-b', provider: 'openai', total: 2, passed: 0, passAtK: 0, passHatK: 0 }),
    ]);
    const iterations = await allIterations(call, org.projectId, created.body.runId);
    // the models of one run of the case side by side, each run numbered once per model
    expect(iterations.map((i) => [i.iterationNumber, i.model, i.result])).toEqual([
      [1, 'model-a', 'passed'],
      [1, 'model-b', 'failed'],
      [2, 'model-a', 'passed'],
      [2, 'model-b', 'failed'],
    ]);
    expect(new Set(model.calls().map((c) => c.model))).toEqual(new Set(['model-a', 'model-b']));

    // The case routes read and write the models as given.
    const cases = `/projects/${org.projectId}/eval-suites/${created.body.suiteId}/cases`;
    const listed = await call('GET', cases);
    expect(listed.body.items).toEqual([
      expect.objectContaining({
        models: [
          { model: 'model-a', provider: 'openai' },
          { model: 'model-b', provider: 'openai' },
        ],
      }),
    ]);
    const caseId = listed.body.items[0].id;
    const three = [{ model: 'model-a' }, { model: 'model-b' }, { model: 'model-c', provider: 'openai' }];
    const patched = await call('PATCH', `${cases}/${caseId}`, { models: three });
    expect(patched).toMatchObject({ status: 200, body: { models: three } });
    expect((await call('GET', `${cases}/${caseId}`)).body.models).toEqual(three);
    const single = await call('PATCH', `${cases}/${caseId}`, { model: 'model-a', provider: 'openai' });
    expect(single.body.models).toEqual([{ model: 'model-a', provider: 'openai' }]);
  });

  it("a suite's default models run for its cases that name none", async () => {
    const suite = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Suite models',
      serverIds: [serverId],
      model: 'model-a',
      models: [{ model: 'model-a' }, { model: 'model-b' }],
      budget: { maxIterations: 500 },
      tests: [{ title: 'echo', query: 'echo hi', provider: 'openai', expectedToolCalls: ['echo'] }],
    });
    expect(suite.status).toBe(201);
    const detail = await call('GET', `/projects/${org.projectId}/eval-suites/${suite.body.suiteId}`);
    expect(detail.body).toMatchObject({
      models: [{ model: 'model-a' }, { model: 'model-b' }],
      budget: { maxIterations: 500 },
    });
    const created = await newRun({ suiteId: suite.body.suiteId });
    expect(created.status).toBe(202);
    const run = await waitForRun(call, org.projectId, created.body.runId);
    expect(run).toMatchObject({
      status: 'completed',
      summary: { total: 2, passed: 1 },
      budget: { maxIterations: 500 },
    });
    expect(run.summary.models.map((m: { model: string }) => m.model)).toEqual(['model-a', 'model-b']);
  });

  it('the iteration cap bounds the expanded count (cases x runs x models), refused at POST', async () => {
    const before = await stack.sql`SELECT count(*)::int AS n FROM eval_suites`;
    const reply = await newRun({
      suiteName: 'Too many',
      serverIds: [serverId],
      tests: Array.from({ length: 100 }, (_, i) =>
        echoCase({ title: `case ${i}`, runs: 10, models: [{ model: 'model-a' }, { model: 'model-b' }] }),
      ),
    });
    expect(reply).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', details: { reason: 'TOO_MANY_ITERATIONS', limit: 1000, planned: 2000 } },
    });
    expect(await stack.sql`SELECT count(*)::int AS n FROM eval_suites`).toEqual(before);
  });

  it('a maxIterations budget stops the run half-way: completed, stoppedBy budget, pass rate over what ran', async () => {
    const created = await newRun({
      suiteName: 'Iteration budget',
      serverIds: [serverId],
      concurrency: 1,
      budget: { maxIterations: 3 },
      tests: [echoCase({ runs: 6, model: 'model-a' })],
    });
    expect(created.status).toBe(202);
    const runId = created.body.runId;
    const run = await waitForRun(call, org.projectId, runId);
    expect(run).toMatchObject({
      status: 'completed',
      result: 'passed',
      budget: { maxIterations: 3 },
      concurrency: 1,
      progress: { total: 6, completed: 3, passed: 3, failed: 0 },
      summary: { total: 3, passed: 3, passRate: 1, stoppedBy: 'budget' },
    });
    const iterations = await allIterations(call, org.projectId, runId);
    expect(iterations.map((i) => i.status)).toEqual([
      'completed',
      'completed',
      'completed',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    expect(iterations[5]).toMatchObject({
      result: null,
      error: "not run: the run's budget was spent",
      errorDetails: { reason: 'BUDGET_EXHAUSTED' },
    });
    expect(model.calls('model-a').filter((c) => c.lastUserText === 'echo hi').length).toBeGreaterThan(0);

    // The run replays deterministically; recorded (RECORD_HISTORY), it is eval-run-budget-stopped of the replay
    // corpus (test/unit/workflows.test.ts).
    const history = await stack.temporal.workflow.getHandle(evalRunWorkflowId(runId)).fetchHistory();
    if (process.env.RECORD_HISTORY)
      writeFileSync(process.env.RECORD_HISTORY, JSON.stringify(JSON.parse(historyToJSON(history)), null, 2));
    await expect(
      Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, runId),
    ).resolves.toBeUndefined();
  });

  it('a maxTokens budget stops the run once the tokens are spent (in-flight iterations finish)', async () => {
    const created = await newRun({
      suiteName: 'Token budget',
      serverIds: [serverId],
      concurrency: 1,
      budget: { maxTokens: 300 },
      tests: [echoCase({ runs: 8, model: 'model-a' })],
    });
    expect(created.status).toBe(202);
    const run = await waitForRun(call, org.projectId, created.body.runId);
    // 100 tokens an iteration: one measured, then two more (what 200 tokens pay for), then nothing
    expect(run).toMatchObject({
      status: 'completed',
      result: 'passed',
      progress: { total: 8, completed: 3 },
      summary: { total: 3, passed: 3, passRate: 1, stoppedBy: 'budget', tokens: { total: 300 } },
    });
  });

  it('concurrency: 0 and 33 are refused in the envelope; a run plans with the concurrency it asked for', async () => {
    for (const concurrency of [0, 33, 2.5]) {
      const reply = await newRun({
        suiteName: 'Bad concurrency',
        serverIds: [serverId],
        concurrency,
        tests: [echoCase({ model: 'model-a' })],
      });
      expect(reply.status, String(concurrency)).toBe(400);
      expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.any(String) });
      expect(reply.body.details.issues.map((i: { path: string }) => i.path)).toContain('body.concurrency');
    }
    const created = await newRun({
      suiteName: 'Concurrency 3',
      serverIds: [serverId],
      concurrency: 3,
      tests: [echoCase({ runs: 3, model: 'model-a' })],
    });
    expect(created.status).toBe(202);
    await waitForRun(call, org.projectId, created.body.runId);
    expect(await recordedPlan(created.body.runId)).toMatchObject({ concurrency: 3 });
    const byDefault = await newRun({
      suiteName: 'Default concurrency',
      serverIds: [serverId],
      tests: [echoCase({ model: 'model-a' })],
    });
    await waitForRun(call, org.projectId, byDefault.body.runId);
    expect(await recordedPlan(byDefault.body.runId)).toMatchObject({ concurrency: 4 });
  });

  it('runway-admin org-limits sets ceilings: above them is a 400 ABOVE_ORGANIZATION_LIMIT, under them they bound every run', async () => {
    const admin = async (...args: string[]) => {
      const { stdout } = await exec(process.execPath, [...entryArgs('cli/admin.ts'), ...args], {
        cwd: root,
        env: {
          ...process.env,
          DATABASE_URL: stack.db.url,
          RUNWAY_ENCRYPTION_KEY: stack.config.RUNWAY_ENCRYPTION_KEY,
        },
      });
      return args.includes('--json') ? JSON.parse(stdout) : stdout;
    };
    const set = await admin(
      'org-limits',
      '--org',
      org.organizationId,
      '--max-tokens',
      '5000',
      '--max-iterations',
      '2',
      '--max-concurrency',
      '2',
      '--json',
    );
    expect(set).toEqual({
      organizationId: org.organizationId,
      maxTokens: 5000,
      maxIterations: 2,
      maxConcurrency: 2,
      queueRuns: false,
    });
    expect(await admin('org-limits', '--org', org.organizationId)).toMatch(/max concurrency per run: 2/);
    await expect(admin('org-limits', '--org', org.organizationId, '--max-concurrency', '33')).rejects.toThrow(
      /from 1 to 32/,
    );

    try {
      const base = { suiteName: 'Ceilings', serverIds: [serverId], tests: [echoCase({ runs: 3, model: 'model-a' })] };
      const refusals: [Record<string, unknown>, string][] = [
        [{ concurrency: 3 }, 'concurrency'],
        [{ budget: { maxTokens: 5001 } }, 'budget.maxTokens'],
        [{ budget: { maxIterations: 3 } }, 'budget.maxIterations'],
      ];
      const runsBefore = await stack.sql`SELECT count(*)::int AS n FROM eval_runs`;
      for (const [extra, field] of refusals) {
        const reply = await newRun({ ...base, ...extra });
        expect(reply, field).toMatchObject({
          status: 400,
          body: { code: 'VALIDATION_ERROR', details: { reason: 'ABOVE_ORGANIZATION_LIMIT', field } },
        });
      }
      expect(await stack.sql`SELECT count(*)::int AS n FROM eval_runs`).toEqual(runsBefore);

      // A run asking nothing gets the ceilings: 2 of its 3 iterations run, 2 batches in flight at most.
      const created = await newRun(base);
      expect(created.status).toBe(202);
      const run = await waitForRun(call, org.projectId, created.body.runId);
      expect(run).toMatchObject({
        status: 'completed',
        budget: { maxTokens: 5000, maxIterations: 2 },
        summary: { total: 2, stoppedBy: 'budget' },
      });
      expect(await recordedPlan(created.body.runId)).toMatchObject({ concurrency: 2 });
    } finally {
      const cleared = await admin(
        'org-limits',
        '--org',
        org.organizationId,
        '--max-tokens',
        'none',
        '--max-iterations',
        'none',
        '--max-concurrency',
        'none',
        '--json',
      );
      expect(cleared).toMatchObject({ maxTokens: null, maxIterations: null, maxConcurrency: null });
    }
  });
});
