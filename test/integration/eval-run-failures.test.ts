import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setProviderKey } from '../../db/providerKeys.js';
import { progressQuery } from '../../workflows/definitions.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { countVerdicts, finishedCount } from '../../domain/evals/verdicts.js';

/**
 * Iterations whose model cannot answer (issue 20 item 5): what cannot recover fails at once with its reason, what may
 * recover is retried (after the delay the provider asked for) up to the attempt cap, and the run says how many
 * iterations errored, apart from those that completed and failed.
 */
describe('eval runs whose model fails', () => {
  let world: EvalWorld;

  beforeAll(async () => {
    world = await startEvalWorld();
  });
  afterAll(async () => world?.stop());

  const start = async (name: string, tests: object[], modelApiKeys: Record<string, string> = { openai: 'sk-run' }) => {
    const created = await world.call('POST', `/projects/${world.org.projectId}/eval-runs`, {
      suiteName: name,
      serverIds: [world.serverId],
      modelApiKeys,
      tests,
    });
    expect(created.status).toBe(202);
    return created.body.runId as string;
  };
  const errorDetails = async (runId: string) =>
    (
      await world.stack.sql<
        { error_details: unknown }[]
      >`SELECT error_details FROM eval_iterations WHERE run_id = ${runId} ORDER BY seq`
    ).map((r) => r.error_details);

  it('fails every iteration at once when the provider host does not resolve, with the reason in error', async () => {
    const { stack, org, call } = world;
    // `.invalid` never resolves (RFC 2606)
    await setProviderKey(stack.sql, stack.box, {
      organizationId: org.organizationId,
      provider: 'openai-compatible',
      apiKey: 'k',
      baseUrl: 'http://runway-no-such-host.invalid/v1',
    });
    const runId = await start(
      'Unreachable provider',
      [
        {
          title: 'first',
          query: 'q1',
          model: 'any-model',
          provider: 'openai-compatible',
          runs: 2,
          isNegativeTest: true,
        },
        {
          title: 'second',
          query: 'q2',
          model: 'any-model',
          provider: 'openai-compatible',
          runs: 2,
          isNegativeTest: true,
        },
      ],
      { 'openai-compatible': 'k' },
    );

    const run = await waitForRun(call, org.projectId, runId);
    expect(run).toMatchObject({
      status: 'completed',
      result: 'failed',
      // Errored, not failed (domain/evals/verdicts.ts): nothing could be scored.
      summary: { total: 4, passed: 0, failed: 0, errored: 4, passRate: 0 },
      progress: { total: 4, completed: 4, passed: 0, failed: 0, errored: 4 },
    });
    // So does the workflow, for operators (Temporal Web UI, `temporal workflow query --type progress`).
    expect(await stack.temporal.workflow.getHandle(`eval-run:${runId}`).query(progressQuery)).toEqual({
      total: 4,
      completed: 4,
      passed: 0,
      failed: 0,
      errored: 4,
    });
    // The suite list says the same of its latest run.
    const suites = (await call('GET', `/projects/${org.projectId}/eval-suites`)).body.items;
    expect(suites.find((s: { id: string }) => s.id === run.suiteId).latestRun).toMatchObject({
      passed: 0,
      failed: 0,
      errored: 4,
    });
    const iterations = await allIterations(call, org.projectId, runId);
    for (const iteration of iterations) {
      expect(iteration).toMatchObject({
        status: 'failed',
        result: 'failed',
        error: expect.stringMatching(/could not reach the model provider: .*ENOTFOUND runway-no-such-host\.invalid/),
      });
      expect(iteration.errorDetails).toEqual({
        reason: 'PROVIDER_HOST_NOT_FOUND',
        provider: 'openai-compatible',
        model: 'any-model',
        attempt: 1,
      });
    }
    // recorded at the first attempt of the batch: never retried
    expect(await errorDetails(runId)).toEqual(
      Array(4).fill({
        reason: 'PROVIDER_HOST_NOT_FOUND',
        provider: 'openai-compatible',
        model: 'any-model',
        attempt: 1,
      }),
    );
  });

  it('fails an iteration at once when the provider refuses the key (401), calling it once', async () => {
    const { model, org, call } = world;
    model.setScript('rejects-key', [
      { error: { status: 401, message: 'Incorrect API key provided', code: 'invalid_api_key' } },
    ]);
    const runId = await start('Refused key', [
      { title: 'refused', query: 'q', model: 'rejects-key', provider: 'openai', runs: 2, isNegativeTest: true },
    ]);

    const run = await waitForRun(call, org.projectId, runId);
    expect(run).toMatchObject({ status: 'completed', result: 'failed', summary: { total: 2, failed: 0, errored: 2 } });
    const iterations = await allIterations(call, org.projectId, runId);
    expect(iterations.map((i) => [i.status, i.error])).toEqual(
      Array(2).fill(['failed', expect.stringMatching(/rejected the API key \(HTTP 401\): Incorrect API key provided/)]),
    );
    expect(await errorDetails(runId)).toEqual(
      Array(2).fill({
        reason: 'PROVIDER_AUTH_FAILED',
        status: 401,
        provider: 'openai',
        model: 'rejects-key',
        attempt: 1,
      }),
    );
    expect(model.calls('rejects-key')).toHaveLength(2);
  });

  it('fails an iteration at once when the provider does not know the model (404)', async () => {
    const { model, org, call } = world;
    model.setScript('no-such-model', [
      { error: { status: 404, message: 'The model `no-such-model` does not exist', code: 'model_not_found' } },
    ]);
    const runId = await start('Unknown model', [
      { title: 'unknown', query: 'q', model: 'no-such-model', provider: 'openai', isNegativeTest: true },
    ]);

    expect(await waitForRun(call, org.projectId, runId)).toMatchObject({ summary: { total: 1, errored: 1 } });
    const [iteration] = await allIterations(call, org.projectId, runId);
    expect(iteration.error).toMatch(/does not know the model \(HTTP 404\)/);
    expect(await errorDetails(runId)).toEqual([
      { reason: 'MODEL_NOT_FOUND', status: 404, provider: 'openai', model: 'no-such-model', attempt: 1 },
    ]);
    expect(model.calls('no-such-model')).toHaveLength(1);
  });

  it('counts errored iterations apart from those that completed and failed', async () => {
    const { model, org, call } = world;
    model.setScript('mixed', {
      byQuery: { 'no tools': [{ text: 'fine' }], broken: [{ error: { status: 403, message: 'denied' } }] },
    });
    const runId = await start('Mixed', [
      { title: 'passes', query: 'no tools', model: 'mixed', provider: 'openai', isNegativeTest: true },
      {
        title: 'misses',
        query: 'no tools',
        model: 'mixed',
        provider: 'openai',
        expectedToolCalls: [{ toolName: 'echo' }],
      },
      { title: 'breaks', query: 'broken', model: 'mixed', provider: 'openai', isNegativeTest: true },
    ]);
    const run = await waitForRun(call, org.projectId, runId);
    expect(run.summary).toMatchObject({ total: 3, passed: 1, failed: 1, errored: 1 });
    expect(run.progress).toEqual({ total: 3, completed: 3, passed: 1, failed: 1, errored: 1 });
    const iterations = await allIterations(call, org.projectId, runId);
    // The API's counts are the one definition applied to the iterations it lists.
    const counts = countVerdicts(iterations);
    expect(run.progress).toEqual({
      total: counts.total,
      completed: finishedCount(counts),
      passed: counts.passed,
      failed: counts.failed,
      errored: counts.errored,
    });
    expect(run.summary).toMatchObject({ total: finishedCount(counts), passed: 1, failed: 1, errored: 1 });
    expect(iterations.map((i) => [i.title, i.status, i.result, i.errorDetails?.reason ?? null])).toEqual([
      ['passes', 'completed', 'passed', null],
      ['misses', 'completed', 'failed', null],
      ['breaks', 'failed', 'failed', 'PROVIDER_AUTH_FAILED'],
    ]);
  });

  it('retries a rate limit after the Retry-After the provider gave, then completes', async () => {
    const { model, org, call } = world;
    // Three calls are told to wait 4 s; the next works.
    model.setScript('rate-limited', [
      { error: { status: 429, message: 'Rate limit reached', retryAfterMs: 4_000, times: 3 }, text: 'fine' },
    ]);
    const runId = await start('Rate limited', [
      { title: 'limited', query: 'q', model: 'rate-limited', provider: 'openai', isNegativeTest: true },
    ]);

    const run = await waitForRun(call, org.projectId, runId);
    expect(run).toMatchObject({ status: 'completed', result: 'passed', summary: { total: 1, passed: 1, errored: 0 } });
    const calls = model.calls('rate-limited');
    expect(calls.map((c) => c.status)).toEqual([429, 429, 429, 200]);
    // The call after the last refusal came no sooner than the provider asked (Temporal's own first backoff is 1 s).
    expect(calls[3]!.time - calls[2]!.time).toBeGreaterThanOrEqual(3_900);
  });

  it('retries an outage up to the attempt cap, then records the iteration as failed with the reason and the attempts', async () => {
    const { model, org, call } = world;
    model.setScript('always-down', [{ error: { status: 503, message: 'Service Unavailable', retryAfterMs: 1 } }]);
    const runId = await start('Down', [
      { title: 'down', query: 'q', model: 'always-down', provider: 'openai', isNegativeTest: true },
    ]);

    const run = await waitForRun(call, org.projectId, runId, undefined, 90_000);
    expect(run).toMatchObject({ status: 'completed', result: 'failed', summary: { total: 1, errored: 1 } });
    const [iteration] = await allIterations(call, org.projectId, runId);
    expect(iteration.error).toMatch(
      /unavailable \(HTTP 503\): Service Unavailable \(still failing after 5 attempts\)$/,
    );
    expect(await errorDetails(runId)).toEqual([
      { reason: 'PROVIDER_UNAVAILABLE', status: 503, provider: 'openai', model: 'always-down', attempt: 5 },
    ]);
    // 5 attempts of the batch, one call each: the AI SDK retries nothing (retries are Temporal's)
    expect(model.calls('always-down')).toHaveLength(5);
  }, 120_000);
});
