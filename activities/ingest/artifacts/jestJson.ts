import { OperationFailure } from '../../errors.js';
import { cleanText, firstLine, type TestOutcome, type TestRecord } from './testRecords.js';

/** The parts of Jest's `--json` report we read; Vitest's `--reporter=json` writes the same shape. */
interface AssertionResult {
  title?: string;
  fullName?: string;
  ancestorTitles?: string[];
  status?: string;
  duration?: number | null;
  failureMessages?: string[];
  failureDetails?: unknown[];
}

interface FileResult {
  name?: string;
  status?: string;
  message?: string;
  assertionResults?: AssertionResult[];
}

export type JestShapedFormat = 'jest-json' | 'vitest-json';

const skippedStatuses = new Set(['pending', 'skipped', 'todo', 'disabled']);

/**
 * Jest `--json` and Vitest `--reporter=json` reports: `testResults[]` per test file, each with
 * `assertionResults[]`. A file that failed to run (it did not load, a hook threw) has status `failed`, a
 * `message` and no assertions: it becomes one errored test named after the file.
 */
export function parseJestShapedJson(report: unknown, format: JestShapedFormat): TestRecord[] {
  const files = (report as { testResults?: unknown } | null)?.testResults;
  if (!Array.isArray(files)) {
    const tool = format === 'jest-json' ? 'a Jest `--json`' : 'a Vitest `--reporter=json`';
    throw new OperationFailure('VALIDATION_ERROR', `the artifact is not ${tool} report: it has no testResults array`, { reason: 'ARTIFACT_UNREADABLE', format });
  }
  const records: TestRecord[] = [];
  for (const file of files as FileResult[]) {
    const location = file?.name ?? '';
    const assertions = Array.isArray(file?.assertionResults) ? file.assertionResults : [];
    if (assertions.length === 0 && file?.status === 'failed') {
      records.push({ title: location || '(test file)', location, outcome: 'errored', message: firstLine(file.message) ?? 'the test file failed to run', details: cleanText(file.message) });
      continue;
    }
    for (const assertion of assertions) {
      const title = assertion.fullName || [...(assertion.ancestorTitles ?? []), assertion.title ?? ''].filter(Boolean).join(' ') || '(unnamed test)';
      const failure = cleanText((assertion.failureMessages ?? []).join('\n\n'));
      records.push({
        title,
        location,
        ...(typeof assertion.duration === 'number' && { durationMs: assertion.duration }),
        outcome: outcomeOf(assertion, format),
        ...(failure !== undefined && { message: firstLine(failure), details: failure }),
      });
    }
  }
  return records;
}

function outcomeOf(assertion: AssertionResult, format: JestShapedFormat): TestOutcome {
  if (assertion.status === 'passed') return 'passed';
  if (skippedStatuses.has(assertion.status ?? '')) return 'skipped';
  return isAssertionFailure(assertion, format) ? 'failed' : 'errored';
}

/**
 * A failed expectation, as opposed to a test that threw (TypeError, timeout). Jest attaches the matcher's result
 * to an expectation failure; Vitest's messages name the AssertionError.
 */
function isAssertionFailure(assertion: AssertionResult, format: JestShapedFormat): boolean {
  if (format === 'jest-json') return (assertion.failureDetails ?? []).some((d) => typeof d === 'object' && d !== null && 'matcherResult' in d);
  return /^AssertionError\b/.test(cleanText(assertion.failureMessages?.[0]) ?? '');
}
