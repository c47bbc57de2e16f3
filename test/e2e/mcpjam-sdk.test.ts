import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

type Sdk = typeof import('@mcpjam/sdk');
type EvalResultInput = Parameters<Sdk['reportEvalResults']>[0]['results'][number];

/**
 * The published MCPJam SDK reporter (`@mcpjam/sdk` 1.14.0), unchanged, pointed at Runway the way its docs say:
 * MCPJAM_BASE_URL and MCPJAM_API_KEY. It talks to /sdk/v1; the runs are then read back through /api/v1.
 */
describe('the MCPJam SDK reporter against a running Runway', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let api: ReturnType<typeof apiClient>;
  let sdk: Sdk;
  const saved = { ...process.env };

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    org = await seedOrganization(stack.sql);
    api = apiClient(stack.baseUrl, org.apiKey);
    Object.assign(process.env, {
      MCPJAM_BASE_URL: stack.origin,
      MCPJAM_API_KEY: org.apiKey,
      MCPJAM_TELEMETRY_DISABLED: '1',
      DO_NOT_TRACK: '1',
    });
    // Imported only now: the SDK reads its telemetry switches when it loads.
    sdk = await import('@mcpjam/sdk');
  });
  afterAll(async () => {
    process.env = saved;
    await stack?.stop();
  });

  const results = (count: number, prefix: string): EvalResultInput[] =>
    Array.from({ length: count }, (_, i) => ({
      caseTitle: `${prefix} case ${i % 10}`,
      query: `ask ${i % 10}`,
      passed: i % 5 !== 0,
      durationMs: 200 + i,
      provider: 'anthropic',
      model: 'claude-sonnet-4',
      expectedToolCalls: [{ toolName: 'forecast', arguments: { city: 'Lisbon' } }],
      actualToolCalls: [{ toolName: 'forecast', arguments: { city: i % 5 === 0 ? 'Porto' : 'Lisbon' } }],
      tokens: { input: 100, output: 20, total: 120 },
      trace: [
        { role: 'user', content: `ask ${i % 10}` },
        { role: 'assistant', content: 'done' },
      ],
      metadata: { shard: i % 2 },
    }));

  const readBack = async (runId: string) => {
    const run = (await api('GET', `/projects/${org.projectId}/eval-runs/${runId}`)).body;
    const iterations = await allIterations(api, org.projectId, runId, 200);
    return { run, iterations };
  };

  it('reportEvalResults, one shot (up to 200 results)', async () => {
    const reply = await sdk.reportEvalResults({
      suiteName: 'SDK one-shot',
      framework: 'vitest',
      ci: { branch: 'main' },
      passCriteria: { minimumPassRate: 75 },
      results: results(40, 'one'),
    });
    expect(reply).toMatchObject({
      runId: expect.stringMatching(/^run_/),
      suiteId: expect.stringMatching(/^sui_/),
      status: 'completed',
      result: 'passed',
      summary: { total: 40, passed: 32, failed: 8, passRate: 0.8 },
    });
    const { run, iterations } = await readBack(reply.runId);
    expect(run).toMatchObject({
      source: 'sdk',
      status: 'completed',
      result: 'passed',
      summary: { total: 40, passed: 32 },
      passCriteria: { minimumPassRate: 75 },
    });
    expect(iterations).toHaveLength(40);
    // The SDK numbers its results `<externalRunId>-<n>`.
    expect(iterations[0].externalIterationId).toMatch(/^sdk-\d+-[a-z0-9]+-1$/);
    expect(iterations[0]).toMatchObject({
      title: 'one case 0',
      result: 'failed',
      usage: { totalTokens: 120 },
      metadata: { shard: 0 },
    });
    const trace = await api(
      'GET',
      `/projects/${org.projectId}/eval-runs/${reply.runId}/iterations/${iterations[0].id}/trace`,
    );
    expect(trace.body).toMatchObject({
      traceVersion: 1,
      messages: [{ role: 'user' }, { role: 'assistant' }],
      prompts: [{ argumentMismatches: [{ mismatchedArguments: ['city'] }] }],
    });
  });

  it('reportEvalResults, chunked (start, iterations of 200, finalize) for 450 results', async () => {
    const reply = await sdk.reportEvalResults({
      suiteName: 'SDK chunked',
      externalRunId: 'sdk-chunked-1',
      expectedIterations: 450,
      results: results(450, 'chunk'),
    });
    expect(reply).toMatchObject({
      status: 'completed',
      result: 'failed',
      summary: { total: 450, passed: 360, failed: 90 },
    });
    const { run, iterations } = await readBack(reply.runId);
    expect(run).toMatchObject({ source: 'sdk', progress: { total: 450, completed: 450 } });
    expect(iterations.map((i) => i.externalIterationId)).toEqual(
      Array.from({ length: 450 }, (_, i) => `sdk-chunked-1-${i + 1}`),
    );
    // Reporting the same run again (a re-run CI job) changes nothing.
    const again = await sdk.reportEvalResults({
      suiteName: 'SDK chunked',
      externalRunId: 'sdk-chunked-1',
      results: results(450, 'chunk'),
    });
    expect(again).toMatchObject({ runId: reply.runId, summary: reply.summary });
    expect((await readBack(reply.runId)).iterations).toHaveLength(450);
  });

  // The reporter re-serializes its whole buffer on every record(): seconds of client CPU on a busy machine.
  it(
    'the incremental reporter: record() flushes at 200 results, finalize() sends the rest and ends the run',
    { timeout: 180_000 },
    async () => {
      const reporter = sdk.createEvalRunReporter({
        suiteName: 'SDK incremental',
        externalRunId: 'sdk-incremental-1',
        strict: true,
      });
      for (const result of results(250, 'inc')) await reporter.record(result);
      expect(reporter.getBufferedCount()).toBe(50);
      const runId = (
        await stack.sql<{ id: string }[]>`SELECT id FROM eval_runs WHERE external_run_id = 'sdk-incremental-1'`
      )[0].id;
      expect((await readBack(runId)).run).toMatchObject({ status: 'running', progress: { total: 200 } });
      const reply = await reporter.finalize();
      expect(reply).toMatchObject({ runId, status: 'completed', summary: { total: 250, passed: 200 } });
      expect((await readBack(runId)).iterations.map((i) => i.externalIterationId)).toEqual(
        Array.from({ length: 250 }, (_, i) => `sdk-incremental-1-${i + 1}`),
      );

      // Fewer results than a chunk: the reporter sends them in one report at finalize().
      const small = sdk.createEvalRunReporter({ suiteName: 'SDK incremental', strict: true });
      small.add(results(1, 'small')[0]);
      await small.record(results(2, 'small')[1]);
      expect(await small.finalize()).toMatchObject({ status: 'completed', summary: { total: 2 } });
    },
  );

  it('uploadEvalArtifact: a JUnit report, parsed by the SDK and reported', async () => {
    const artifact = readFileSync(new URL('../fixtures/artifacts/pytest-junit.xml', import.meta.url), 'utf8');
    const reply = await sdk.uploadEvalArtifact({
      suiteName: 'SDK artifact',
      format: 'junit-xml',
      framework: 'pytest',
      artifact,
      strict: true,
    });
    expect(reply).toMatchObject({ status: 'completed', result: 'failed' });
    const { run, iterations } = await readBack(reply.runId);
    expect(run).toMatchObject({ source: 'sdk', summary: reply.summary });
    expect(iterations).toHaveLength(reply.summary.total);
    // What the SDK's own (regex) parser made of the file: it counts a skipped test as failed, and reads a
    // self-closing <testcase/> into the next one. Uploading the file to a URL minted with a format has Runway's XML
    // parser read it instead (ingest-artifacts.test.ts).
    expect(iterations.map((i) => i.title)).toContain('tests.test_weather::test_severe_weather_alerts');
  });

  it('widget snapshots: the SDK uploads their HTML through artifacts/upload-url, without a key', async () => {
    const html = '<!doctype html><div id="forecast">21°C</div>';
    const reply = await sdk.reportEvalResults({
      suiteName: 'SDK widgets',
      results: [
        {
          caseTitle: 'renders the forecast widget',
          passed: true,
          widgetSnapshots: [
            {
              toolCallId: 'call-1',
              toolName: 'forecast',
              protocol: 'mcp-apps',
              serverId: 'weather',
              resourceUri: 'ui://forecast',
              toolMetadata: {},
              widgetCsp: null,
              widgetPermissions: null,
              widgetPermissive: false,
              prefersBorder: true,
              widgetHtml: html,
            },
          ],
        },
      ],
    });
    expect(reply).toMatchObject({ status: 'completed', summary: { total: 1, passed: 1 } });
    const blobs =
      await stack.sql`SELECT content_type, convert_from(content, 'UTF8') AS html FROM ingest_artifacts WHERE project_id = ${org.projectId} AND format IS NULL`;
    expect(blobs).toEqual([{ content_type: 'text/html; charset=utf-8', html }]);
  });

  it("a refused report surfaces as an EvalReportingError carrying Runway's message", async () => {
    const error = await sdk
      .reportEvalResults({ suiteName: 'SDK refused', results: [{ caseTitle: '   ', passed: true }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sdk.EvalReportingError);
    expect((error as Error).message).toMatch(/caseTitle/);
    expect((error as { statusCode?: number }).statusCode).toBe(400);
  });
});
