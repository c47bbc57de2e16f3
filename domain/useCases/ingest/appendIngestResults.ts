import { requireProject } from '../../access/project.js';
import type { IngestResult } from '../../ingest/results.js';
import { appendResults, lockIngestedRun, type AppendOutcome } from '../../ingest/runs.js';
import type { IngestStore } from '../../ports/ingestStore.js';
import type { Principal } from '../../principal.js';

/**
 * Chunked upload: results appended to an ingested run, under its row lock, in one transaction. Results the run
 * already holds (same externalIterationId) are skipped, so a retried call changes nothing; new results for a
 * finished run are a CONFLICT, and a run Runway executed takes none.
 */
export function appendIngestResults(deps: { ingest: IngestStore }) {
  return async function appendIngestResults(input: {
    principal: Principal;
    projectId: string;
    runId: string;
    results: IngestResult[];
  }): Promise<AppendOutcome> {
    const { ingest } = deps;
    const project = await requireProject(ingest, input.principal, input.projectId);
    return await ingest.transaction(async (tx) => {
      const run = await lockIngestedRun(tx, project.id, { runId: input.runId });
      return await appendResults(tx, run, input.results);
    });
  };
}

export type AppendIngestResults = ReturnType<typeof appendIngestResults>;
