import { requireProject } from '../../access/project.js';
import type { IngestResult } from '../../ingest/results.js';
import { collectRunEndings, ingestRunInput, reportRun, type IngestRunFields } from '../../ingest/runs.js';
import type { RunEnded } from '../../ports/runEnded.js';
import type { IngestStore } from '../../ports/ingestStore.js';
import type { Principal } from '../../principal.js';
import type { Run } from '../../evals/run.js';

/**
 * One shot: finished results saved as a completed run, in one transaction (start, append, finalize through the
 * one finalize story). A known externalRunId returns its run as it is; one still being uploaded in chunks gets
 * these results and is finalized. Retries meet on the unique indexes, so the call is idempotent. `runEnded` is told
 * after the transaction commits, when this call ended the run.
 */
export function reportIngestRun(deps: { ingest: IngestStore; runEnded?: RunEnded }) {
  return async function reportIngestRun(input: {
    principal: Principal;
    projectId: string;
    run: IngestRunFields;
    results: IngestResult[];
  }): Promise<Run> {
    const { ingest } = deps;
    const project = await requireProject(ingest, input.principal, input.projectId);
    const endings = collectRunEndings();
    const run = await ingest.transaction((tx) =>
      reportRun(tx, ingestRunInput(project, input.principal, input.run), input.results, endings.collect),
    );
    await endings.told(deps.runEnded);
    return run;
  };
}

export type ReportIngestRun = ReturnType<typeof reportIngestRun>;
