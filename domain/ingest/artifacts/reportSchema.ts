import type { z } from 'zod';
import type { ArtifactFormat } from '../artifactSlot.js';
import { OperationFailure } from '../../failures.js';

const formatNames: Record<ArtifactFormat, string> = {
  'junit-xml': 'JUnit XML',
  'jest-json': 'Jest `--json`',
  'vitest-json': 'Vitest `--reporter=json`',
};

/**
 * `testResults[3].assertionResults[0].title`, as a user would find it in the file. XML attributes, which the
 * parser keeps under `@`, read `testcase[0].@time`.
 */
function locate(path: PropertyKey[]): string {
  let out = '';
  let attribute = false;
  for (const segment of path) {
    if (segment === '@') {
      attribute = true;
      continue;
    }
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += `${out ? '.' : ''}${attribute ? '@' : ''}${String(segment)}`;
    attribute = false;
  }
  return out || '(the report)';
}

/**
 * A parsed report, checked against its format's schema: the first wrong field is a VALIDATION_ERROR that says where
 * it is and what was wrong (e.g. `testResults[3].assertionResults[0]: expected object, received null`).
 */
export function readReport<T extends z.ZodType>(schema: T, report: unknown, format: ArtifactFormat): z.output<T> {
  const result = schema.safeParse(report);
  if (result.success) return result.data;
  const issues = result.error.issues
    .slice(0, 20)
    .map((issue) => ({ path: locate(issue.path), message: issue.message }));
  const [first] = issues;
  throw new OperationFailure(
    'VALIDATION_ERROR',
    `the artifact is not a valid ${formatNames[format]} report: ${first.path}: ${first.message}`,
    {
      reason: 'ARTIFACT_INVALID',
      format,
      issues,
    },
  );
}
