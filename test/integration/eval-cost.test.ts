import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEstimateSchema, evalRunSchema, iterationSchema } from '../../api/schemas/evals.js';
import { comparisonSchema } from '../../api/schemas/compare.js';
import { JUDGE_PROMPT_VERSION } from '../../domain/evals/judge.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { entryArgs } from '../helpers/entryPoints.js';
import { OpenApiReplies, type DocumentedOperation } from '../helpers/openApiReplies.js';
import type { apiClient } from '../helpers/http.js';
import type { SeededOrganization } from '../helpers/seed.js';
import type { TestStack } from '../helpers/stack.js';

// Issue 31, cost, end to end on a stack: an organization's model price set with `runway-admin model-prices`, the
// cost of every iteration, case, model and run (null, never 0, without a price), the compare aggregates' costUsd,
// POST /eval-runs with dryRun (the plan and its expected cost, nothing written), and a budget in money.

const exec = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const KEYS = { openai: 'sk-cost-test' };
/** Every scripted turn: 400 input tokens (100 of them from the cache), 100 output; an iteration is two turns. */
const usage = { prompt_tokens: 400, completion_tokens: 100, cached_tokens: 100 };
/** openai/model-a at $10 input, $20 output, $1 cached input per million: (600 * 10 + 200 * 1 + 200 * 20) / 1e6 */
const ITERATION_USD = 0.0102;

describe('cost', () => {
  let world: EvalWorld;
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;
  let replies: OpenApiReplies;
  let operation: (method: string, path: string) => DocumentedOperation;

  beforeAll(async () => {
    world = await startEvalWorld({ MAX_CONCURRENT_RUNS: '5', EVAL_ITERATION_CONCURRENCY: '1' });
    ({ stack, org, call, serverId } = world);
    world.model.setScript('model-a', [
      { toolCalls: [{ name: 'echo', arguments: { message: 'hi' } }], usage },
      { text: 'said hi', usage },
    ]);
    world.model.setScript('model-b', [{ text: 'no tools today', usage }]);
    const document = await (await fetch(`${stack.baseUrl}/openapi.json`)).json();
    replies = new OpenApiReplies(document as never, { id: 'https://runway.invalid/openapi.json' });
    operation = (method, path) => replies.operations().find((op) => op.method === method && op.path === path)!;
  });
  afterAll(async () => world?.stop());

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
  const newRun = (body: Record<string, unknown>) =>
    call('POST', `/projects/${org.projectId}/eval-runs`, { modelApiKeys: KEYS, ...body });
  const echoCase = (extra: Record<string, unknown>) => ({
    title: 'echo',
    query: 'echo hi',
    provider: 'openai',
    expectedToolCalls: [{ toolName: 'echo' }],
    ...extra,
  });
  /** A finished run, its iterations and its reply held to the document and the schemas. */
  const finishedRun = async (runId: string) => {
    const run = await waitForRun(call, org.projectId, runId);
    expect(replies.replyProblems(operation('get', '/projects/{projectId}/eval-runs/{runId}'), 200, run)).toEqual([]);
    evalRunSchema.parse(run);
    const iterations = await allIterations(call, org.projectId, runId);
    for (const iteration of iterations) iterationSchema.parse(iteration);
    return { run, iterations };
  };
  const counts = async () =>
    (
      await stack.sql<{ runs: number; suites: number; cases: number; iterations: number }[]>`
        SELECT (SELECT count(*)::int FROM eval_runs) AS runs, (SELECT count(*)::int FROM eval_suites) AS suites,
               (SELECT count(*)::int FROM eval_cases) AS cases, (SELECT count(*)::int FROM eval_iterations) AS iterations`
    )[0];

  let unpricedRunId: string;
  let suiteId: string;

  it('without a price, every iteration, case, model and the run cost null (unknown), never 0; cached tokens are recorded', async () => {
    const created = await newRun({
      suiteName: 'Cost',
      serverIds: [serverId],
      tests: [echoCase({ runs: 2, model: 'model-a' })],
    });
    expect(created.status).toBe(202);
    unpricedRunId = created.body.runId;
    suiteId = created.body.suiteId;
    const { run, iterations } = await finishedRun(unpricedRunId);
    expect(run.summary).toMatchObject({ total: 2, passed: 2, costUsd: null, tokens: { total: 2000 } });
    expect(run.summary.cases).toEqual([expect.objectContaining({ total: 2, costUsd: null })]);
    expect(run.summary.models).toEqual([expect.objectContaining({ model: 'model-a', costUsd: null })]);
    expect(iterations.map((i) => [i.costUsd, i.usage])).toEqual([
      [null, { inputTokens: 800, outputTokens: 200, totalTokens: 1000, cachedInputTokens: 200 }],
      [null, { inputTokens: 800, outputTokens: 200, totalTokens: 1000, cachedInputTokens: 200 }],
    ]);
  });

  it("runway-admin model-prices sets an organization's price; its runs are costed with it, and compared with it", async () => {
    const set = await admin(
      'model-prices',
      '--org',
      org.organizationId,
      '--model',
      'openai/model-a',
      '--input',
      '10',
      '--output',
      '20',
      '--cached',
      '1',
      '--json',
    );
    expect(set).toMatchObject({
      organizationId: org.organizationId,
      prices: [
        { model: 'openai/model-a', inputPerMTok: 10, outputPerMTok: 20, cachedInputPerMTok: 1, source: 'organization' },
      ],
    });
    const listed = await admin('model-prices', '--org', org.organizationId);
    expect(listed).toMatch(/openai\/model-a\s+in 10\s+out 20\s+cached 1\s+\(organization\)/);
    expect(listed).toMatch(/openai\/gpt-4\.1-mini\s+in 0\.4\s+out 1\.6\s+cached 0\.1\s+\(default\)/);
    for (const [args, message] of [
      [['--model', 'openai/model-a', '--input=-1', '--output', '1'], /USD per million tokens/],
      [['--model', 'nowhere/model-a', '--input', '1', '--output', '1'], /unknown provider "nowhere"/],
      [['--model', 'openai/model-a', '--input', '1'], /both --input and --output/],
      [['--model', 'openai/never-set', '--clear'], /has no price of its own for openai\/never-set/],
    ] as const)
      await expect(admin('model-prices', '--org', org.organizationId, ...args)).rejects.toThrow(message);

    const created = await newRun({ suiteId, serverIds: [serverId] });
    expect(created.status).toBe(202);
    const { run, iterations } = await finishedRun(created.body.runId);
    expect(iterations.map((i) => i.costUsd)).toEqual([ITERATION_USD, ITERATION_USD]);
    expect(run.summary).toMatchObject({ total: 2, costUsd: 2 * ITERATION_USD });
    expect(run.summary.cases).toEqual([expect.objectContaining({ costUsd: 2 * ITERATION_USD })]);
    expect(run.summary.models).toEqual([expect.objectContaining({ model: 'model-a', costUsd: 2 * ITERATION_USD })]);

    // The compare aggregates: the base ran without a price (unknown), the current with one.
    const compared = await call(
      'GET',
      `/projects/${org.projectId}/eval-runs/${created.body.runId}/compare?baseRunId=${unpricedRunId}`,
    );
    expect(compared.status).toBe(200);
    expect(
      replies.replyProblems(operation('get', '/projects/{projectId}/eval-runs/{runId}/compare'), 200, compared.body),
    ).toEqual([]);
    comparisonSchema.parse(compared.body);
    expect(compared.body.performance).toMatchObject({
      base: { total: 2, costUsd: null },
      current: { total: 2, costUsd: 2 * ITERATION_USD },
    });
  });

  it('dryRun answers 200 with the plan and its expected cost from earlier runs, and writes nothing', async () => {
    const before = await counts();
    const reply = await newRun({ suiteId, serverIds: [serverId], iterationOverride: 3, dryRun: true });
    expect(reply.status).toBe(200);
    expect(replies.replyProblems(operation('post', '/projects/{projectId}/eval-runs'), 200, reply.body)).toEqual([]);
    const estimate = runEstimateSchema.parse(reply.body);
    expect(estimate).toMatchObject({
      dryRun: true,
      suite: { id: suiteId, name: 'Cost' },
      plan: { cases: 1, models: 1, iterations: 3 },
      unpricedModels: [],
      budget: null,
    });
    // Four earlier iterations, every one 800 input (200 cached) and 200 output tokens: no spread.
    expect(estimate.plan.entries).toEqual([
      {
        caseId: expect.stringMatching(/^case_/),
        title: 'echo',
        model: 'model-a',
        provider: 'openai',
        iterations: 3,
        maxIterations: 3,
        basis: 'history',
        historyIterations: 4,
        tokensPerIteration: { input: 800, output: 200 },
        // 3 * 0.0102, rounded to a billionth of a dollar (plain floats say 0.030600000000000002)
        costUsd: { low: 0.0306, expected: 0.0306, high: 0.0306 },
      },
    ]);
    expect(estimate.costUsd).toEqual({ low: 0.0306, expected: 0.0306, high: 0.0306 });
    expect(estimate.tokens).toEqual({ input: 2400, output: 600, total: 3000 });
    expect(await counts()).toEqual(before);
  });

  it('dryRun of a new suite estimates by the stated heuristic, names the models without a price, and creates no suite', async () => {
    const before = await counts();
    const reply = await newRun({
      suiteName: 'Never made',
      serverIds: [serverId],
      tests: [echoCase({ runs: 2, models: [{ model: 'model-a' }, { model: 'model-b' }] })],
      dryRun: true,
    });
    expect(reply.status).toBe(200);
    expect(replies.replyProblems(operation('post', '/projects/{projectId}/eval-runs'), 200, reply.body)).toEqual([]);
    const estimate = runEstimateSchema.parse(reply.body);
    expect(estimate.suite).toEqual({ id: null, name: 'Never made' });
    expect(estimate.plan).toMatchObject({ cases: 1, models: 2, iterations: 4 });
    expect(estimate.plan.entries.map((e) => [e.model, e.basis, e.costUsd === null])).toEqual([
      ['model-a', 'heuristic', false],
      ['model-b', 'heuristic', true],
    ]);
    expect(estimate.costUsd).toBeNull();
    expect(estimate.unpricedModels).toEqual(['openai/model-b']);
    expect(estimate.heuristic).toMatch(/2000 input and 300 output tokens per user prompt/);
    expect(await counts()).toEqual(before);

    // The same checks as a run: a bad request is refused in the envelope, dry or not.
    const refused = await newRun({ suiteId: 'sui_doesnotexist', dryRun: true });
    expect(refused).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  });

  it('a money budget stops the run once its cost is spent; a model without a price cannot have one', async () => {
    // 0.0102 an iteration against 0.025: one measured, one more (what 0.0148 pays for), one more (at least one
    // while money is left), then nothing.
    const created = await newRun({
      suiteId,
      serverIds: [serverId],
      iterationOverride: 8,
      concurrency: 1,
      budget: { maxCostUsd: 0.025 },
    });
    expect(created.status).toBe(202);
    const { run, iterations } = await finishedRun(created.body.runId);
    expect(run).toMatchObject({
      status: 'completed',
      budget: { maxCostUsd: 0.025 },
      progress: { total: 8, completed: 3 },
      summary: { total: 3, stoppedBy: 'budget' },
    });
    expect(run.summary.costUsd).toBeCloseTo(3 * ITERATION_USD, 9);
    expect(iterations.filter((i) => i.status === 'cancelled')).toHaveLength(5);

    const before = await counts();
    const unpriced = await newRun({
      suiteName: 'Unpriced budget',
      serverIds: [serverId],
      tests: [echoCase({ model: 'model-b' })],
      budget: { maxCostUsd: 1 },
    });
    expect(unpriced).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        details: { reason: 'UNKNOWN_MODEL_PRICE', field: 'budget.maxCostUsd', models: ['openai/model-b'] },
      },
    });
    expect(await counts()).toEqual(before);
    for (const maxCostUsd of [0, -1, 'one'])
      expect((await newRun({ suiteId, budget: { maxCostUsd } })).status, String(maxCostUsd)).toBe(400);

    // A suite's default budget may be in money too: the runs that give none get it (here, a dry run shows it).
    const suitePath = `/projects/${org.projectId}/eval-suites/${suiteId}`;
    const patched = await call('PATCH', suitePath, { budget: { maxCostUsd: 1 } });
    expect(patched.status).toBe(200);
    expect(patched.body.budget).toEqual({ maxCostUsd: 1 });
    const dry = await newRun({ suiteId, serverIds: [serverId], dryRun: true });
    expect(dry).toMatchObject({ status: 200, body: { budget: { maxCostUsd: 1 } } });
    expect((await call('PATCH', suitePath, { budget: null })).status).toBe(200);
  });

  it("a judge's tokens cost the judge model's price, the agent's the agent model's", async () => {
    world.model.setScript('model-c', [{ text: 'Paris', usage: { prompt_tokens: 400, completion_tokens: 100 } }]);
    world.model.setScript('judge-c', {
      byQuery: {
        [JUDGE_PROMPT_VERSION]: [
          {
            text: '{"pass": true, "score": 1, "reason": "Paris."}',
            usage: { prompt_tokens: 1000, completion_tokens: 50 },
          },
        ],
      },
    });
    for (const [name, input, output] of [
      ['openai/model-c', '10', '20'],
      ['openai/judge-c', '1', '2'],
    ])
      await admin('model-prices', '--org', org.organizationId, '--model', name, '--input', input, '--output', output);
    const created = await newRun({
      suiteName: 'Judged cost',
      serverIds: [serverId],
      judgeModel: { model: 'judge-c', provider: 'openai' },
      tests: [
        {
          title: 'capital',
          query: 'What is the capital of France?',
          model: 'model-c',
          provider: 'openai',
          expectedOutput: 'Paris',
          outputCheck: { mode: 'judge' },
        },
      ],
    });
    expect(created.status).toBe(202);
    const { run, iterations } = await finishedRun(created.body.runId);
    expect(run.summary).toMatchObject({ total: 1, passed: 1 });
    // (400 * 10 + 100 * 20) / 1e6 for the agent + (1000 * 1 + 50 * 2) / 1e6 for the judge; at the agent's price
    // the judge alone would be 0.011
    expect(iterations[0]).toMatchObject({ usage: { totalTokens: 1550 }, costUsd: 0.0071 });
    expect(run.summary.costUsd).toBe(0.0071);
  });

  it('runway-admin model-prices --clear drops the organization price: the model is unknown again', async () => {
    const cleared = await admin(
      'model-prices',
      '--org',
      org.organizationId,
      '--model',
      'openai/model-a',
      '--clear',
      '--json',
    );
    expect(cleared).toEqual({
      organizationId: org.organizationId,
      defaultsAsOf: expect.any(String),
      prices: [],
      cleared: 'openai/model-a',
    });
    const created = await newRun({ suiteId, serverIds: [serverId], iterationOverride: 1 });
    const { run } = await finishedRun(created.body.runId);
    expect(run.summary).toMatchObject({ total: 1, costUsd: null });
  });
});
