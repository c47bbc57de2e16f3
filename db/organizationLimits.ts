import type { Db } from './connection.js';
import type { OrganizationLimits } from '../domain/evals/runSettings.js';

/** The domain's ceilings (domain/evals/runSettings.ts), for the modules that still import them from here. */
export type { OrganizationLimits };

export const noOrganizationLimits: OrganizationLimits = {
  maxTokens: null,
  maxIterations: null,
  maxConcurrency: null,
  queueRuns: false,
};

interface LimitsRow {
  max_run_tokens: string | number | null;
  max_run_iterations: number | null;
  max_run_concurrency: number | null;
  queue_runs: boolean;
}

const toLimits = (row: LimitsRow | undefined): OrganizationLimits =>
  row
    ? {
        // bigint comes back as a string
        maxTokens: row.max_run_tokens === null ? null : Number(row.max_run_tokens),
        maxIterations: row.max_run_iterations,
        maxConcurrency: row.max_run_concurrency,
        queueRuns: row.queue_runs,
      }
    : noOrganizationLimits;

/** The ceilings every run of the organization obeys (all null when none is set, or there is no such organization). */
export async function getOrganizationLimits(sql: Db, organizationId: string): Promise<OrganizationLimits> {
  const [row] = await sql<LimitsRow[]>`
    SELECT max_run_tokens, max_run_iterations, max_run_concurrency, queue_runs FROM organizations WHERE id = ${organizationId}`;
  return toLimits(row);
}

/** Sets the given ceilings (null clears one, undefined keeps it); undefined when there is no such organization. */
export async function setOrganizationLimits(
  sql: Db,
  organizationId: string,
  changes: Partial<OrganizationLimits>,
): Promise<OrganizationLimits | undefined> {
  // Each column keeps its value unless a change is given (null clears it); the casts type a null parameter.
  const keep = (value: number | null | undefined) => value === undefined;
  const [row] = await sql<LimitsRow[]>`
    UPDATE organizations SET
      max_run_tokens = CASE WHEN ${keep(changes.maxTokens)} THEN max_run_tokens ELSE ${changes.maxTokens ?? null}::bigint END,
      max_run_iterations = CASE WHEN ${keep(changes.maxIterations)} THEN max_run_iterations ELSE ${changes.maxIterations ?? null}::integer END,
      max_run_concurrency = CASE WHEN ${keep(changes.maxConcurrency)} THEN max_run_concurrency ELSE ${changes.maxConcurrency ?? null}::integer END,
      queue_runs = CASE WHEN ${changes.queueRuns === undefined} THEN queue_runs ELSE ${changes.queueRuns ?? false}::boolean END,
      updated_at = now()
    WHERE id = ${organizationId} RETURNING max_run_tokens, max_run_iterations, max_run_concurrency, queue_runs`;
  return row ? toLimits(row) : undefined;
}
