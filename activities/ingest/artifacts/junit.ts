import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { OperationFailure } from '../../errors.js';
import { cleanText, firstLine, type TestRecord } from './testRecords.js';

type Attributes = Record<string, string | undefined>;
/** An element as the parser gives it: attributes under `@`, text under `#text`; an empty element is ''. */
type Element = { '@'?: Attributes; '#text'?: string; [child: string]: unknown } | string;

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

const attributes = (element: Element | undefined): Attributes => (typeof element === 'object' ? (element['@'] ?? {}) : {});
const text = (element: Element | undefined): string | undefined => (typeof element === 'object' ? element['#text'] : element);
const children = (element: Element | undefined, name: string): Element[] =>
  typeof element === 'object' && Array.isArray(element[name]) ? (element[name] as Element[]) : [];

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
  let document: Record<string, unknown>;
  try {
    document = parser.parse(xml) as Record<string, unknown>;
  } catch (error) {
    // e.g. a DOCTYPE whose entities would expand past the bounds above
    throw new OperationFailure('VALIDATION_ERROR', `the artifact could not be read as JUnit XML: ${(error as Error).message}`, { reason: 'ARTIFACT_UNREADABLE', format: 'junit-xml' });
  }
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
  // An empty element (`<skipped/>`) is '': present, but falsy.
  const outcome = error !== undefined ? 'errored' : failure !== undefined ? 'failed' : skipped !== undefined ? 'skipped' : 'passed';
  const about = problem ?? skipped;
  const seconds = time === undefined ? NaN : Number(time);
  return {
    title: name || '(unnamed test)',
    location: classname || file || suite || '',
    ...(suite !== undefined && { suite }),
    ...(Number.isFinite(seconds) && { durationMs: seconds * 1000 }),
    outcome,
    ...(about !== undefined && { message: cleanText(attributes(about).message) ?? firstLine(text(about)) }),
    ...(problem !== undefined && { details: cleanText(text(problem)) ?? cleanText(attributes(problem).message) }),
  };
}
