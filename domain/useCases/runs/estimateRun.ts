import { requireProject } from '../../access/project.js';
import { estimateRun as estimate, type RunEstimate } from '../../evals/estimate.js';
import { previewEvalRun, type RunCreationDeps, type RunPreview, type RunRequest } from '../../evals/startEvalRun.js';
import type { RunStore } from '../../ports/runStore.js';
import type { Principal } from '../../principal.js';

/** The suite's runs whose iterations say what its cases spend per iteration. */
export const ESTIMATE_HISTORY_RUNS = 20;

export interface EstimateRunDeps extends RunCreationDeps {
  /** the project the run would start in, as the key may see it */
  runs: Pick<RunStore, 'visibleProject'>;
}

export interface EstimatedRun {
  preview: RunPreview;
  estimate: RunEstimate;
}

/**
 * POST /eval-runs with dryRun: the run the request would start, checked by the same rules (previewEvalRun: nothing
 * written, no workflow started), and what it is expected to cost (domain/evals/estimate.ts) from the suite's earlier
 * runs, else the stated heuristic.
 */
export function estimateRun(deps: EstimateRunDeps) {
  return async function estimateRun(input: {
    principal: Principal;
    projectId: string;
    request: RunRequest;
  }): Promise<EstimatedRun> {
    const { principal } = input;
    const project = await requireProject(deps.runs, principal, input.projectId);
    const origin = {
      organizationId: principal.organizationId,
      projectId: project.id,
      source: 'api' as const,
      createdByKeyId: principal.keyId,
    };
    const preview = await previewEvalRun(deps, origin, input.request);
    const history =
      preview.suite.id === null ? [] : await deps.setup.usageHistory(preview.suite.id, ESTIMATE_HISTORY_RUNS);
    return { preview, estimate: estimate(preview, history) };
  };
}

export type EstimateRun = ReturnType<typeof estimateRun>;
