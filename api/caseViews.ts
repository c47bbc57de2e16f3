import { toPublicMatchOptions } from '../domain/evals/matchOptions.js';
import type { MatchOptions } from '../domain/evals/scoring.js';
import type { CaseRow } from '../db/evalSuites.js';
import type { CaseView } from './schemas/cases.js';

/** How one case looks on the wire (caseSchema): the real product's names for Runway's columns. */
export function toCaseView(row: CaseRow): CaseView {
  return {
    id: row.id,
    suiteId: row.suite_id,
    title: row.title,
    kind: 'prompt',
    prompt: row.query,
    expectedToolCalls: row.expected_tool_calls,
    ...(row.expected_output !== null && { expectedOutput: row.expected_output }),
    ...(row.scenario !== null && { scenario: row.scenario }),
    iterations: row.runs,
    isNegative: row.is_negative_test,
    models: row.model === null ? [] : [{ model: row.model, ...(row.provider !== null && { provider: row.provider }) }],
    ...(row.match_options !== null && { matchOptions: toPublicMatchOptions(row.match_options as Partial<MatchOptions>) }),
    ...(row.advanced_config !== null && { advancedConfig: row.advanced_config }),
    ...(row.elicitation !== null && { elicitation: row.elicitation }),
    createdAt: row.created_at.getTime(),
    updatedAt: row.updated_at.getTime(),
  };
}
