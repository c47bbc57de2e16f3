import { requireProject } from '../../access/project.js';
import { finalizeIngestRun as finalizeRun, lockIngestedRun } from '../../ingest/runs.js';
import type { IngestStore } from '../../ports/ingestStore.js';
import type { Principal } from '../../principal.js';
import type { Run } from '../../evals/run.js';

/**
 * Chunked upload, last call: the ingested run ended through the one finalize story
 * (domain/useCases/runs/finalizeRun.ts), under its row lock so that no append in flight is missed. Again: the
 * finished run, unchanged.
 */
export function finalizeIngestRun(deps: { ingest: IngestStore }) {
  return async function finalizeIngestRun(input: {
    principal: Principal;
    projectId: string;
    /** the run, by Runway's id or the reporter's (both, when given, must name it) */
    runId?: string;
    externalRunId?: string;
  }): Promise<Run> {
    const { ingest } = deps;
    const project = await requireProject(ingest, input.principal, input.projectId);
    return await ingest.transaction(async (tx) => {
      const run = await lockIngestedRun(tx, project.id, { runId: input.runId, externalRunId: input.externalRunId });
      return await finalizeRun(tx, run);
    });
  };
}

export type FinalizeIngestRun = ReturnType<typeof finalizeIngestRun>;
