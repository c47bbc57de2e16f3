import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { progressQuery } from '../../workflows/definitions.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import type { apiClient } from '../helpers/http.js';
import type { ScriptedModelServer } from '../fixtures/model/server.js';
import type { SeededOrganization } from '../helpers/seed.js';
import type { TestStack } from '../helpers/stack.js';

const RUN_KEY = 'sk-run-secret-7f3a';

describe('eval runs through the HTTP API', () => {
  let world: EvalWorld;
  let stack: TestStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;

  beforeAll(async () => {
    world = await startEvalWorld({ HOSTED_MODELS: 'openai/hosted-mini', MAX_CONCURRENT_RUNS: '5' });
    ({ stack, model, org, call, serverId } = world);
  });
  afterAll(async () => world?.stop());

  const newRun = (body: Record<string, unknown>) => call('POST', `/projects/${org.projectId}/eval-runs`, body);

  it('POST /eval-suites authors a suite and runs nothing', async () => {
    const reply = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Authored',
      serverIds: [serverId],
      model: 'openai/hosted-mini',
      tests: [
        { title: 'echo', query: 'say hi', expectedToolCalls: ['echo'] },
        { title: 'sum', query: 'add', runs: 3, expectedToolCalls: [{ toolName: 'get-sum', arguments: { a: 1 } }] },
      ],
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      suiteId: expect.stringMatching(/^sui_/),
      name: 'Authored',
      servers: [{ id: serverId, name: 'everything' }],
      caseUpsert: {
        committed: [
          { id: expect.any(String), name: 'echo' },
          { id: expect.any(String), name: 'sum' },
        ],
        failed: [],
      },
    });
    const runs = await call('GET', `/projects/${org.projectId}/eval-suites/${reply.body.suiteId}/runs`);
    expect(runs.body.items).toEqual([]);
    // Names are not unique: the same name again is another suite.
    const again = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Authored',
      serverIds: [serverId],
      model: 'openai/hosted-mini',
      tests: [{ title: 'echo', query: 'say hi' }],
    });
    expect(again.status).toBe(201);
    expect(again.body.suiteId).not.toBe(reply.body.suiteId);
  });

  it('runs a new suite end to end: passing, failing, negative, mismatched, out-of-order and tool-error cases', async () => {
    model.setScript('scripted-1', {
      byQuery: {
        'echo hello': [{ toolCalls: [{ name: 'echo', arguments: { message: 'hello' } }] }, { text: 'It said hello.' }],
        'echo wrong': [{ toolCalls: [{ name: 'echo', arguments: { message: 'bye' } }] }, { text: 'done' }],
        'say nothing': [{ text: 'No tools needed.' }],
        'two calls': [
          {
            toolCalls: [
              { name: 'get-sum', arguments: { a: 1, b: 2 } },
              { name: 'echo', arguments: { message: 'x' } },
            ],
          },
          { text: '3' },
        ],
        'broken sum': [{ toolCalls: [{ name: 'get-sum', arguments: { a: 'one', b: 2 } }] }, { text: 'failed' }],
      },
    });
    const common = { model: 'scripted-1', provider: 'openai', runs: 2 };
    const created = await newRun({
      suiteName: 'Everything checks',
      serverIds: [serverId],
      modelApiKeys: { openai: RUN_KEY },
      notes: 'first run',
      tests: [
        {
          ...common,
          title: 'passes',
          query: 'echo hello',
          expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
        },
        {
          ...common,
          title: 'mismatch',
          query: 'echo wrong',
          expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
        },
        { ...common, title: 'negative', query: 'say nothing', isNegativeTest: true },
        {
          ...common,
          title: 'order',
          query: 'two calls',
          expectedToolCalls: [{ toolName: 'echo' }, { toolName: 'get-sum', arguments: { a: 'number' } }],
          matchOptions: { toolCallOrder: 'strict' },
        },
        { ...common, title: 'tool error', query: 'broken sum', expectedToolCalls: [{ toolName: 'get-sum' }] },
      ],
    });
    expect(created.status).toBe(202);
    expect(created.body).toEqual({
      runId: expect.stringMatching(/^run_/),
      suiteId: expect.stringMatching(/^sui_/),
      status: 'running',
      caseUpsert: {
        committed: ['passes', 'mismatch', 'negative', 'order', 'tool error'].map((name) => ({
          id: expect.any(String),
          name,
        })),
        failed: [],
      },
      servers: [{ id: serverId, name: 'everything' }],
    });
    const { runId, suiteId } = created.body;

    const run = await waitForRun(call, org.projectId, runId);
    expect(run).toMatchObject({
      id: runId,
      suiteId,
      runNumber: 1,
      status: 'completed',
      result: 'failed',
      source: 'api',
      notes: 'first run',
      passCriteria: { minimumPassRate: 100 },
      progress: { total: 10, completed: 10, passed: 4, failed: 6 },
      summary: { total: 10, passed: 4, failed: 6, passRate: 0.4 },
    });
    expect(run.summary.passRateInterval.low).toBeGreaterThan(0.1);
    expect(run.summary.passAtK).toEqual({ k: 2, value: 0.4 });
    expect(run.summary.tokens.total).toBeGreaterThan(0);
    expect(run.summary.latencyMs.p50).toBeGreaterThan(0);
    expect(run.completedAt).toBeGreaterThanOrEqual(run.createdAt);
    // Operators can ask the workflow itself (Temporal Web UI, `temporal workflow query --type progress`).
    expect(await stack.temporal.workflow.getHandle(`eval-run:${runId}`).query(progressQuery)).toEqual({
      total: 10,
      completed: 10,
      passed: 4,
      failed: 6,
      errored: 0,
    });

    const iterations = await allIterations(call, org.projectId, runId, 3);
    expect(iterations).toHaveLength(10);
    const byTitle = (title: string) => iterations.filter((i) => i.title === title);
    expect(byTitle('passes').map((i) => i.result)).toEqual(['passed', 'passed']);
    expect(byTitle('negative').map((i) => i.result)).toEqual(['passed', 'passed']);
    for (const title of ['mismatch', 'order', 'tool error'])
      expect(byTitle(title).map((i) => i.result)).toEqual(['failed', 'failed']);
    expect(byTitle('passes')[0]).toMatchObject({
      status: 'completed',
      iterationNumber: 1,
      model: 'scripted-1',
      provider: 'openai',
      durationMs: expect.any(Number),
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number), totalTokens: expect.any(Number) },
      actualToolCalls: [expect.objectContaining({ toolName: 'echo', arguments: { message: 'hello' }, isError: false })],
      expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
      error: null,
    });
    expect(byTitle('tool error')[0].actualToolCalls[0]).toMatchObject({ toolName: 'get-sum', isError: true });

    const mismatch = byTitle('mismatch')[0];
    const trace = await call('GET', `/projects/${org.projectId}/eval-runs/${runId}/iterations/${mismatch.id}/trace`);
    expect(trace.status).toBe(200);
    expect(trace.body.traceVersion).toBe(1);
    expect(trace.body.prompts[0]).toMatchObject({
      promptIndex: 0,
      prompt: 'echo wrong',
      passed: false,
      missing: [],
      argumentMismatches: [
        {
          expected: { toolName: 'echo', arguments: { message: 'hello' } },
          actual: expect.objectContaining({ toolName: 'echo' }),
          mismatchedArguments: ['message'],
        },
      ],
    });
    expect(trace.body.messages.length).toBeGreaterThanOrEqual(3);
    expect(trace.body.spans.map((s: { category: string }) => s.category)).toEqual(
      expect.arrayContaining(['step', 'llm', 'tool']),
    );

    // Every model call used the run's own key, never the organization's.
    const calls = model.calls('scripted-1');
    expect(calls.length).toBeGreaterThanOrEqual(18);
    expect(new Set(calls.map((c) => c.apiKey))).toEqual(new Set([RUN_KEY]));
    expect(calls.filter((c) => c.lastUserText === 'echo hello' && c.turnIndex === 0)).toHaveLength(2);
  });

  it('keeps per-run model keys out of the database once the run ends, and out of workflow history', async () => {
    const runs = await stack.sql`SELECT id, model_keys_enc FROM eval_runs WHERE status <> 'running'`;
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.model_keys_enc === null)).toBe(true);
    for (const { id } of runs) {
      const history = await stack.temporal.workflow.getHandle(`eval-run:${id}`).fetchHistory();
      expect(JSON.stringify(history)).not.toContain(RUN_KEY);
    }
    expect(stack.logs.join('')).not.toContain(RUN_KEY);
  });

  it('reruns a suite by id, honours passCriteria and iterationOverride, and lists runs and suites', async () => {
    model.setScript('scripted-2', [{ toolCalls: [{ name: 'echo', arguments: { message: 'hi' } }] }, { text: 'ok' }]);
    const first = await newRun({
      suiteName: 'Rerunnable',
      serverIds: [serverId],
      modelApiKeys: { openai: RUN_KEY },
      tests: [
        {
          title: 'echo',
          query: 'echo hi',
          model: 'scripted-2',
          provider: 'openai',
          expectedToolCalls: [{ toolName: 'echo' }],
        },
      ],
    });
    await waitForRun(call, org.projectId, first.body.runId);

    model.setScript('scripted-3', [{ text: 'nope' }]);
    const rerun = await newRun({
      suiteId: first.body.suiteId,
      modelApiKeys: { openai: RUN_KEY },
      iterationOverride: 3,
      passCriteria: { minimumPassRate: 50 },
      tests: [
        {
          title: 'never calls',
          query: 'plain question',
          model: 'scripted-3',
          provider: 'openai',
          expectedToolCalls: [{ toolName: 'echo' }],
        },
      ],
    });
    expect(rerun.status).toBe(202);
    expect(rerun.body.servers).toEqual([{ id: serverId, name: 'everything' }]);
    const done = await waitForRun(call, org.projectId, rerun.body.runId);
    // both cases run (3 iterations each): echo passes, "never calls" fails -> 50% >= 50%
    expect(done).toMatchObject({
      runNumber: 2,
      status: 'completed',
      result: 'passed',
      summary: { total: 6, passed: 3, passRate: 0.5 },
    });

    const runs = await call('GET', `/projects/${org.projectId}/eval-suites/${first.body.suiteId}/runs`);
    expect(runs.body.items.map((r: { runNumber: number }) => r.runNumber)).toEqual([2, 1]);
    const suites = await call('GET', `/projects/${org.projectId}/eval-suites`);
    const suite = suites.body.items.find((s: { id: string }) => s.id === first.body.suiteId);
    expect(suite).toMatchObject({
      name: 'Rerunnable',
      serverIds: [serverId],
      totals: { runs: 2, passed: 2, failed: 0 },
      passRateTrend: [1, 0.5],
      latestRun: { id: rerun.body.runId, status: 'completed', result: 'passed', passRate: 0.5, passed: 3, failed: 3 },
    });
  });

  it("runs hosted catalog models on the organization's provider key", async () => {
    model.setScript('hosted-mini', [{ text: 'hosted' }]);
    const created = await newRun({
      suiteName: 'Hosted',
      serverIds: [serverId],
      tests: [{ title: 'neg', query: 'hello', model: 'openai/hosted-mini', isNegativeTest: true }],
    });
    expect(created.status).toBe(202);
    expect(await waitForRun(call, org.projectId, created.body.runId)).toMatchObject({
      status: 'completed',
      result: 'passed',
    });
    expect(new Set(model.calls('hosted-mini').map((c) => c.apiKey))).toEqual(new Set(['org-key']));
  });

  it('tags the workflow with search attributes for Temporal Web UI', async () => {
    const created = await newRun({
      suiteName: 'Tagged',
      serverIds: [serverId],
      tests: [{ title: 't', query: 'q', model: 'openai/hosted-mini', isNegativeTest: true }],
    });
    await waitForRun(call, org.projectId, created.body.runId);
    const description = await stack.temporal.workflow.getHandle(`eval-run:${created.body.runId}`).describe();
    const attributes = Object.fromEntries(description.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]));
    expect(attributes).toMatchObject({
      RunwayOrganizationId: org.organizationId,
      RunwayProjectId: org.projectId,
      RunwaySuiteId: created.body.suiteId,
      RunwaySource: 'api',
    });
  });

  it('describes the workflow for Temporal Web UI: suite, project, source and iterations', async () => {
    const created = await newRun({
      suiteName: 'Described',
      serverIds: [serverId],
      iterationOverride: 2,
      tests: [
        { title: 'a', query: 'q', model: 'openai/hosted-mini', isNegativeTest: true },
        { title: 'b', query: 'q', model: 'openai/hosted-mini', isNegativeTest: true },
      ],
    });
    await waitForRun(call, org.projectId, created.body.runId);
    const description = await stack.temporal.workflow.getHandle(`eval-run:${created.body.runId}`).describe();
    expect(await description.staticSummary()).toBe('Eval run of Described: 4 iterations');
    const details = await description.staticDetails();
    for (const line of [
      `**Run** ${created.body.runId}`,
      `**Suite** Described (${created.body.suiteId})`,
      `(${org.projectId})`,
      '**Source** api',
      '**Iterations** 4',
    ]) {
      expect(details).toContain(line);
    }
  });

  it('sets RunwayResult when the run ends, so a visibility query finds runs by how they ended', async () => {
    model.setScript('hosted-mini', [{ text: 'No tools needed.' }]);
    const passing = await newRun({
      suiteName: 'Ends passed',
      serverIds: [serverId],
      tests: [{ title: 'neg', query: 'q', model: 'openai/hosted-mini', isNegativeTest: true }],
    });
    const failing = await newRun({
      suiteName: 'Ends failed',
      serverIds: [serverId],
      tests: [{ title: 'echo', query: 'q', model: 'openai/hosted-mini', expectedToolCalls: [{ toolName: 'echo' }] }],
    });
    for (const created of [passing, failing]) {
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      await waitForRun(call, org.projectId, created.body.runId);
      await stack.temporal.workflow.getHandle(`eval-run:${created.body.runId}`).result();
    }
    const description = await stack.temporal.workflow.getHandle(`eval-run:${failing.body.runId}`).describe();
    expect(
      Object.fromEntries(description.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])),
    ).toMatchObject({ RunwayResult: 'failed' });

    // Visibility is eventually consistent: the query sees the upsert shortly after the workflow closed.
    const listed = async (result: string) => {
      const ids: string[] = [];
      for await (const workflow of stack.temporal.workflow.list({
        query: `RunwayResult = "${result}" AND RunwayProjectId = "${org.projectId}"`,
      }))
        ids.push(workflow.workflowId);
      return ids;
    };
    await vi.waitFor(
      async () => {
        const passed = await listed('passed');
        expect(passed).toContain(`eval-run:${passing.body.runId}`);
        expect(passed).not.toContain(`eval-run:${failing.body.runId}`);
        const failed = await listed('failed');
        expect(failed).toContain(`eval-run:${failing.body.runId}`);
        expect(failed).not.toContain(`eval-run:${passing.body.runId}`);
      },
      { timeout: 15_000, interval: 200 },
    );
  });

  it('returns 404 TRACE_NOT_AVAILABLE for an iteration without a trace, 404 for unknown ids', async () => {
    const created = await newRun({
      suiteName: 'Traceless',
      serverIds: [serverId],
      tests: [{ title: 't', query: 'q', model: 'openai/hosted-mini', isNegativeTest: true }],
    });
    await waitForRun(call, org.projectId, created.body.runId);
    const [iteration] = await allIterations(call, org.projectId, created.body.runId);
    await stack.sql`DELETE FROM eval_traces WHERE iteration_id = ${iteration.id}`;
    const missing = await call(
      'GET',
      `/projects/${org.projectId}/eval-runs/${created.body.runId}/iterations/${iteration.id}/trace`,
    );
    expect(missing).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND', details: { reason: 'TRACE_NOT_AVAILABLE' } },
    });
    expect((await call('GET', `/projects/${org.projectId}/eval-runs/run_nope`)).status).toBe(404);
    expect(
      (await call('GET', `/projects/${org.projectId}/eval-runs/${created.body.runId}/iterations/itr_nope/trace`))
        .status,
    ).toBe(404);
  });
});
