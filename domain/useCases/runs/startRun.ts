import { requireProject } from '../../access/project.js';
import { checkExpectedTools, type UnknownToolWarning } from '../../evals/expectedTools.js';
import { createEvalRun, type CreatedRun, type RunCreationDeps, type RunRequest } from '../../evals/startEvalRun.js';
import type { McpOperations } from '../../mcp/index.js';
import type { RunStore } from '../../ports/runStore.js';
import type { RunWorkflows } from '../../ports/runWorkflows.js';
import type { FinalizeRun } from './finalizeRun.js';
import { launchRun } from './launchRun.js';
import type { Principal } from '../../principal.js';
import type { QueuePlace } from '../../evals/run.js';
import type { PromoteQueuedRuns } from './promoteQueuedRuns.js';

export interface StartRunDeps extends RunCreationDeps {
  /** the project the run starts in, as the key may see it; a queued run's place in the queue */
  runs: Pick<RunStore, 'visibleProject' | 'get' | 'queuePositions'>;
  /** lists the servers' tools for the expected-tool warnings */
  mcp: McpOperations;
  /** starts the run's workflow (api/runLauncher.ts) */
  workflows: Pick<RunWorkflows, 'start'>;
  /** ends the run when its workflow could not be started */
  finalizeRun: FinalizeRun;
  /**
   * starts the organization's queued runs while slots are free (a run just queued may find one freed meanwhile);
   * absent: queued runs wait for a run's end or the queue's sweep (createApp always gives it)
   */
  queue?: Pick<PromoteQueuedRuns, 'promote'>;
}

export interface StartedRun extends Pick<CreatedRun, 'run' | 'caseUpsert' | 'servers' | 'leftOut'> {
  /** expected tools no selected server lists: advice, never a refusal */
  warnings: UnknownToolWarning[];
  /** a queued run's place in its organization's queue */
  queue?: QueuePlace;
}

/**
 * POST /eval-runs: the run is written (createEvalRun: the cap, the suite and its inline cases, the checks, the plan),
 * then its workflow started with its plan (launchRun: one that cannot be started ends the run as failed). A run
 * written `queued` (past the cap, asked to queue: issue 33) starts no workflow here: the queue starts it in its
 * turn (promoteQueuedRuns), which is tried once now in case a slot freed meanwhile; the reply says where it stands.
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
    if (run.status === 'queued') {
      await deps.queue?.promote(run.organizationId);
      const now = (await deps.runs.get(run.id)) ?? run;
      const position = (await deps.runs.queuePositions([run.id])).get(run.id);
      const warnings = await checked;
      return {
        run: now,
        caseUpsert,
        servers,
        warnings,
        ...(leftOut && { leftOut }),
        ...(position !== undefined && { queue: { position } }),
      };
    }
    await launchRun(deps, run, { suiteName, projectName: project.name, iterations }, plan);
    const warnings = await checked;
    return { run, caseUpsert, servers, warnings, ...(leftOut && { leftOut }) };
  };
}

export type StartRun = ReturnType<typeof startRun>;
