import type { ArtifactFormat } from '../../../db/ingestArtifacts.js';
import { OperationFailure } from '../../errors.js';
import type { IngestResult } from '../results.js';
import { parseJestShapedJson } from './jestJson.js';
import { parseJUnitXml } from './junit.js';
import { toIngestResults, type TestRecord } from './testRecords.js';

export const artifactFormats = ['junit-xml', 'jest-json', 'vitest-json'] as const satisfies readonly ArtifactFormat[];

/** What the run of an uploaded artifact records as its framework, and its suite's name when none was given. */
export const artifactSource: Record<ArtifactFormat, { framework: string; suiteName: string }> = {
  'junit-xml': { framework: 'junit', suiteName: 'JUnit artifacts' },
  'jest-json': { framework: 'jest', suiteName: 'Jest artifacts' },
  'vitest-json': { framework: 'vitest', suiteName: 'Vitest artifacts' },
};

/** Reads a test-framework report into results; a report that is not one, or holds no test, is a VALIDATION_ERROR. */
export function parseArtifact(format: ArtifactFormat, content: Buffer): IngestResult[] {
  const text = content.toString('utf8');
  const records: TestRecord[] = format === 'junit-xml' ? parseJUnitXml(text) : parseJestShapedJson(parseJson(text, format), format);
  if (records.length === 0) throw new OperationFailure('VALIDATION_ERROR', 'the artifact holds no test results', { reason: 'ARTIFACT_EMPTY', format });
  return toIngestResults(records);
}

function parseJson(text: string, format: ArtifactFormat): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new OperationFailure('VALIDATION_ERROR', `the artifact is not valid JSON: ${(error as Error).message}`, { reason: 'ARTIFACT_UNREADABLE', format });
  }
}
