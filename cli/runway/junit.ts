import { XMLBuilder } from 'fast-xml-parser';
import type { EvalIteration, EvalRun, EvalRunComparison } from '../../api/client.js';
import { countVerdicts, iterationVerdict } from '../../domain/evals/verdicts.js';

/*
 * An eval run as JUnit XML, the format every CI system reads: one <testsuite> per run, one <testcase> per
 * iteration ("<case title> #<iteration>"). JUnit's own words match Runway's verdicts (domain/evals/verdicts.ts): a
 * failed iteration (scored, expectations not met) is a <failure>, an errored one (model or server error, never
 * scored) an <error>, a cancelled or unfinished one (the run was stopped) is <skipped>; so the suite's `failures`
 * and `errors` are the API's `failed` and `errored`.
 *
 * Each <testcase> carries the properties `runway.case` (the case's title) and `runway.iteration`, so that
 * `runway ingest` of this file saves the iterations of one case under that one case
 * (domain/ingest/artifacts/junit.ts reads them back).
 *
 * With a comparison (`runway evals run --baseline`), the iterations of a case that regressed carry the property
 * `runway.comparison` (`regressed`) and their failure message starts with "regressed: ..."; the suite carries
 * `runway.comparison.baseRunId` and `runway.comparison.verdict`.
 */

// XML 1.0 forbids most control characters; model output may contain them.
// eslint-disable-next-line no-control-regex
const xmlText = (text: string) => text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');

const seconds = (ms: number | null | undefined) => ((ms ?? 0) / 1000).toFixed(3);

export const describeCall = (call: { toolName: string; arguments?: Record<string, unknown> }) =>
  `${call.toolName}${call.arguments && Object.keys(call.arguments).length > 0 ? ` ${JSON.stringify(call.arguments)}` : ''}`;

function callsText(iteration: EvalIteration): string {
  const expected = iteration.expectedToolCalls.map(describeCall);
  const actual = iteration.actualToolCalls.map((c) => `${describeCall(c)}${c.isError ? ' (tool error)' : ''}`);
  return [
    `expected tool calls: ${expected.length ? expected.join('; ') : '(none)'}`,
    `actual tool calls: ${actual.length ? actual.join('; ') : '(none)'}`,
  ].join('\n');
}

/** A regressed case, for the iterations of that case: how its pass rate moved. */
export interface RegressionMark {
  status: string;
  text: string;
}

/** The regressed cases of a comparison, by case id and by title (an ingested result without a case id). */
export function regressionMarks(comparison: EvalRunComparison | undefined): Map<string, RegressionMark> {
  const marks = new Map<string, RegressionMark>();
  for (const c of comparison?.cases ?? []) {
    if (c.status !== 'regressed' || !c.base || !c.current) continue;
    const pct = (r: number) => `${(r * 100).toFixed(0)}%`;
    const mark = {
      status: c.status,
      text: `regressed: pass rate ${pct(c.base.passRate)} -> ${pct(c.current.passRate)} (p=${(c.adjustedPValue ?? 1).toPrecision(2)}, significant at FDR 5%)`,
    };
    if (c.caseId) marks.set(c.caseId, mark);
    marks.set(`title:${c.title}`, mark);
  }
  return marks;
}

function testcase(iteration: EvalIteration, suiteName: string, marks: Map<string, RegressionMark>) {
  const mark =
    (iteration.testCaseId ? marks.get(iteration.testCaseId) : undefined) ?? marks.get(`title:${iteration.title}`);
  const node: Record<string, unknown> = {
    '@_name': xmlText(`${iteration.title} #${iteration.iterationNumber}`),
    '@_classname': xmlText(suiteName),
    '@_time': seconds(iteration.durationMs),
    properties: {
      property: [
        { '@_name': 'runway.case', '@_value': xmlText(iteration.title) },
        { '@_name': 'runway.iteration', '@_value': String(iteration.iterationNumber) },
        ...(mark ? [{ '@_name': 'runway.comparison', '@_value': mark.status }] : []),
      ],
    },
  };
  const model = [iteration.provider, iteration.model].filter(Boolean).join('/');
  const out = `${callsText(iteration)}\nmodel: ${model || '-'}\ntokens: ${iteration.usage.totalTokens}`;
  const verdict = iterationVerdict(iteration);
  if (verdict === 'errored') {
    node.error = {
      '@_message': xmlText(`${mark ? `${mark.text}; ` : ''}${iteration.error ?? 'the iteration failed'}`),
      '@_type': 'IterationError',
      '#text': xmlText(out),
    };
  } else if (verdict === 'cancelled') {
    node.skipped = { '@_message': 'iteration cancelled' };
  } else if (verdict === 'pending') {
    node.skipped = { '@_message': `the iteration had not finished (${iteration.status})` };
  } else if (verdict === 'failed') {
    node.failure = {
      '@_message': xmlText(`${mark ? `${mark.text}; ` : ''}the tool calls did not match the expectations`),
      '@_type': 'ToolCallMismatch',
      '#text': xmlText(out),
    };
  } else {
    node['system-out'] = xmlText(out);
  }
  return node;
}

export function toJunitXml(input: {
  suiteName: string;
  run: EvalRun;
  iterations: EvalIteration[];
  comparison?: EvalRunComparison;
}): string {
  const { run, iterations, suiteName, comparison } = input;
  const marks = regressionMarks(comparison);
  const counts = countVerdicts(iterations);
  const totals = {
    '@_tests': counts.total,
    '@_failures': counts.failed,
    '@_errors': counts.errored,
    '@_skipped': counts.cancelled + counts.pending,
    '@_time': seconds(
      run.completedAt && run.createdAt
        ? run.completedAt - run.createdAt
        : iterations.reduce((sum, i) => sum + (i.durationMs ?? 0), 0),
    ),
  };
  const properties = [
    ['runway.runId', run.id],
    ['runway.suiteId', run.suiteId],
    ['runway.status', run.status],
    ['runway.result', run.result ?? 'pending'],
    ['runway.passRate', run.summary ? String(run.summary.passRate) : ''],
    ['runway.minimumPassRate', String(run.passCriteria.minimumPassRate)],
    ...(comparison
      ? [
          ['runway.comparison.baseRunId', comparison.base.runId],
          ['runway.comparison.verdict', comparison.suite.verdict],
        ]
      : []),
  ].map(([name, value]) => ({ '@_name': name, '@_value': xmlText(value) }));
  const document = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    testsuites: {
      // The file holds one suite's run: its name, which `runway ingest` takes as the suite to save it under.
      '@_name': xmlText(suiteName),
      ...totals,
      testsuite: {
        '@_name': xmlText(suiteName),
        '@_id': run.id,
        '@_timestamp': new Date(run.createdAt).toISOString(),
        ...totals,
        properties: { property: properties },
        testcase: iterations.map((i) => testcase(i, suiteName, marks)),
      },
    },
  };
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    textNodeName: '#text',
    format: true,
    suppressEmptyNode: true,
  });
  return builder.build(document) as string;
}
