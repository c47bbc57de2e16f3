import { z } from 'zod';
import { INT4_MAX } from '../../columnLimits.js';
import { OperationFailure } from '../../failures.js';
import { readReport } from './reportSchema.js';
import { cleanText, firstLine, type TestOutcome, type TestRecord } from './testRecords.js';

/**
 * The parts of Jest's `--json` report we read; Vitest's `--reporter=json` writes the same shape. Everything else
 * in the report is left as it is; what we read must have the type the tools write (null where they write it).
 */
const assertionResultSchema = z.looseObject({
  title: z.string().optional(),
  fullName: z.string().nullish(),
  ancestorTitles: z.array(z.string()).nullish(),
  status: z.string().optional(),
  // Stored rounded in the iteration's integer duration column; a negative one (clock skew) is stored as 0.
  duration: z.number().max(INT4_MAX).nullish(),
  failureMessages: z.array(z.string()).nullish(),
  failureDetails: z.array(z.unknown()).nullish(),
});

const fileResultSchema = z.looseObject({
  name: z.string().optional(),
  status: z.string().optional(),
  message: z.string().nullish(),
  assertionResults: z.array(assertionResultSchema).nullish(),
});

const reportSchema = z.looseObject({ testResults: z.array(fileResultSchema) });

type AssertionResult = z.infer<typeof assertionResultSchema>;

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
    throw new OperationFailure('VALIDATION_ERROR', `the artifact is not ${tool} report: it has no testResults array`, {
      reason: 'ARTIFACT_UNREADABLE',
      format,
    });
  }
  const records: TestRecord[] = [];
  for (const file of readReport(reportSchema, report, format).testResults) {
    const location = file.name ?? '';
    const assertions = file.assertionResults ?? [];
    if (assertions.length === 0 && file.status === 'failed') {
      const message = file.message ?? undefined;
      records.push({
        title: location || '(test file)',
        location,
        outcome: 'errored',
        message: firstLine(message) ?? 'the test file failed to run',
        details: cleanText(message),
      });
      continue;
    }
    for (const assertion of assertions) {
      const title =
        assertion.fullName ||
        [...(assertion.ancestorTitles ?? []), assertion.title ?? ''].filter(Boolean).join(' ') ||
        '(unnamed test)';
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
  if (format === 'jest-json')
    return (assertion.failureDetails ?? []).some((d) => typeof d === 'object' && d !== null && 'matcherResult' in d);
  return /^AssertionError\b/.test(cleanText(assertion.failureMessages?.[0]) ?? '');
}
