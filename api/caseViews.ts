import { toPublicMatchOptions } from '../domain/evals/matchOptions.js';
import type { MatchOptions } from '../domain/evals/scoring.js';
import type { CaseView } from './schemas/cases.js';
import type { Case } from '../domain/evals/case.js';

/** How one case looks on the wire (caseSchema): the real product's names for Runway's columns. */
export function toCaseView(row: Case): CaseView {
  return {
    id: row.id,
    suiteId: row.suiteId,
    title: row.title,
    kind: 'prompt',
    prompt: row.query,
    expectedToolCalls: row.expectedToolCalls,
    ...(row.expectedOutput !== null && { expectedOutput: row.expectedOutput }),
    ...(row.outputCheck !== null && { outputCheck: row.outputCheck }),
    ...(row.turns !== null && { turns: row.turns }),
    ...(row.scenario !== null && { scenario: row.scenario }),
    iterations: row.runs,
    isNegative: row.isNegativeTest,
    models:
      row.models && row.models.length > 0
        ? row.models.map((m) => ({ model: m.model, ...(m.provider && { provider: m.provider }) }))
        : row.model === null
          ? []
          : [{ model: row.model, ...(row.provider !== null && { provider: row.provider }) }],
    ...(row.matchOptions !== null && { matchOptions: toPublicMatchOptions(row.matchOptions as Partial<MatchOptions>) }),
    ...(row.advancedConfig !== null && { advancedConfig: row.advancedConfig }),
    ...(row.elicitation !== null && { elicitation: row.elicitation }),
    ...(row.ingested && { ingested: true as const }),
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
}
