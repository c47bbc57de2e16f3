import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { z } from 'zod';
import { INT4_MAX } from '../../../db/columnLimits.js';
import { OperationFailure } from '../../errors.js';
import { readReport } from './reportSchema.js';
import { cleanText, firstLine, type TestRecord } from './testRecords.js';

const repeated = new Set(['testsuites', 'testsuite', 'testcase', 'failure', 'error', 'skipped']);

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
    ctx.addIssue({ code: 'custom', message: `a test that took ${value} seconds; the longest duration stored is ${INT4_MAX / 1000} seconds` });
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
const testcaseSchema = element({ failure: z.array(outcomeSchema).optional(), error: z.array(outcomeSchema).optional(), skipped: z.array(outcomeSchema).optional() });

interface Element {
  '@'?: z.output<typeof attributesSchema>;
  '#text'?: string;
  [child: string]: unknown;
}

// Nested suites: the parser stops at 100 levels (maxNestedTags), so this recursion does too.
const suiteSchema: z.ZodType<Element> = z.lazy(() => element({ testcase: z.array(testcaseSchema).optional(), testsuite: z.array(suiteSchema).optional() }));

/** The elements we read, with the types we read them as; `<testsuites>` holds suites, or is itself the one suite. */
const documentSchema = z.looseObject({
  testsuites: z.array(element({ testsuite: z.array(suiteSchema).optional() })).optional(),
  testsuite: z.array(suiteSchema).optional(),
});

const attributes = (element: Element | undefined) => element?.['@'] ?? {};
const text = (element: Element | undefined) => element?.['#text'];
/** Children the schema checked. */
const children = (element: Element | undefined, name: string): Element[] => (Array.isArray(element?.[name]) ? (element[name] as Element[]) : []);

/**
 * JUnit XML as Jest (jest-junit), Vitest, pytest, Maven Surefire and most CI tools write it: `<testsuites>` (or a
 * single `<testsuite>`) holding possibly nested `<testsuite>`s of `<testcase>`s, each with an optional
 * `<failure>`, `<error>` or `<skipped>`. `time` is in seconds.
 */
export function parseJUnitXml(xml: string): TestRecord[] {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new OperationFailure('VALIDATION_ERROR', `the artifact is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`, {
      reason: 'ARTIFACT_UNREADABLE', format: 'junit-xml', line: valid.err.line, column: valid.err.col,
    });
  }
  let parsed: unknown;
  try {
    parsed = parser.parse(xml);
  } catch (error) {
    // e.g. a DOCTYPE whose entities would expand past the bounds above
    throw new OperationFailure('VALIDATION_ERROR', `the artifact could not be read as JUnit XML: ${(error as Error).message}`, { reason: 'ARTIFACT_UNREADABLE', format: 'junit-xml' });
  }
  const document: Element = readReport(documentSchema, parsed, 'junit-xml');
  const roots = [...children(document, 'testsuites'), ...children(document, 'testsuite').map((suite) => ({ testsuite: [suite] }))];
  if (roots.length === 0) {
    throw new OperationFailure('VALIDATION_ERROR', 'the artifact is not a JUnit report: its root element is neither <testsuites> nor <testsuite>', {
      reason: 'ARTIFACT_UNREADABLE', format: 'junit-xml',
    });
  }
  const records: TestRecord[] = [];
  const visit = (suite: Element) => {
    const suiteName = attributes(suite).name;
    for (const testcase of children(suite, 'testcase')) records.push(toRecord(testcase, suiteName));
    for (const nested of children(suite, 'testsuite')) visit(nested);
  };
  for (const root of roots) for (const suite of children(root, 'testsuite')) visit(suite);
  return records;
}

function toRecord(testcase: Element, suite: string | undefined): TestRecord {
  const { name, classname, file, time } = attributes(testcase);
  const [failure] = children(testcase, 'failure');
  const [error] = children(testcase, 'error');
  const [skipped] = children(testcase, 'skipped');
  // An <error> outranks a <failure>: the test did not get to its assertion.
  const problem = error ?? failure;
  const outcome = error !== undefined ? 'errored' : failure !== undefined ? 'failed' : skipped !== undefined ? 'skipped' : 'passed';
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
