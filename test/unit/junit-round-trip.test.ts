import { describe, expect, it } from 'vitest';
import { parseArtifact } from '../../domain/ingest/artifacts/index.js';
import type { EvalIteration, EvalRun } from '../../api/client.js';
import { toJunitXml } from '../../cli/runway/junit.js';
import { countVerdicts, iterationVerdict } from '../../domain/evals/verdicts.js';
import { toIngestedIteration } from '../../domain/ingest/results.js';

const run: EvalRun = {
  id: 'run_1',
  suiteId: 'sui_1',
  runNumber: 3,
  status: 'completed',
  result: 'failed',
  summary: { total: 4, passed: 1, failed: 2, errored: 1, passRate: 0.25 },
  progress: { total: 5, completed: 4, passed: 1, failed: 2, errored: 1 },
  source: 'api',
  notes: null,
  passCriteria: { minimumPassRate: 100 },
  hostId: null,
  isolation: 'per-iteration',
  error: null,
  createdAt: 1_700_000_000_000,
  startedAt: 1_700_000_000_000,
  completedAt: 1_700_000_004_000,
};

const iteration = (title: string, n: number, outcome: Partial<EvalIteration>): EvalIteration => ({
  id: `itr_${title}_${n}`,
  testCaseId: `cas_${title}`,
  title,
  iterationNumber: n,
  status: 'completed',
  result: 'passed',
  model: 'gpt-4.1-mini',
  provider: 'openai',
  startedAt: run.createdAt,
  durationMs: 1200,
  tokensUsed: 10,
  usage: { inputTokens: 6, outputTokens: 4, totalTokens: 10, cachedInputTokens: 0 },
  costUsd: 0.0001,
  actualToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
  expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
  error: null,
  ...outcome,
});

const iterations = [
  iteration('Echo', 1, {}),
  iteration('Echo', 2, { result: 'failed', actualToolCalls: [] }),
  iteration('Echo #2 edge', 1, {
    status: 'failed',
    result: 'failed',
    error: 'could not reach the model provider: getaddrinfo ENOTFOUND models.invalid',
  }),
  iteration('Sum', 1, { result: 'failed' }),
  iteration('Sum', 2, { status: 'running', result: null }),
];

describe("Runway's JUnit report, ingested back", () => {
  it('keeps the iterations of one case under that case, with each outcome, in the suite the file names', () => {
    const xml = toJunitXml({ suiteName: 'Everything server', run, iterations });
    const { suiteName, results } = parseArtifact('junit-xml', Buffer.from(xml));
    expect(suiteName).toBe('Everything server');
    expect(results.map((r) => [r.caseTitle, r.passed, r.metadata?.outcome])).toEqual([
      ['Echo', true, 'passed'],
      ['Echo', false, 'failed'],
      ['Echo #2 edge', false, 'errored'],
      ['Sum', false, 'failed'],
      ['Sum', false, 'skipped'],
    ]);
    // Two iterations of a case are two results of one case, never the same result twice.
    expect(new Set(results.map((r) => r.externalIterationId)).size).toBe(5);
    expect(results[2].error).toBe('could not reach the model provider: getaddrinfo ENOTFOUND models.invalid');
    expect(results[4]).toMatchObject({
      skipped: true,
      metadata: { skipReason: 'the iteration had not finished (running)' },
    });
  });

  it('counts as the API does (domain/evals/verdicts.ts): failures are the failed, errors the errored, and ingested back each keeps its verdict', () => {
    const xml = toJunitXml({ suiteName: 'Everything server', run, iterations });
    const counts = countVerdicts(iterations);
    expect(counts).toMatchObject({ passed: 1, failed: 2, errored: 1, pending: 1 });
    const totals =
      /<testsuite name="Everything server" id="run_1" timestamp="[^"]+" tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"/.exec(
        xml,
      );
    expect(totals?.slice(1).map(Number)).toEqual([
      counts.total,
      counts.failed,
      counts.errored,
      counts.cancelled + counts.pending,
    ]);
    const { results } = parseArtifact('junit-xml', Buffer.from(xml));
    const stored = results.map((r, i) => toIngestedIteration(r, null, i + 1));
    // An assertion that did not hold comes back failed, never errored; what broke comes back errored; the unfinished
    // one comes back as a test that did not run.
    expect(stored.map(iterationVerdict)).toEqual(['passed', 'failed', 'errored', 'failed', 'cancelled']);
    expect(stored[1]).toMatchObject({
      status: 'completed',
      result: 'failed',
      error: 'the tool calls did not match the expectations',
    });
  });

  it("reads a report Runway wrote before it named the case in a property: the case is the name without ' #n'", () => {
    const old = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="runway" tests="2">
  <testsuite name="Old suite" id="run_0" tests="2">
    <properties><property name="runway.runId" value="run_0"/></properties>
    <testcase name="Echo #1" classname="Old suite" time="1.000"/>
    <testcase name="Echo #2" classname="Old suite" time="1.000"><failure message="the tool calls did not match the expectations"/></testcase>
  </testsuite>
</testsuites>`;
    const { suiteName, results } = parseArtifact('junit-xml', Buffer.from(old));
    expect(suiteName).toBe('Old suite');
    expect(results.map((r) => r.caseTitle)).toEqual(['Echo', 'Echo']);
  });

  it("leaves '#n' in the names of anyone else's tests, and names the suite after <testsuites>, else the first <testsuite>", () => {
    const theirs = `<testsuites name="vitest tests"><testsuite name="test/issues.test.ts"><testcase name="issue #12" classname="test/issues.test.ts"/></testsuite></testsuites>`;
    expect(parseArtifact('junit-xml', Buffer.from(theirs))).toMatchObject({
      suiteName: 'vitest tests',
      results: [{ caseTitle: 'issue #12' }],
    });
    const surefire = `<testsuite name="com.acme.WeatherTest"><testcase name="forecast" classname="com.acme.WeatherTest"/></testsuite>`;
    expect(parseArtifact('junit-xml', Buffer.from(surefire)).suiteName).toBe('com.acme.WeatherTest');
    expect(
      parseArtifact('junit-xml', Buffer.from('<testsuites><testsuite><testcase name="a"/></testsuite></testsuites>'))
        .suiteName,
    ).toBeUndefined();
  });
});
