import type { Db } from '../../../db/connection.js';
import { sideAggregates } from '../../../db/evalCompare.js';
import { requireRun } from '../../access/run.js';
import { analyzeTools, type ToolAnalysis } from '../../evals/compare/tools.js';
import type { Principal } from '../../principal.js';

/** How many of the most frequent confusions the analysis reports (as a comparison's side does). */
const CONFUSIONS = 10;

/**
 * A run's tool analysis over its finished iterations (a running run's so far): precision, recall and F1 per tool,
 * confusions, coverage, scored as a comparison scores each side.
 */
export function analyzeRunTools(deps: { sql: Db }) {
  return async function analyzeRunTools(input: {
    principal: Principal;
    projectId: string;
    runId: string;
  }): Promise<ToolAnalysis> {
    const run = await requireRun(deps.sql, input.principal, input);
    return analyzeTools(await sideAggregates(deps.sql, run.id, undefined, { confusions: CONFUSIONS }));
  };
}

export type AnalyzeRunTools = ReturnType<typeof analyzeRunTools>;
