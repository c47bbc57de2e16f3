/**
 * Issue 27, findings 3 and 4: a tenant's output checks cannot monopolize the worker. An ambiguous regex
 * (`^(a|a)*$`) over twenty turns of five iterations, a json-subset check on an answer of 40,000 unclosed brackets
 * and one on an answer nested 20,000 deep each end their iterations as failed checks with a reason (not errored, not
 * retried), and another organization's small run during them keeps its normal time (a ratio of its own baseline).
 * A json-subset expectation nested 20,000 deep is refused at the edge, naming the case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { expectUnharmed, RUN_FLOOR_MS, startBystander } from '../helpers/fairness.js';

const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

describe('hostile output checks', () => {
  let world: EvalWorld;
  let bystander: Awaited<ReturnType<typeof startBystander>>;

  beforeAll(async () => {
    world = await startEvalWorld();
    bystander = await startBystander(world.stack, world.model);
  });
  afterAll(async () => world?.stop());

  const path = (rest: string) => `/projects/${world.org.projectId}${rest}`;

  /**
   * Starts the hostile run and, once its model has answered `answers` requests (an iteration's checks come next),
   * the bystander's run: the bystander must keep within 3x of its baseline (measured before the attack), and the
   * hostile run must end.
   */
  async function duringHostileRun(body: { model: string } & Record<string, unknown>, answers: number) {
    const baseline = await bystander.baselineMs();
    const created = await world.call('POST', path('/eval-runs'), { serverIds: [world.serverId], ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const runId: string = created.body.runId;
    while (world.model.calls(body.model).filter((c) => c.outcome === 'stop').length < answers)
      await new Promise((r) => setTimeout(r, 10));
    expectUnharmed('bystander run', baseline, await bystander.runMs(), 3, RUN_FLOOR_MS);
    const run = await waitForRun(world.call, world.org.projectId, runId);
    return { runId, run };
  }

  /** Every iteration completed as a failed check with `reason` on each checked turn: not errored, not retried. */
  async function expectFailedChecks(runId: string, reason: string | RegExp) {
    const iterations = await allIterations(world.call, world.org.projectId, runId);
    for (const iteration of iterations) {
      expect(iteration, JSON.stringify(iteration.error)).toMatchObject({
        status: 'completed',
        result: 'failed',
        error: null,
      });
      const trace = await world.call('GET', path(`/eval-runs/${runId}/iterations/${iteration.id}/trace`));
      expect(trace.status).toBe(200);
      const checked = trace.body.prompts.filter((p: { outputCheck?: unknown }) => p.outputCheck);
      expect(checked.length).toBeGreaterThan(0);
      for (const prompt of checked) {
        expect(prompt.passed).toBe(false);
        expect(prompt.outputCheck.reason).toMatch(reason);
      }
    }
    return iterations;
  }

  it('an ambiguous regex over 5 iterations x 20 turns fails its checks, and the bystander run keeps its time', async () => {
    world.model.setScript('hostile-regex', { byQuery: {}, default: [{ text: `${'a'.repeat(40)}!` }] });
    const turns = Array.from({ length: 20 }, (_, i) => ({
      prompt: `turn ${i}`,
      expectedOutput: '^(a|a)*$',
      outputCheck: { mode: 'regex' },
    }));
    const { runId, run } = await duringHostileRun(
      {
        suiteName: 'Hostile regex',
        model: 'hostile-regex',
        tests: [{ title: 'ambiguous alternation', provider: 'openai', runs: 5, turns }],
      },
      20,
    );
    expect(run).toMatchObject({ status: 'completed', result: 'failed', summary: { total: 5, failed: 5 } });
    const iterations = await expectFailedChecks(runId, 'the final answer does not match /^(a|a)*$/');
    expect(iterations).toHaveLength(5);
  }, 180_000);

  it('json-subset on 40,000 unclosed brackets and on a 20,000-deep answer fails its checks, bystander unharmed', async () => {
    world.model.setScript('hostile-json', {
      byQuery: {
        'unclosed brackets': [{ text: '['.repeat(40_000) }],
        'deep answer': [{ text: deep(20_000) }],
      },
    });
    const check = { mode: 'json-subset' };
    const { runId, run } = await duringHostileRun(
      {
        suiteName: 'Hostile JSON',
        model: 'hostile-json',
        tests: [
          {
            title: 'unclosed',
            query: 'unclosed brackets',
            provider: 'openai',
            runs: 3,
            expectedOutput: '[]',
            outputCheck: check,
          },
          {
            title: 'deep',
            query: 'deep answer',
            provider: 'openai',
            runs: 3,
            expectedOutput: '[[["x"]]]',
            outputCheck: check,
          },
        ],
      },
      1,
    );
    expect(run).toMatchObject({ status: 'completed', result: 'failed', summary: { total: 6, failed: 6 } });
    const iterations = await allIterations(world.call, world.org.projectId, runId);
    const runOf = (title: string) => iterations.filter((i) => i.title === title);
    expect(runOf('unclosed')).toHaveLength(3);
    expect(runOf('deep')).toHaveLength(3);
    await expectFailedChecks(
      runId,
      /^the final answer holds no JSON value$|^the final answer's JSON is nested deeper than 64 levels$/,
    );
    const reasons = await Promise.all(
      iterations.map(async (i) => {
        const trace = await world.call('GET', path(`/eval-runs/${runId}/iterations/${i.id}/trace`));
        return [i.title, trace.body.prompts[0].outputCheck.reason];
      }),
    );
    for (const [title, reason] of reasons)
      expect(reason).toBe(
        title === 'unclosed'
          ? 'the final answer holds no JSON value'
          : "the final answer's JSON is nested deeper than 64 levels",
      );
  }, 180_000);

  it('a json-subset expectation nested 20,000 deep is refused at the edge, naming the case', async () => {
    const check = { mode: 'json-subset' };
    const fine = { title: 'fine', query: 'q', provider: 'openai', expectedOutput: '{"a":1}', outputCheck: check };
    const tooDeep = {
      title: 'deep',
      query: 'q2',
      provider: 'openai',
      expectedOutput: deep(20_000),
      outputCheck: check,
    };
    const message = 'json-subset check: expectedOutput is JSON nested deeper than 64 levels';
    const refused = (reply: { status: number; body: any }, path: string) => {
      expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(400);
      expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', message: `${path}: ${message}` });
    };
    const common = { serverIds: [world.serverId], model: 'hostile-json' };
    refused(
      await world.call('POST', path('/eval-runs'), { suiteName: 'Deep', ...common, tests: [fine, tooDeep] }),
      'body.tests.1.expectedOutput',
    );
    refused(
      await world.call('POST', path('/eval-suites'), { name: 'Deep', ...common, tests: [fine, tooDeep] }),
      'body.tests.1.expectedOutput',
    );
    refused(
      await world.call('POST', path('/eval-suites'), {
        name: 'Deep turns',
        ...common,
        tests: [{ title: 'turns', turns: [{ prompt: 'p', expectedOutput: deep(20_000), outputCheck: check }] }],
      }),
      'body.tests.0.turns.0.expectedOutput',
    );
    // the case routes: a new case, and an edit of a json-subset case's expectation
    const suite = await world.call('POST', path('/eval-suites'), { name: 'Shallow', ...common, tests: [fine] });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const cases = path(`/eval-suites/${suite.body.suiteId}/cases`);
    refused(await world.call('POST', cases, tooDeep), 'body.expectedOutput');
    const listed = await world.call('GET', cases);
    refused(
      await world.call('PATCH', `${cases}/${listed.body.items[0].id}`, { expectedOutput: deep(20_000) }),
      'body.expectedOutput',
    );
  });

  it('an empty expectedOutput, which every answer would pass, is refused at the edge, naming the case', async () => {
    const common = { serverIds: [world.serverId], model: 'hostile-json' };
    const fine = { title: 'fine', query: 'q', provider: 'openai', expectedOutput: 'Paris' };
    const refused = (reply: { status: number; body: any }, path: string, title?: string) => {
      expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_ERROR');
      expect(reply.body.message).toContain(`${path}: `);
      expect(reply.body.message).toContain('an empty expectedOutput passes every answer');
      if (title) expect(reply.body.message).toContain(`case "${title}"`);
    };
    for (const empty of ['', '   ', '\n\t ']) {
      const blank = { title: 'blank', query: 'q2', provider: 'openai', expectedOutput: empty };
      refused(
        await world.call('POST', path('/eval-runs'), { suiteName: 'Blank', ...common, tests: [fine, blank] }),
        'body.tests.1.expectedOutput',
        'blank',
      );
      refused(
        await world.call('POST', path('/eval-suites'), {
          name: 'Blank',
          ...common,
          tests: [fine, { ...blank, outputCheck: { mode: 'equals' } }],
        }),
        'body.tests.1.expectedOutput',
        'blank',
      );
      refused(
        await world.call('POST', path('/eval-suites'), {
          name: 'Blank turns',
          ...common,
          tests: [{ title: 'turns', turns: [{ prompt: 'p', expectedOutput: empty }] }],
        }),
        'body.tests.0.turns.0.expectedOutput',
        'turns',
      );
    }
    const suite = await world.call('POST', path('/eval-suites'), { name: 'Not blank', ...common, tests: [fine] });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const cases = path(`/eval-suites/${suite.body.suiteId}/cases`);
    refused(await world.call('POST', cases, { ...fine, title: 'new', expectedOutput: ' ' }), 'body.expectedOutput');
    const listed = await world.call('GET', cases);
    refused(
      await world.call('PATCH', `${cases}/${listed.body.items[0].id}`, { expectedOutput: '' }),
      'body.expectedOutput',
    );
    // nothing was lost: the case keeps its expectation
    const after = await world.call('GET', `${cases}/${listed.body.items[0].id}`);
    expect(after.body.expectedOutput).toBe('Paris');
  });
});
