import type { Sql } from '../../../db/connection.js';
import { createCatalogStore } from '../../../db/catalogStore.js';
import { requireProject } from '../../access/project.js';
import type { IngestResult } from '../../ingest/results.js';
import { ingestRunInput, reportRun, type IngestRunFields } from '../../ingest/runs.js';
import type { Principal } from '../../principal.js';
import type { Run } from '../../evals/run.js';

/**
 * One shot: finished results saved as a completed run, in one transaction (start, append, finalize through the
 * one finalize story). A known externalRunId returns its run as it is; one still being uploaded in chunks gets
 * these results and is finalized. Retries meet on the unique indexes, so the call is idempotent.
 */
export function reportIngestRun(deps: { sql: Sql }) {
  return async function reportIngestRun(input: {
    principal: Principal;
    projectId: string;
    run: IngestRunFields;
    results: IngestResult[];
  }): Promise<Run> {
    const { sql } = deps;
    const project = await requireProject(createCatalogStore(sql), input.principal, input.projectId);
    return await sql.begin((tx) => reportRun(tx, ingestRunInput(project, input.principal, input.run), input.results));
  };
}

export type ReportIngestRun = ReturnType<typeof reportIngestRun>;
