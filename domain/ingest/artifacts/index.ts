import { storableText } from '../../columnLimits.js';
import type { ArtifactFormat } from '../artifactSlot.js';
import { OperationFailure } from '../../failures.js';
import type { IngestResult } from '../results.js';
import { parseJestShapedJson } from './jestJson.js';
import { parseJUnitXml } from './junit.js';
import { toIngestResults, type TestRecord } from './testRecords.js';

export const artifactFormats = ['junit-xml', 'jest-json', 'vitest-json'] as const satisfies readonly ArtifactFormat[];

/** What the run of an uploaded artifact records as its framework, and its suite's name when neither the upload nor the report names one. */
export const artifactSource: Record<ArtifactFormat, { framework: string; suiteName: string }> = {
  'junit-xml': { framework: 'junit', suiteName: 'JUnit artifacts' },
  'jest-json': { framework: 'jest', suiteName: 'Jest artifacts' },
  'vitest-json': { framework: 'vitest', suiteName: 'Vitest artifacts' },
};

export interface Artifact {
  /** the report's own name for its suite (JUnit's `<testsuites name>`); Jest and Vitest reports have none */
  suiteName?: string;
  results: IngestResult[];
}

/** Reads a test-framework report into results; a report that is not one, or holds no test, is a VALIDATION_ERROR. */
export function parseArtifact(format: ArtifactFormat, content: Buffer): Artifact {
  const text = content.toString('utf8');
  const report: { name?: string; records: TestRecord[] } =
    format === 'junit-xml' ? parseJUnitXml(text) : { records: parseJestShapedJson(parseJson(text, format), format) };
  if (report.records.length === 0)
    throw new OperationFailure('VALIDATION_ERROR', 'the artifact holds no test results', {
      reason: 'ARTIFACT_EMPTY',
      format,
    });
  return {
    ...(report.name !== undefined && { suiteName: storableText(report.name) }),
    results: toIngestResults(report.records),
  };
}

function parseJson(text: string, format: ArtifactFormat): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new OperationFailure('VALIDATION_ERROR', `the artifact is not valid JSON: ${(error as Error).message}`, {
      reason: 'ARTIFACT_UNREADABLE',
      format,
    });
  }
}
