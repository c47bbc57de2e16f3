import { storableText } from '../../columnLimits.js';
import type { IngestResult } from '../results.js';

/**
 * How a test ended, in JUnit's terms: a `failed` test's assertion did not hold, an `errored` one could not run
 * or threw unexpectedly (a fixture error, a test file that failed to load), a `skipped` one was not run.
 */
export type TestOutcome = 'passed' | 'failed' | 'errored' | 'skipped';

/** One test as a test-framework report describes it; each parser produces these. */
export interface TestRecord {
  /** the readable name, e.g. `weather tools > returns a forecast` */
  title: string;
  /** where the test lives (its file, or the JUnit classname), as the report names it; with the title it identifies the case */
  location: string;
  suite?: string;
  durationMs?: number;
  outcome: TestOutcome;
  /** one line: why it failed, errored or was skipped */
  message?: string;
  /** the whole failure text (diff, stack) */
  details?: string;
}

const MAX_TITLE = 500;
const MAX_MESSAGE = 2_000;
const MAX_DETAILS = 64 * 1024;

// Terminal colour codes that Jest and Vitest leave in their messages.
// eslint-disable-next-line no-control-regex
const ansi = /\u001b\[[0-9;]*[A-Za-z]/g;

export const cleanText = (text: string | undefined): string | undefined => {
  const cleaned = text?.replace(ansi, '').trim();
  return cleaned ? cleaned : undefined;
};

export const firstLine = (text: string | undefined): string | undefined =>
  cleanText(text)
    ?.split('\n')
    .map((line) => line.trim())
    .find((line) => line.length > 0);

/**
 * Skipped tests become cancelled iterations: listed with the run (metadata.outcome `skipped`, the reason in
 * metadata.skipReason) but outside its summary, so they neither pass nor fail it. Failed and errored tests do not
 * pass, with the message in `error` and the full text in `errorDetails`; as domain/evals/verdicts.ts defines them,
 * a failed test (an assertion that did not hold) is a failed iteration and an errored one (it could not run) an
 * errored iteration. metadata.outcome says which, in the framework's words.
 */
export function toIngestResults(records: TestRecord[]): IngestResult[] {
  const occurrences = new Map<string, number>();
  return records.map((raw) => {
    const record = storable(raw);
    const title = record.title.slice(0, MAX_TITLE);
    const location = record.location.slice(0, MAX_TITLE);
    const key = `${location}\u0000${title}`;
    const occurrence = (occurrences.get(key) ?? 0) + 1;
    occurrences.set(key, occurrence);
    const failed = record.outcome === 'failed' || record.outcome === 'errored';
    const message = record.message?.slice(0, MAX_MESSAGE);
    return {
      caseTitle: title,
      query: location,
      passed: record.outcome === 'passed',
      ...(record.outcome === 'skipped' && { skipped: true }),
      ...(record.outcome === 'failed' && { assertionFailed: true }),
      ...(record.durationMs !== undefined &&
        Number.isFinite(record.durationMs) && { durationMs: Math.max(0, record.durationMs) }),
      ...(failed && { error: message ?? `test ${record.outcome}` }),
      ...(failed && record.details !== undefined && { errorDetails: record.details.slice(0, MAX_DETAILS) }),
      externalIterationId: `${location}::${title}#${occurrence}`,
      metadata: {
        outcome: record.outcome,
        ...(record.suite !== undefined && { suite: record.suite }),
        ...(record.outcome === 'skipped' && message !== undefined && { skipReason: message }),
      },
    };
  });
}

/**
 * A report is text a test framework wrote, captured output included: a NUL or a lone surrogate in it (`\u0000`,
 * `\ud83d` of a cut emoji) becomes U+FFFD rather than failing the upload. (A request's own fields are refused
 * with a 400 instead: their sender can fix them.)
 */
function storable(record: TestRecord): TestRecord {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, typeof value === 'string' ? storableText(value) : value]),
  ) as TestRecord;
}
