import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { sampleResults } from '../helpers/ingest.js';
import { saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

describe('eval ingest: one-shot and chunked runs, read back through /api/v1', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let ingest: (suffix: string, body: unknown) => Promise<{ status: number; body: any }>;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000', MAX_CONCURRENT_RUNS: '1' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    ingest = (suffix, body) => call('POST', `/projects/${org.projectId}/eval-ingest/${suffix}`, body);
  });
  afterAll(async () => stack?.stop());

  it('report saves finished results as a completed sdk run with the same summary and statistics as an executed run', async () => {
    const serverId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'weather',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
    });
    const results = sampleResults(12, { prefix: 'one-shot', cases: 3, failEvery: 4 });
    const reply = await ingest('report', {
      suiteName: 'Reported suite',
      suiteDescription: 'from CI',
      serverNames: ['weather', 'not-saved'],
      notes: 'nightly',
      passCriteria: { minimumPassRate: 70 },
      externalRunId: 'ci-1',
      framework: 'vitest',
      ci: { provider: 'github', branch: 'main', commitSha: 'abc123', runUrl: 'https://ci.example.test/1' },
      tags: ['nightly'],
      expectedIterations: 12,
      results,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      ok: true,
      suiteId: expect.stringMatching(/^sui_/),
      runId: expect.stringMatching(/^run_/),
      status: 'completed',
      result: 'passed',
      summary: { total: 12, passed: 9, failed: 3, passRate: 0.75 },
    });
    const { runId, suiteId } = reply.body;

    const run = (await call('GET', `/projects/${org.projectId}/eval-runs/${runId}`)).body;
    expect(run).toMatchObject({
      id: runId,
      suiteId,
      runNumber: 1,
      status: 'completed',
      result: 'passed',
      source: 'sdk',
      notes: 'nightly',
      passCriteria: { minimumPassRate: 70 },
      progress: { total: 12, completed: 12, passed: 9, failed: 3 },
      summary: reply.body.summary,
      error: null,
    });
    expect(run.summary).toMatchObject({
      passAtK: { k: 4, value: expect.any(Number) },
      tokens: { input: 120, output: 60, total: 180 },
      latencyMs: { p50: 105.5 },
      cases: [
        expect.objectContaining({ total: 4 }),
        expect.objectContaining({ total: 4 }),
        expect.objectContaining({ total: 4 }),
      ],
    });
    expect(run.startedAt).toBeGreaterThan(0);
    expect(run.completedAt).toBeGreaterThanOrEqual(run.startedAt);
    const [stored] =
      await stack.sql`SELECT framework, ci, tags, expected_iterations, server_ids, external_run_id, created_by_key_id FROM eval_runs WHERE id = ${runId}`;
    expect(stored).toEqual({
      framework: 'vitest',
      ci: { provider: 'github', branch: 'main', commitSha: 'abc123', runUrl: 'https://ci.example.test/1' },
      tags: ['nightly'],
      expected_iterations: 12,
      server_ids: [serverId],
      external_run_id: 'ci-1',
      created_by_key_id: org.keyId,
    });

    const iterations = await allIterations(call, org.projectId, runId, 5);
    expect(iterations).toHaveLength(12);
    expect(iterations.map((i) => i.externalIterationId)).toEqual(results.map((r) => r.externalIterationId));
    expect(iterations[0]).toMatchObject({
      title: 'case 0',
      iterationNumber: 1,
      status: 'completed',
      result: 'passed',
      model: 'gpt-4.1-mini',
      provider: 'openai',
      durationMs: 100,
      tokensUsed: 15,
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      error: null,
      startedAt: null,
      actualToolCalls: [{ toolName: 'echo', arguments: { message: 'hi' } }],
      expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hi' } }],
    });
    // Iterations of one case are numbered 1..n, and share the case.
    const case0 = iterations.filter((i) => i.title === 'case 0');
    expect(case0.map((i) => i.iterationNumber)).toEqual([1, 2, 3, 4]);
    expect(new Set(case0.map((i) => i.testCaseId)).size).toBe(1);

    const suiteRuns = await call('GET', `/projects/${org.projectId}/eval-suites/${suiteId}/runs`);
    expect(suiteRuns.body.items).toEqual([run]);
    const suites = await call('GET', `/projects/${org.projectId}/eval-suites`);
    expect(suites.body.items.find((s: { id: string }) => s.id === suiteId)).toMatchObject({
      name: 'Reported suite',
      description: 'from CI',
      serverIds: [serverId],
      totals: { runs: 1, passed: 1, failed: 0 },
      passRateTrend: [0.75],
      latestRun: { id: runId, status: 'completed', result: 'passed', passRate: 0.75, passed: 9, failed: 3 },
    });
  });

  it('the chunked flow appends batches and finalizes; the run reads as running until then', async () => {
    const start = await ingest('runs/start', {
      suiteName: 'Chunked suite',
      externalRunId: 'chunked-1',
      expectedIterations: 450,
    });
    expect(start.status).toBe(200);
    expect(start.body).toEqual({
      ok: true,
      reused: false,
      suiteId: expect.stringMatching(/^sui_/),
      runId: expect.stringMatching(/^run_/),
      status: 'running',
      result: 'pending',
    });
    const { runId } = start.body;
    const results = sampleResults(450, { prefix: 'chunked', cases: 9, failEvery: 3 });
    for (const [n, batch] of [results.slice(0, 200), results.slice(200, 400), results.slice(400)].entries()) {
      const appended = await ingest('runs/iterations', { runId, results: batch });
      expect(appended.status).toBe(200);
      expect(appended.body).toEqual({
        ok: true,
        inserted: batch.length,
        skipped: 0,
        total: Math.min(450, (n + 1) * 200),
      });
    }
    const running = (await call('GET', `/projects/${org.projectId}/eval-runs/${runId}`)).body;
    expect(running).toMatchObject({
      status: 'running',
      // no verdict until the run ends (runs/start said "pending")
      result: null,
      summary: null,
      source: 'sdk',
      progress: { total: 450, completed: 450, passed: 300, failed: 150 },
    });
    const suites = (await call('GET', `/projects/${org.projectId}/eval-suites`)).body.items;
    expect(suites.find((s: { id: string }) => s.id === start.body.suiteId).latestRun).toMatchObject({
      id: runId,
      status: 'running',
      result: null,
    });

    const finalized = await ingest('runs/finalize', { runId, externalRunId: 'chunked-1' });
    expect(finalized.body).toEqual({
      ok: true,
      suiteId: start.body.suiteId,
      runId,
      status: 'completed',
      result: 'failed',
      summary: expect.objectContaining({ total: 450, passed: 300, failed: 150, passRate: 300 / 450 }),
    });
    const iterations = await allIterations(call, org.projectId, runId, 200);
    expect(iterations.map((i) => i.externalIterationId)).toEqual(results.map((r) => r.externalIterationId));
    expect(iterations.filter((i) => i.title === 'case 0').map((i) => i.iterationNumber)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  it('keeps every reported field, and normalizes each trace form to the trace shape executed runs have', async () => {
    const base = {
      query: 'what is the weather in Lisbon?',
      passed: false,
      provider: 'anthropic',
      model: 'claude-sonnet',
    };
    const reply = await ingest('report', {
      suiteName: 'Traces',
      externalRunId: 'traces-1',
      results: [
        {
          ...base,
          caseTitle: 'text trace',
          trace: 'the model answered without calling a tool',
          externalIterationId: 't-1',
          expectedToolCalls: [{ toolName: 'forecast', arguments: { city: 'Lisbon' } }],
          actualToolCalls: [],
        },
        {
          ...base,
          caseTitle: 'message trace',
          trace: [
            { role: 'user', content: 'weather?' },
            { role: 'assistant', content: 'sunny' },
          ],
          externalIterationId: 't-2',
          expectedToolCalls: [{ toolName: 'forecast', arguments: { city: 'Lisbon' } }],
          actualToolCalls: [{ toolName: 'forecast', arguments: { city: 'Porto' } }],
        },
        {
          ...base,
          caseTitle: 'structured trace',
          passed: true,
          externalIterationId: 't-3',
          trace: {
            messages: [{ role: 'user', content: 'weather?' }],
            spans: [
              { id: 's1', name: 'step 1', category: 'step', startMs: 0, endMs: 40 },
              {
                id: 'l1',
                parentId: 's1',
                name: 'claude',
                category: 'llm',
                startMs: 1,
                endMs: 30,
                status: 'ok',
                inputTokens: 12,
              },
            ],
            // the MCPJam SDK's own analysis, with its field names for argument mismatches
            prompts: [
              {
                promptIndex: 0,
                prompt: 'weather?',
                expectedToolCalls: [],
                actualToolCalls: [],
                passed: true,
                missing: [],
                unexpected: [],
                argumentMismatches: [
                  {
                    toolName: 'forecast',
                    expectedArgs: { city: 'Lisbon', days: 3 },
                    actualArgs: { city: 'Lisbon', days: 5 },
                  },
                ],
                expectedOutput: 'sunny',
              },
            ],
            raw: { provider: 'anthropic' },
          },
        },
        {
          ...base,
          caseTitle: 'broken',
          error: 'model timed out',
          errorDetails: { kind: 'timeout', afterMs: 30000 },
          metadata: { attempt: 2, shard: 'a', retried: true },
          isNegativeTest: true,
          tokens: { input: 7 },
          durationMs: 30000.4,
          externalIterationId: 't-4',
        },
      ],
    });
    expect(reply.status).toBe(200);
    const iterations = await allIterations(call, org.projectId, reply.body.runId);
    const byTitle = Object.fromEntries(iterations.map((i) => [i.title, i]));
    const trace = async (title: string) =>
      call('GET', `/projects/${org.projectId}/eval-runs/${reply.body.runId}/iterations/${byTitle[title].id}/trace`);

    expect((await trace('text trace')).body).toEqual({
      traceVersion: 1,
      messages: [{ role: 'assistant', content: 'the model answered without calling a tool' }],
      spans: [],
      prompts: [
        {
          promptIndex: 0,
          prompt: base.query,
          expectedToolCalls: [{ toolName: 'forecast', arguments: { city: 'Lisbon' } }],
          actualToolCalls: [],
          passed: false,
          missing: [{ toolName: 'forecast', arguments: { city: 'Lisbon' } }],
          unexpected: [],
          argumentMismatches: [],
        },
      ],
    });
    const messageTrace = (await trace('message trace')).body;
    expect(messageTrace.messages).toEqual([
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: 'sunny' },
    ]);
    expect(messageTrace.prompts[0].argumentMismatches).toEqual([
      {
        expected: { toolName: 'forecast', arguments: { city: 'Lisbon' } },
        actual: { toolName: 'forecast', arguments: { city: 'Porto' }, isError: false },
        mismatchedArguments: ['city'],
      },
    ]);
    expect((await trace('structured trace')).body).toEqual({
      traceVersion: 1,
      raw: { provider: 'anthropic' },
      messages: [{ role: 'user', content: 'weather?' }],
      spans: [
        { id: 's1', name: 'step 1', category: 'step', startMs: 0, endMs: 40, status: 'ok' },
        {
          id: 'l1',
          parentId: 's1',
          name: 'claude',
          category: 'llm',
          startMs: 1,
          endMs: 30,
          status: 'ok',
          inputTokens: 12,
        },
      ],
      prompts: [
        {
          promptIndex: 0,
          prompt: 'weather?',
          expectedToolCalls: [],
          actualToolCalls: [],
          passed: true,
          missing: [],
          unexpected: [],
          expectedOutput: 'sunny',
          argumentMismatches: [
            {
              expected: { toolName: 'forecast', arguments: { city: 'Lisbon', days: 3 } },
              actual: { toolName: 'forecast', arguments: { city: 'Lisbon', days: 5 } },
              mismatchedArguments: ['days'],
            },
          ],
        },
      ],
    });
    // No trace reported: none stored, as for an executed iteration without one.
    expect((await trace('broken')).body).toMatchObject({
      code: 'NOT_FOUND',
      details: { reason: 'TRACE_NOT_AVAILABLE' },
    });
    expect(byTitle.broken).toMatchObject({
      status: 'failed',
      result: 'failed',
      error: 'model timed out',
      durationMs: 30000,
      usage: { inputTokens: 7, outputTokens: 0, totalTokens: 7 },
      metadata: { attempt: 2, shard: 'a', retried: true },
    });
    const [row] =
      await stack.sql`SELECT error_details, is_negative_test FROM eval_iterations WHERE id = ${byTitle.broken.id}`;
    expect(row).toEqual({ error_details: { kind: 'timeout', afterMs: 30000 }, is_negative_test: true });
  });

  it('a reported result is passed, failed or errored as domain/evals/verdicts.ts says, in the summary, the progress and the list', async () => {
    const result = (caseTitle: string, passed: boolean, extra: object = {}) => ({
      caseTitle,
      passed,
      externalIterationId: caseTitle,
      ...extra,
    });
    const reply = await ingest('report', {
      suiteName: 'Verdicts',
      externalRunId: 'verdicts-1',
      results: [
        result('passed', true),
        // the error of a passed result is a remark: it passed
        result('passed with a remark', true, { error: 'retried once' }),
        result('failed', false),
        // an error: the reporter could not finish the test, so it could not be scored
        result('errored', false, { error: 'model timed out' }),
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.summary).toMatchObject({ total: 4, passed: 2, failed: 1, errored: 1, passRate: 0.5 });
    const run = (await call('GET', `/projects/${org.projectId}/eval-runs/${reply.body.runId}`)).body;
    expect(run.progress).toEqual({ total: 4, completed: 4, passed: 2, failed: 1, errored: 1 });
    const iterations = await allIterations(call, org.projectId, reply.body.runId);
    expect(iterations.map((i) => [i.title, i.status, i.result, i.error])).toEqual([
      ['passed', 'completed', 'passed', null],
      ['passed with a remark', 'completed', 'passed', 'retried once'],
      ['failed', 'completed', 'failed', null],
      ['errored', 'failed', 'failed', 'model timed out'],
    ]);
  });

  it("a suite's run list shows each run with its own progress, as the run itself reads", async () => {
    const first = await ingest('report', {
      suiteName: 'Listed',
      externalRunId: 'listed-1',
      results: sampleResults(4, { prefix: 'listed-a', cases: 2, failEvery: 2 }),
    });
    const { suiteId } = first.body;
    const second = await ingest('report', {
      suiteName: 'Listed',
      externalRunId: 'listed-2',
      results: sampleResults(6, { prefix: 'listed-b', cases: 2, failEvery: 3 }),
    });
    expect(second.body.suiteId).toBe(suiteId);
    // a chunked run that has no results yet: nothing counted
    const empty = await ingest('runs/start', { suiteName: 'Listed', externalRunId: 'listed-3' });
    expect(empty.body.suiteId).toBe(suiteId);

    const listed = (await call('GET', `/projects/${org.projectId}/eval-suites/${suiteId}/runs`)).body.items;
    expect(listed.map((r: { id: string }) => r.id)).toEqual([empty.body.runId, second.body.runId, first.body.runId]);
    expect(listed.map((r: { progress: unknown }) => r.progress)).toEqual([
      { total: 0, completed: 0, passed: 0, failed: 0, errored: 0 },
      { total: 6, completed: 6, passed: 4, failed: 2, errored: 0 },
      { total: 4, completed: 4, passed: 2, failed: 2, errored: 0 },
    ]);
    for (const run of listed)
      expect(run).toEqual((await call('GET', `/projects/${org.projectId}/eval-runs/${run.id}`)).body);
  });

  it('finds suites by name and cases by externalCaseId, else by title and query', async () => {
    const first = await ingest('report', {
      suiteName: 'Identity',
      externalRunId: 'identity-1',
      results: [
        { caseTitle: 'old title', externalCaseId: 'case-A', passed: true, externalIterationId: '1' },
        { caseTitle: 'plain', query: 'q1', passed: true, externalIterationId: '2' },
        { caseTitle: 'plain', query: 'q2', passed: true, externalIterationId: '3' },
      ],
    });
    const second = await ingest('report', {
      suiteName: 'Identity',
      externalRunId: 'identity-2',
      results: [
        { caseTitle: 'renamed', externalCaseId: 'case-A', passed: false, externalIterationId: '1' },
        { caseTitle: 'plain', query: 'q1', passed: false, externalIterationId: '2' },
      ],
    });
    expect(second.body.suiteId).toBe(first.body.suiteId);
    const run2 = (await call('GET', `/projects/${org.projectId}/eval-runs/${second.body.runId}`)).body;
    expect(run2.runNumber).toBe(2);
    const cases =
      await stack.sql`SELECT title, query, external_case_id FROM eval_cases WHERE suite_id = ${first.body.suiteId} ORDER BY title, query`;
    // A case keeps what first reported it; each iteration keeps its own title.
    expect(cases).toEqual([
      { title: 'old title', query: '', external_case_id: 'case-A' },
      { title: 'plain', query: 'q1', external_case_id: null },
      { title: 'plain', query: 'q2', external_case_id: null },
    ]);
    const [a1, b1] = await allIterations(call, org.projectId, first.body.runId);
    const [a2, b2] = await allIterations(call, org.projectId, second.body.runId);
    expect(a2).toMatchObject({ testCaseId: a1.testCaseId, title: 'renamed' });
    expect(b2.testCaseId).toBe(b1.testCaseId);
  });

  it("accepts the project id `default` for the organization's default project", async () => {
    const reply = await call('POST', '/projects/default/eval-ingest/report', {
      suiteName: 'Default project',
      externalRunId: 'default-1',
      results: sampleResults(2),
    });
    expect(reply.status).toBe(200);
    expect((await call('GET', `/projects/${org.projectId}/eval-runs/${reply.body.runId}`)).body.source).toBe('sdk');
    expect(
      (
        await call('POST', '/projects/prj_nope/eval-ingest/report', {
          suiteName: 'x',
          externalRunId: 'x',
          results: sampleResults(1),
        })
      ).status,
    ).toBe(404);
  });

  it('reporting into a suite Runway executes adds cases but never rewrites how existing ones run', async () => {
    const serverId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'authored',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
    });
    const authored = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Authored',
      serverIds: [serverId],
      model: 'openai/gpt-4.1',
      tests: [
        {
          title: 'forecast',
          query: 'weather in Lisbon?',
          runs: 3,
          expectedToolCalls: ['forecast'],
          advancedConfig: { temperature: 0.2 },
        },
      ],
    });
    const reported = await ingest('report', {
      suiteName: 'Authored',
      externalRunId: 'authored-1',
      results: [
        {
          caseTitle: 'forecast',
          query: 'weather in Lisbon?',
          passed: true,
          model: 'other-model',
          expectedToolCalls: [],
        },
        { caseTitle: 'new case', passed: false },
      ],
    });
    expect(reported.body.suiteId).toBe(authored.body.suiteId);
    const cases =
      await stack.sql`SELECT title, runs, model, expected_tool_calls, advanced_config FROM eval_cases WHERE suite_id = ${authored.body.suiteId} ORDER BY title`;
    expect(cases).toEqual([
      {
        title: 'forecast',
        runs: 3,
        model: null,
        expected_tool_calls: [{ toolName: 'forecast' }],
        advanced_config: { temperature: 0.2 },
      },
      { title: 'new case', runs: 1, model: null, expected_tool_calls: [], advanced_config: null },
    ]);
  });

  it("ingested runs never count against the organization's cap on executed runs", async () => {
    // MAX_CONCURRENT_RUNS is 1 here; two ingested runs are left running.
    await ingest('runs/start', { suiteName: 'Open runs', externalRunId: 'open-1' });
    await ingest('runs/start', { suiteName: 'Open runs', externalRunId: 'open-2' });
    const serverId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'cap-check',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
    });
    const executed = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Executed',
      serverIds: [serverId],
      tests: [{ title: 't', query: 'q', model: 'openai/gpt-4.1', isNegativeTest: true }],
      modelApiKeys: { openai: 'k' },
    });
    // Past the cap check, the request is refused for its model (no hosted catalog here), not for the cap.
    expect(executed).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', details: { model: 'openai/gpt-4.1' } },
    });
  });

  it("reported results never go into a run Runway executed, nor into another project's run", async () => {
    const [suite] = await stack.sql<
      { id: string }[]
    >`INSERT INTO eval_suites (id, project_id, name) VALUES ('sui_exec', ${org.projectId}, 'Executed here') RETURNING id`;
    const [executed] = await stack.sql<{ id: string }[]>`
      INSERT INTO eval_runs (id, suite_id, project_id, organization_id, run_number, status, result, source)
      VALUES ('run_exec', ${suite.id}, ${org.projectId}, ${org.organizationId}, 1, 'running', 'pending', 'api') RETURNING id`;
    const appended = await ingest('runs/iterations', { runId: executed.id, results: sampleResults(1) });
    expect(appended).toMatchObject({
      status: 409,
      body: { code: 'CONFLICT', details: { reason: 'NOT_AN_INGESTED_RUN' } },
    });
    expect((await ingest('runs/finalize', { runId: executed.id })).status).toBe(409);

    const other = await seedOrganization(stack.sql);
    const theirs = await apiClient(stack.baseUrl, other.apiKey)('POST', '/projects/default/eval-ingest/runs/start', {
      suiteName: 's',
      externalRunId: 'theirs',
    });
    expect((await ingest('runs/iterations', { runId: theirs.body.runId, results: sampleResults(1) })).status).toBe(404);
    expect((await ingest('runs/finalize', { runId: theirs.body.runId })).status).toBe(404);
    expect((await ingest('runs/finalize', { externalRunId: 'theirs' })).status).toBe(404);
  });
});
