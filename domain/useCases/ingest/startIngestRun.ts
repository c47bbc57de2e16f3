import { requireProject } from '../../access/project.js';
import { ingestRunInput, startIngestRun as startRun, type IngestRunFields } from '../../ingest/runs.js';
import type { IngestStore } from '../../ports/ingestStore.js';
import type { Principal } from '../../principal.js';
import type { Run } from '../../evals/run.js';

/**
 * Chunked upload, first call: the run named by externalRunId, created (with its suite if need be) or reused as
 * it is. Concurrent starts of one id meet on the unique index, in one transaction each.
 */
export function startIngestRun(deps: { ingest: IngestStore }) {
  return async function startIngestRun(input: {
    principal: Principal;
    projectId: string;
    run: IngestRunFields;
  }): Promise<{ run: Run; reused: boolean }> {
    const { ingest } = deps;
    const project = await requireProject(ingest, input.principal, input.projectId);
    return await ingest.transaction((tx) => startRun(tx, ingestRunInput(project, input.principal, input.run)));
  };
}

export type StartIngestRun = ReturnType<typeof startIngestRun>;
