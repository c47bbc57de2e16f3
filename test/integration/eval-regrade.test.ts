/**
 * Issue 31, build 4: re-grading, end to end through the HTTP API, the workflow and the scripted model server. A run
 * is graded again with the suite's current expectations: its scores follow them, no model of the run is called and
 * its MCP server is not contacted (it is stopped), a judge check calls the judge only, and compare shows the change.
 * Every reply is checked against the OpenAPI document's schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { saveServer, startEverythingOverHttp, type RunningServer } from '../helpers/mcpServers.js';
import { OpenApiReplies } from '../helpers/openApiReplies.js';
import { runway } from '../helpers/runwayCli.js';
import { sampleResults } from '../helpers/ingest.js';
import { tmpdir } from 'node:os';

const JUDGE_KEY = 'runway-judge-1';

describe('re-grading a finished run', () => {
  let world: EvalWorld;
  let mcp: RunningServer;
  let httpServerId: string;
  let replies: OpenApiReplies;

  beforeAll(async () => {
    [world, mcp] = await Promise.all([startEvalWorld(), startEverythingOverHttp('streamableHttp')]);
    httpServerId = await saveServer(world.stack.sql, world.stack.box, {
      projectId: world.org.projectId,
      name: 'everything-http',
      transportType: 'http',
      url: mcp.url,
    });
    const document = await (await fetch(`${world.stack.baseUrl}/openapi.json`)).json();
    replies = new OpenApiReplies(document as never, { id: 'https://runway.invalid/openapi.json' });
  });
  afterAll(async () => {
    await world?.stop();
    await mcp?.stop();
  });

  const path = (rest: string) => `/projects/${world.org.projectId}${rest}`;
  /** A call whose reply must fit the document's schema for its operation and status. */
  const checked = async (method: string, route: string, operationPath: string, body?: unknown) => {
    const reply = await world.call(method, path(route), body);
    const op = replies
      .operations()
      .find((o) => o.method === method.toLowerCase() && o.path === `/projects/{projectId}${operationPath}`);
    expect(op, `${method} ${operationPath} is documented`).toBeDefined();
    expect(replies.replyProblems(op!, reply.status, reply.body)).toEqual([]);
    return reply;
  };

  it('grades the recorded conversations with the new expectations, calling neither the model nor the server', async () => {
    const { model } = world;
    model.setScript('regrade-agent', {
      byQuery: {
        'echo alpha': [{ toolCalls: [{ name: 'echo', arguments: { message: 'alpha' } }] }, { text: 'It said alpha.' }],
        'capital of France': [{ text: 'The capital of France is Paris.' }],
      },
    });
    model.setScript('regrade-judge', {
      byQuery: { [JUDGE_KEY]: [{ text: '{"pass": true, "score": 0.9, "reason": "It names Paris."}' }] },
    });
    const created = await checked('POST', '/eval-runs', '/eval-runs', {
      suiteName: 'Re-grading',
      serverIds: [httpServerId],
      model: 'regrade-agent',
      judgeModel: { model: 'regrade-judge', provider: 'openai' },
      tests: [
        {
          title: 'echo',
          query: 'echo alpha',
          provider: 'openai',
          runs: 2,
          expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'alpha' } }],
        },
        { title: 'capital', query: 'What is the capital of France?', provider: 'openai', expectedOutput: 'Paris' },
        { title: 'doomed', query: 'echo alpha please', provider: 'openai', expectedToolCalls: [{ toolName: 'echo' }] },
      ],
    });
    expect(created.status).toBe(202);
    const { runId: originalId, suiteId } = created.body;
    const original = await waitForRun(world.call, world.org.projectId, originalId);
    expect(original).toMatchObject({ status: 'completed', summary: { total: 4, passed: 4 } });

    // The expectations change: echo now expects another argument, capital is judged, doomed is deleted.
    const cases = (await world.call('GET', path(`/eval-suites/${suiteId}/cases`))).body.items as {
      id: string;
      title: string;
    }[];
    const caseId = (title: string) => cases.find((c) => c.title === title)!.id;
    const edit = async (title: string, changes: object) => {
      const reply = await world.call('PATCH', path(`/eval-suites/${suiteId}/cases/${caseId(title)}`), changes);
      expect(reply.status).toBe(200);
    };
    await edit('echo', { expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'beta' } }] });
    await edit('capital', { outputCheck: { mode: 'judge', rubric: 'The answer must name the right city.' } });
    expect((await world.call('DELETE', path(`/eval-suites/${suiteId}/cases/${caseId('doomed')}`))).status).toBe(200);

    const agentCalls = model.calls('regrade-agent').length;
    expect(agentCalls).toBeGreaterThanOrEqual(4);
    expect(model.calls('regrade-judge')).toHaveLength(0);
    // The MCP server is gone: a re-grade that contacted it would fail its iterations.
    await mcp.stop();

    const regraded = await checked('POST', `/eval-runs/${originalId}/regrade`, '/eval-runs/{runId}/regrade');
    expect(regraded.status).toBe(202);
    expect(regraded.body).toMatchObject({
      regradeOf: originalId,
      suiteId,
      status: 'running',
      iterations: 3,
      skipped: [{ caseId: caseId('doomed'), title: 'doomed', reason: 'CASE_DELETED' }],
    });
    const regradeId = regraded.body.runId;
    await waitForRun(world.call, world.org.projectId, regradeId);
    const run = await checked('GET', `/eval-runs/${regradeId}`, '/eval-runs/{runId}');
    expect(run.body).toMatchObject({
      status: 'completed',
      source: 'regrade',
      regradeOf: originalId,
      regradeSkipped: [{ title: 'doomed', reason: 'CASE_DELETED' }],
      summary: { total: 3, passed: 1, failed: 2 },
      result: 'failed',
    });

    // No model of the run was called again; the judge was, once, for the judged case.
    expect(model.calls('regrade-agent')).toHaveLength(agentCalls);
    const judgeCalls = model.calls('regrade-judge');
    expect(judgeCalls).toHaveLength(1);
    expect(judgeCalls[0].lastUserText).toContain('<answer>\nThe capital of France is Paris.\n</answer>');

    const iterations = await allIterations(world.call, world.org.projectId, regradeId);
    const echo = iterations.filter((i) => i.title === 'echo');
    expect(echo).toHaveLength(2);
    for (const iteration of echo) {
      expect(iteration).toMatchObject({ status: 'completed', result: 'failed', error: null });
      // the recorded tool calls, graded against the new expectation
      expect(iteration.actualToolCalls).toEqual([
        expect.objectContaining({ toolName: 'echo', arguments: { message: 'alpha' } }),
      ]);
      expect(iteration.expectedToolCalls).toEqual([{ toolName: 'echo', arguments: { message: 'beta' } }]);
      expect(iteration.metadata).toMatchObject({
        regradeOfRunId: originalId,
        regradeOfIterationId: expect.any(String),
      });
      const trace = await checked(
        'GET',
        `/eval-runs/${regradeId}/iterations/${iteration.id}/trace`,
        '/eval-runs/{runId}/iterations/{iterationId}/trace',
      );
      // the recorded conversation is kept, the grades are new
      expect(trace.body.messages.length).toBeGreaterThan(1);
      expect(trace.body.prompts[0]).toMatchObject({ passed: false, finalText: 'It said alpha.' });
      expect(trace.body.prompts[0].argumentMismatches.length + trace.body.prompts[0].missing.length).toBeGreaterThan(0);
    }
    const capital = iterations.find((i) => i.title === 'capital')!;
    expect(capital).toMatchObject({ status: 'completed', result: 'passed' });
    const capitalTrace = await world.call('GET', path(`/eval-runs/${regradeId}/iterations/${capital.id}/trace`));
    expect(capitalTrace.body.prompts[0].outputCheck).toMatchObject({
      mode: 'judge',
      passed: true,
      judgeModel: 'openai/regrade-judge',
    });

    // Back on its port, so that the processes' connection pools close their sessions to it as they stop.
    mcp = await startEverythingOverHttp('streamableHttp', { port: mcp.port });

    // Compare with the original: the echo case regressed with its expectations; the deleted case is removed.
    const compared = await checked(
      'GET',
      `/eval-runs/${regradeId}/compare?baseRunId=${originalId}`,
      '/eval-runs/{runId}/compare',
    );
    expect(compared.status).toBe(200);
    const byTitle = Object.fromEntries(
      (compared.body.cases as { title: string; status: string; base: unknown; current: unknown }[]).map((c) => [
        c.title,
        c,
      ]),
    );
    expect(byTitle.echo.base).toMatchObject({ passed: 2 });
    expect(byTitle.echo.current).toMatchObject({ passed: 0 });
    expect(byTitle.capital.current).toMatchObject({ passed: 1 });
    expect(byTitle.doomed.current).toBeNull();

    // The CLI: `runway evals regrade <run> --wait --compare` follows a new re-grade and gates on the comparison.
    const env = { RUNWAY_URL: world.stack.origin, RUNWAY_API_KEY: world.org.apiKey };
    const cli = await runway(
      ['evals', 'regrade', originalId, '--wait', '--compare', '--fail-on', 'any-regression', '--poll-interval', '200'],
      env,
      tmpdir(),
    );
    expect(cli.stderr).toContain('case "doomed" is not re-graded: CASE_DELETED');
    expect(cli.stdout).toContain('echo');
    expect(cli.code).toBe(1);
    const started = await runway(['evals', 'regrade', originalId], env, tmpdir());
    expect(started.code).toBe(0);
    expect(started.stdout.trim()).toMatch(/^run_/);
    await waitForRun(world.call, world.org.projectId, started.stdout.trim());
    expect(model.calls('regrade-agent')).toHaveLength(agentCalls);
  });

  it('leaves out a case whose prompt changed, and grades the others', async () => {
    const { model } = world;
    model.setScript('regrade-prompts', { byQuery: { hello: [{ text: 'hello there' }] } });
    const created = await world.call('POST', path('/eval-runs'), {
      suiteName: 'Re-grading prompts',
      serverIds: [world.serverId],
      model: 'regrade-prompts',
      tests: [
        { title: 'kept', query: 'say hello', provider: 'openai', expectedOutput: 'hello' },
        { title: 'reworded', query: 'hello, please', provider: 'openai', expectedOutput: 'hello' },
      ],
    });
    expect(created.status).toBe(202);
    const { runId, suiteId } = created.body;
    expect(await waitForRun(world.call, world.org.projectId, runId)).toMatchObject({ summary: { passed: 2 } });
    const cases = (await world.call('GET', path(`/eval-suites/${suiteId}/cases`))).body.items as {
      id: string;
      title: string;
    }[];
    const reworded = cases.find((c) => c.title === 'reworded')!.id;
    const kept = cases.find((c) => c.title === 'kept')!.id;
    expect(
      (await world.call('PATCH', path(`/eval-suites/${suiteId}/cases/${reworded}`), { query: 'hello again' })).status,
    ).toBe(200);
    expect(
      (await world.call('PATCH', path(`/eval-suites/${suiteId}/cases/${kept}`), { expectedOutput: 'goodbye' })).status,
    ).toBe(200);
    const calls = model.calls('regrade-prompts').length;
    const regraded = await checked('POST', `/eval-runs/${runId}/regrade`, '/eval-runs/{runId}/regrade');
    expect(regraded.body).toMatchObject({
      iterations: 1,
      skipped: [{ caseId: reworded, title: 'reworded', reason: 'PROMPTS_CHANGED' }],
    });
    expect(await waitForRun(world.call, world.org.projectId, regraded.body.runId)).toMatchObject({
      summary: { total: 1, passed: 0, failed: 1 },
      regradeSkipped: [{ reason: 'PROMPTS_CHANGED' }],
    });
    expect(model.calls('regrade-prompts')).toHaveLength(calls);
  });

  it('records an iteration failed when its judge never gives a verdict, keeping the recorded conversation', async () => {
    const { model } = world;
    model.setScript('regrade-talk', { byQuery: { greet: [{ text: 'hello there' }] } });
    model.setScript('regrade-bad-judge', { byQuery: { [JUDGE_KEY]: [{ text: 'I would rather not say.' }] } });
    const created = await world.call('POST', path('/eval-runs'), {
      suiteName: 'Re-grading with a broken judge',
      serverIds: [world.serverId],
      model: 'regrade-talk',
      judgeModel: { model: 'regrade-bad-judge', provider: 'openai' },
      tests: [{ title: 'greets', query: 'greet me', provider: 'openai', expectedOutput: 'hello' }],
    });
    expect(created.status).toBe(202);
    const { runId, suiteId } = created.body;
    expect(await waitForRun(world.call, world.org.projectId, runId)).toMatchObject({ summary: { passed: 1 } });
    const [kase] = (await world.call('GET', path(`/eval-suites/${suiteId}/cases`))).body.items as { id: string }[];
    const judged = await world.call('PATCH', path(`/eval-suites/${suiteId}/cases/${kase.id}`), {
      outputCheck: { mode: 'judge' },
    });
    expect(judged.status).toBe(200);

    const regraded = await world.call('POST', path(`/eval-runs/${runId}/regrade`));
    expect(regraded.status).toBe(202);
    const run = await waitForRun(world.call, world.org.projectId, regraded.body.runId);
    expect(run).toMatchObject({ status: 'completed', summary: { total: 1, passed: 0 } });
    const iterations = await world.call('GET', path(`/eval-runs/${regraded.body.runId}/iterations`));
    const [iteration] = iterations.body.items;
    expect(iteration).toMatchObject({ status: 'failed', errorDetails: { reason: 'JUDGE_REPLY_INVALID' } });
    // the judge was asked (and retried); the run's model was not
    expect(model.calls('regrade-bad-judge').length).toBeGreaterThanOrEqual(1);
    expect(model.calls('regrade-talk')).toHaveLength(1);
    const trace = await world.call('GET', path(`/eval-runs/${regraded.body.runId}/iterations/${iteration.id}/trace`));
    expect(trace.status).toBe(200);
    expect(trace.body.messages).toEqual(
      expect.arrayContaining([expect.objectContaining({ role: 'user', content: 'greet me' })]),
    );
  }, 120_000);

  it('refuses a run still running, an ingested run, an unknown run and a run whose suite was deleted', async () => {
    const { model } = world;
    model.setScript('regrade-slow', { byQuery: { slow: [{ text: 'done', delayMs: 3000 }] } });
    const created = await world.call('POST', path('/eval-runs'), {
      suiteName: 'Re-grading refusals',
      serverIds: [world.serverId],
      model: 'regrade-slow',
      tests: [{ title: 'slow', query: 'slow', provider: 'openai', expectedOutput: 'done' }],
    });
    expect(created.status).toBe(202);
    const running = await checked('POST', `/eval-runs/${created.body.runId}/regrade`, '/eval-runs/{runId}/regrade');
    expect(running.status).toBe(409);
    expect(running.body).toMatchObject({ code: 'CONFLICT', details: { reason: 'RUN_NOT_FINISHED' } });

    // An ingested run: its reporter sent verdicts, no conversation to grade again.
    const ingested = await world.call('POST', path('/eval-ingest/report'), {
      suiteName: 'Ingested',
      externalRunId: 'regrade-ingested-1',
      results: sampleResults(2),
    });
    expect(ingested.status).toBe(200);
    const refusedIngest = await checked(
      'POST',
      `/eval-runs/${ingested.body.runId}/regrade`,
      '/eval-runs/{runId}/regrade',
    );
    expect(refusedIngest.status).toBe(400);
    expect(refusedIngest.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'NO_RECORDED_CONVERSATIONS', source: 'sdk' },
    });

    const unknown = await checked('POST', '/eval-runs/run_doesNotExist00000000/regrade', '/eval-runs/{runId}/regrade');
    expect(unknown.status).toBe(404);

    await waitForRun(world.call, world.org.projectId, created.body.runId);
    expect((await world.call('DELETE', path(`/eval-suites/${created.body.suiteId}`))).status).toBe(200);
    const deleted = await checked('POST', `/eval-runs/${created.body.runId}/regrade`, '/eval-runs/{runId}/regrade');
    expect(deleted.status).toBe(404);
    expect(deleted.body.details).toMatchObject({ reason: 'SUITE_DELETED' });
  });
});
