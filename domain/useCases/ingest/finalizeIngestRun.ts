import { requireProject } from '../../access/project.js';
import { collectRunEndings, finalizeIngestRun as finalizeRun, lockIngestedRun } from '../../ingest/runs.js';
import type { RunEnded } from '../../ports/runEnded.js';
import type { IngestStore } from '../../ports/ingestStore.js';
import type { Principal } from '../../principal.js';
import type { Run } from '../../evals/run.js';

/**
 * Chunked upload, last call: the ingested run ended through the one finalize story
 * (domain/useCases/runs/finalizeRun.ts), under its row lock so that no append in flight is missed. Again: the
 * finished run, unchanged. `runEnded` is told after the transaction commits, when this call ended the run.
 */
export function finalizeIngestRun(deps: { ingest: IngestStore; runEnded?: RunEnded }) {
  return async function finalizeIngestRun(input: {
    principal: Principal;
    projectId: string;
    /** the run, by Runway's id or the reporter's (both, when given, must name it) */
    runId?: string;
    externalRunId?: string;
  }): Promise<Run> {
    const { ingest } = deps;
    const project = await requireProject(ingest, input.principal, input.projectId);
    const endings = collectRunEndings();
    const run = await ingest.transaction(async (tx) => {
      const locked = await lockIngestedRun(tx, project.id, { runId: input.runId, externalRunId: input.externalRunId });
      return await finalizeRun(tx, locked, endings.collect);
    });
    await endings.told(deps.runEnded);
    return run;
  };
}

export type FinalizeIngestRun = ReturnType<typeof finalizeIngestRun>;
