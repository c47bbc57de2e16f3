import { requireProject } from '../../access/project.js';
import { checkExpectedTools, type UnknownToolWarning } from '../../evals/expectedTools.js';
import { createEvalRun, type CreatedRun, type RunCreationDeps, type RunRequest } from '../../evals/startEvalRun.js';
import type { McpOperations } from '../../mcp/index.js';
import type { RunStore } from '../../ports/runStore.js';
import type { RunWorkflows } from '../../ports/runWorkflows.js';
import { START_FAILED, type FinalizeRun } from './finalizeRun.js';
import type { Principal } from '../../principal.js';

export interface StartRunDeps extends RunCreationDeps {
  /** the project the run starts in, as the key may see it */
  runs: Pick<RunStore, 'visibleProject'>;
  /** lists the servers' tools for the expected-tool warnings */
  mcp: McpOperations;
  /** starts the run's workflow (api/runLauncher.ts) */
  workflows: Pick<RunWorkflows, 'start'>;
  /** ends the run when its workflow could not be started */
  finalizeRun: FinalizeRun;
}

export interface StartedRun extends Pick<CreatedRun, 'run' | 'caseUpsert' | 'servers' | 'leftOut'> {
  /** expected tools no selected server lists: advice, never a refusal */
  warnings: UnknownToolWarning[];
}

/**
 * POST /eval-runs: the run is written (createEvalRun: the cap, the suite and its inline cases, the checks, the plan),
 * then its workflow started with its plan. A workflow that cannot be started ends the run as failed, through the one
 * finalizeRun (its slot freed), and the error goes on to the caller.
 */
export function startRun(deps: StartRunDeps) {
  return async function startRun(input: {
    principal: Principal;
    projectId: string;
    request: RunRequest;
  }): Promise<StartedRun> {
    const { principal } = input;
    const project = await requireProject(deps.runs, principal, input.projectId);
    const { run, caseUpsert, cases, servers, suiteName, iterations, plan, leftOut } = await createEvalRun(
      deps,
      {
        organizationId: principal.organizationId,
        projectId: project.id,
        source: 'api',
        createdByKeyId: principal.keyId,
      },
      input.request,
    );
    // Expected tools no server has are worth a warning, never a refusal; checked while the workflow starts.
    const checked = checkExpectedTools(
      deps.mcp,
      servers,
      cases.map((c) => ({ title: c.title, expectedToolCalls: c.expectedToolCalls as { toolName: string }[] })),
    );
    const labels = {
      id: run.id,
      organizationId: run.organizationId,
      projectId: run.projectId,
      suiteId: run.suiteId,
      source: run.source,
    };
    try {
      await deps.workflows.start(labels, { suiteName, projectName: project.name, iterations }, plan);
    } catch (error) {
      await deps.finalizeRun({ runId: run.id, outcome: 'failed', error: START_FAILED });
      throw error;
    }
    const warnings = await checked;
    return { run, caseUpsert, servers, warnings, ...(leftOut && { leftOut }) };
  };
}

export type StartRun = ReturnType<typeof startRun>;
