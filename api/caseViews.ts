import type { CaseRow } from '../db/evalSuites.js';
import type { CaseView } from './schemas/cases.js';

/** A case row as the case routes show it (schemas/cases.ts). */
export function toCaseView(row: CaseRow): CaseView {
  // eval_cases has both columns; CaseRow does not name them (runs read neither)
  const { created_at, updated_at } = row as CaseRow & { created_at: Date; updated_at: Date };
  return {
    id: row.id,
    title: row.title,
    kind: 'prompt',
    prompt: row.query,
    expectedToolCalls: row.expected_tool_calls,
    ...(row.expected_output !== null && { expectedOutput: row.expected_output }),
    iterations: row.runs,
    isNegative: row.is_negative_test,
    models: row.model === null ? [] : [{ model: row.model, ...(row.provider !== null && { provider: row.provider }) }],
    ...(row.match_options !== null && { matchOptions: row.match_options }),
    createdAt: created_at.getTime(),
    updatedAt: updated_at.getTime(),
  };
}
