import { requireRun } from '../../access/run.js';
import { analyzeTools, type ToolAnalysis } from '../../evals/compare/tools.js';
import type { RunStore } from '../../ports/runStore.js';
import type { Principal } from '../../principal.js';

/** How many of the most frequent confusions the analysis reports (as a comparison's side does). */
const CONFUSIONS = 10;

/**
 * A run's tool analysis over its finished iterations (a running run's so far): precision, recall and F1 per tool,
 * confusions, coverage, scored as a comparison scores each side.
 */
export function analyzeRunTools(deps: { runs: RunStore }) {
  return async function analyzeRunTools(input: {
    principal: Principal;
    projectId: string;
    runId: string;
  }): Promise<ToolAnalysis> {
    const run = await requireRun(deps.runs, input.principal, input);
    return analyzeTools(await deps.runs.sideAggregates(run.id, undefined, { confusions: CONFUSIONS }));
  };
}

export type AnalyzeRunTools = ReturnType<typeof analyzeRunTools>;
