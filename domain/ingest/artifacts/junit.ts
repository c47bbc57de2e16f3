import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { z } from 'zod';
import { INT4_MAX } from '../../columnLimits.js';
import { OperationFailure } from '../../failures.js';
import { readReport } from './reportSchema.js';
import { cleanText, firstLine, type TestRecord } from './testRecords.js';

const repeated = new Set([
  'testsuites',
  'testsuite',
  'testcase',
  'failure',
  'error',
  'skipped',
  'properties',
  'property',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  attributesGroupName: '@',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => repeated.has(name),
  // JUnit reports declare no entities; these bounds keep a hostile DOCTYPE from expanding without limit.
  processEntities: { maxEntityCount: 100, maxTotalExpansions: 10_000, maxExpandedLength: 1_000_000 },
});

/** `time` is in seconds, stored in ms in an integer column; one that is not a number (`1,234.5`) is left out. */
const seconds = z.string().transform((value, ctx) => {
  const ms = Number(value) * 1000;
  if (!Number.isFinite(ms)) return undefined;
  if (ms > INT4_MAX) {
    ctx.addIssue({
      code: 'custom',
      message: `a test that took ${value} seconds; the longest duration stored is ${INT4_MAX / 1000} seconds`,
    });
    return z.NEVER;
  }
  return ms;
});

/** The attributes we read; the parser keeps them under `@`, as strings. */
const attributesSchema = z.looseObject({
  name: z.string().optional(),
  classname: z.string().optional(),
  file: z.string().optional(),
  message: z.string().optional(),
  value: z.string().optional(),
  time: seconds.optional(),
});

/**
 * An element: attributes under `@`, text under `#text`, children by name (an array each: the parser makes every
 * repeated element one). The parser gives an element with neither attributes nor children as its bare text
 * (`<skipped/>` is ''); it is read here as `{ '#text': text }`, so a union does not hide where a problem is.
 */
const element = <T extends z.ZodRawShape>(children: T) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? { '#text': value } : value),
    z.looseObject({ '@': attributesSchema.optional(), '#text': z.string().optional(), ...children }),
  );

const outcomeSchema = element({});
/** `<properties><property name value/></properties>`, on a suite and (Jenkins, GitLab, pytest's record_property) on a test. */
const propertiesSchema = z.array(element({ property: z.array(element({})).optional() })).optional();
const testcaseSchema = element({
  failure: z.array(outcomeSchema).optional(),
  error: z.array(outcomeSchema).optional(),
  skipped: z.array(outcomeSchema).optional(),
  properties: propertiesSchema,
});

interface Element {
  '@'?: z.output<typeof attributesSchema>;
  '#text'?: string;
  [child: string]: unknown;
}

// Nested suites: the parser stops at 100 levels (maxNestedTags), so this recursion does too.
const suiteSchema: z.ZodType<Element> = z.lazy(() =>
  element({
    testcase: z.array(testcaseSchema).optional(),
    testsuite: z.array(suiteSchema).optional(),
    properties: propertiesSchema,
  }),
);

/** The elements we read, with the types we read them as; `<testsuites>` holds suites, or is itself the one suite. */
const documentSchema = z.looseObject({
  testsuites: z.array(element({ testsuite: z.array(suiteSchema).optional() })).optional(),
  testsuite: z.array(suiteSchema).optional(),
});

const attributes = (element: Element | undefined) => element?.['@'] ?? {};
const text = (element: Element | undefined) => element?.['#text'];
/** Children the schema checked. */
const children = (element: Element | undefined, name: string): Element[] =>
  Array.isArray(element?.[name]) ? (element[name] as Element[]) : [];
/** The value of a `<property>` of an element, if it has that property. */
const property = (element: Element, name: string): string | undefined =>
  children(element, 'properties')
    .flatMap((list) => children(list, 'property'))
    .find((p) => attributes(p).name === name)?.['@']?.value;

/** The longest suite name a run is saved under (ingest's suiteName). */
const MAX_SUITE_NAME = 200;

/**
 * A report Runway wrote (cli/runway/junit.ts) names each iteration `<case> #<n>`: the case is the name without
 * that suffix. Reports from now on also carry the case in the testcase property `runway.case`; this reads the
 * ones written before, which have only the run's `runway.runId` on their suite.
 */
const RUNWAY_CASE = 'runway.case';
const RUNWAY_RUN = 'runway.runId';
const iterationSuffix = / #\d+$/;

export interface JUnitReport {
  /** the report's own name for what it holds: `<testsuites name>`, else the first `<testsuite name>` */
  name?: string;
  records: TestRecord[];
}

/**
 * JUnit XML as Jest (jest-junit), Vitest, pytest, Maven Surefire and most CI tools write it: `<testsuites>` (or a
 * single `<testsuite>`) holding possibly nested `<testsuite>`s of `<testcase>`s, each with an optional
 * `<failure>`, `<error>` or `<skipped>`. `time` is in seconds.
 */
export function parseJUnitXml(xml: string): JUnitReport {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new OperationFailure(
      'VALIDATION_ERROR',
      `the artifact is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`,
      {
        reason: 'ARTIFACT_UNREADABLE',
        format: 'junit-xml',
        line: valid.err.line,
        column: valid.err.col,
      },
    );
  }
  let parsed: unknown;
  try {
    parsed = parser.parse(xml);
  } catch (error) {
    // e.g. a DOCTYPE whose entities would expand past the bounds above
    throw new OperationFailure(
      'VALIDATION_ERROR',
      `the artifact could not be read as JUnit XML: ${(error as Error).message}`,
      { reason: 'ARTIFACT_UNREADABLE', format: 'junit-xml' },
    );
  }
  const document: Element = readReport(documentSchema, parsed, 'junit-xml');
  const roots = [
    ...children(document, 'testsuites'),
    ...children(document, 'testsuite').map((suite) => ({ testsuite: [suite] })),
  ];
  if (roots.length === 0) {
    throw new OperationFailure(
      'VALIDATION_ERROR',
      'the artifact is not a JUnit report: its root element is neither <testsuites> nor <testsuite>',
      {
        reason: 'ARTIFACT_UNREADABLE',
        format: 'junit-xml',
      },
    );
  }
  const records: TestRecord[] = [];
  const suiteNames: string[] = [];
  let runwayReport = false;
  const visit = (suite: Element, writtenByRunway: boolean) => {
    const suiteName = attributes(suite).name;
    if (suiteName !== undefined) suiteNames.push(suiteName);
    const byRunway = writtenByRunway || property(suite, RUNWAY_RUN) !== undefined;
    runwayReport ||= byRunway;
    for (const testcase of children(suite, 'testcase')) records.push(toRecord(testcase, suiteName, byRunway));
    for (const nested of children(suite, 'testsuite')) visit(nested, byRunway);
  };
  for (const root of roots) for (const suite of children(root, 'testsuite')) visit(suite, false);
  // Runway's reports before `runway.case` named their <testsuites> "runway": their suite is the <testsuite>.
  const rootNames = runwayReport ? [] : roots.map((root) => attributes(root).name);
  const name = [...rootNames, ...suiteNames].map(cleanText).find((n) => n !== undefined);
  return { ...(name !== undefined && { name: name.slice(0, MAX_SUITE_NAME) }), records };
}

/** A testcase's title: the case Runway named it after (see RUNWAY_CASE), else its name. */
function titleOf(testcase: Element, byRunway: boolean): string | undefined {
  const { name } = attributes(testcase);
  const runwayCase = cleanText(property(testcase, RUNWAY_CASE));
  if (runwayCase !== undefined) return runwayCase;
  return byRunway && name !== undefined ? name.replace(iterationSuffix, '') : name;
}

function toRecord(testcase: Element, suite: string | undefined, byRunway: boolean): TestRecord {
  const { classname, file, time } = attributes(testcase);
  const name = titleOf(testcase, byRunway);
  const [failure] = children(testcase, 'failure');
  const [error] = children(testcase, 'error');
  const [skipped] = children(testcase, 'skipped');
  // An <error> outranks a <failure>: the test did not get to its assertion.
  const problem = error ?? failure;
  const outcome =
    error !== undefined ? 'errored' : failure !== undefined ? 'failed' : skipped !== undefined ? 'skipped' : 'passed';
  const about = problem ?? skipped;
  return {
    title: name || '(unnamed test)',
    location: classname || file || suite || '',
    ...(suite !== undefined && { suite }),
    ...(time !== undefined && { durationMs: time }),
    outcome,
    ...(about !== undefined && { message: cleanText(attributes(about).message) ?? firstLine(text(about)) }),
    ...(problem !== undefined && { details: cleanText(text(problem)) ?? cleanText(attributes(problem).message) }),
  };
}
