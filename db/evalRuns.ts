import type { Db, Tx } from './connection.js';
import { newId } from '../domain/ids.js';
import { camelRow, camelRows, type Camel, type RowIsNoun, type Same } from './rows.js';
import type {
  PassCriteria,
  Progress,
  Run,
  RunBudget,
  RunResult,
  RunStatus,
  SkippedCase,
  StoredRunSummary,
} from '../domain/evals/run.js';
import type { ClientProfile } from '../domain/mcp/clientProfile.js';
import type { IterationIsolation } from '../domain/catalog/server.js';
import type { NewRun } from '../domain/ports/runSetupStore.js';
import type { AdaptiveCase, AdaptiveSettings } from '../domain/evals/adaptive.js';

export interface RunRow {
  id: string;
  suite_id: string;
  project_id: string;
  organization_id: string;
  run_number: number;
  status: RunStatus;
  result: RunResult | null;
  summary: StoredRunSummary | null;
  source: string;
  notes: string | null;
  pass_criteria: PassCriteria;
  server_ids: string[];
  iteration_override: number | null;
  model_keys_enc: string | null;
  external_run_id: string | null;
  /** the host the run was started with, and the client profile taken from it then (null: each server's own) */
  host_id: string | null;
  client_profile: ClientProfile | null;
  /** the suite's choice when the run started: fresh MCP sessions per iteration, or shared ones */
  iteration_isolation: IterationIsolation;
  /** what the run may spend (after the organization's ceiling); null: no budget */
  budget: RunBudget | null;
  /** batches in flight at once, as the run asked; null: the worker's default */
  concurrency: number | null;
  /** adaptive iterations against a baseline run (migration 061); null: a fixed-n run */
  adaptive: AdaptiveSettings | null;
  error: string | null;
  regrade_of: string | null;
  regrade_skipped: SkippedCase[] | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  /** when retention first deleted one of its iterations' traces (migration 068); null: never */
  traces_expired_at: Date | null;
}

/** The row as the domain's Run (domain/evals/run.ts): a column and its field go together. */
type _RunIsRow = RowIsNoun<Same<Camel<RunRow>, Run>>;

/** Serializes run creation per organization (transaction-scoped), so the concurrency cap holds across API replicas. */
export async function lockOrganizationRuns(tx: Tx, organizationId: string): Promise<number> {
  await tx`SELECT pg_advisory_xact_lock(hashtext('eval-runs'), hashtext(${organizationId}))`;
  const [{ active }] = await tx<{ active: number }[]>`
    SELECT count(*)::int AS active FROM eval_runs WHERE organization_id = ${organizationId} AND status = 'running' AND source IN ('api', 'schedule', 'regrade')`;
  // An open conformance check (issue 32, db/conformanceChecks.ts) counts as a running run until its deadline.
  const [{ checks }] = await tx<{ checks: number }[]>`
    SELECT count(*)::int AS checks FROM conformance_checks
    WHERE organization_id = ${organizationId} AND status IN ('queued', 'running') AND deadline_at > now()`;
  return active + checks;
}

/** How many of the organization's runs are queued (issue 33; migration 067's partial index). */
export async function countQueuedRuns(sql: Db, organizationId: string): Promise<number> {
  const [{ queued }] = await sql<{ queued: number }[]>`
    SELECT count(*)::int AS queued FROM eval_runs WHERE organization_id = ${organizationId} AND status = 'queued'`;
  return queued;
}

/**
 * The organization's oldest queued run (created_at, then id), now running: its row locked until the transaction
 * ends, skipping one another transaction holds (a cancel of it). Called under lockOrganizationRuns, so replicas
 * promoting at once take turns and never start more than the cap; undefined when none is left to take.
 */
export async function takeQueuedRun(tx: Tx, organizationId: string): Promise<Run | undefined> {
  const [row] = await tx<RunRow[]>`
    UPDATE eval_runs SET status = 'running' WHERE id = (
      SELECT id FROM eval_runs WHERE organization_id = ${organizationId} AND status = 'queued'
      ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING *`;
  return camelRow(row);
}

/** Organizations that have queued runs, those waiting longest first (the queue's sweep). */
export async function organizationsWithQueuedRuns(sql: Db, limit: number): Promise<string[]> {
  const rows = await sql<{ organizationId: string }[]>`
    SELECT organization_id AS "organizationId" FROM eval_runs WHERE status = 'queued'
    GROUP BY organization_id ORDER BY min(created_at) LIMIT ${limit}`;
  return rows.map((r) => r.organizationId);
}

/** Each queued run's place in its organization's queue (1-based, by created_at then id); other runs are left out. */
export async function queuePositions(sql: Db, runIds: string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const rows = await sql<{ id: string; position: number }[]>`
    SELECT r.id, (SELECT count(*)::int FROM eval_runs q
                  WHERE q.organization_id = r.organization_id AND q.status = 'queued'
                    AND (q.created_at, q.id) <= (r.created_at, r.id)) AS position
    FROM eval_runs r WHERE r.id = ANY(${runIds}) AND r.status = 'queued'`;
  return new Map(rows.map((r) => [r.id, r.position]));
}

/** The runs the concurrency cap counts for an organization (as lockOrganizationRuns counts them). */
export async function listActiveRuns(sql: Db, organizationId: string): Promise<Run[]> {
  return camelRows(
    await sql<RunRow[]>`
    SELECT * FROM eval_runs WHERE organization_id = ${organizationId} AND status = 'running' AND source IN ('api', 'schedule', 'regrade') ORDER BY created_at`,
  );
}

/**
 * Executed runs still running with nothing written for quietMs (no iteration claimed or finished, nor the run
 * created): the ones worth asking Temporal about. A run whose workflow was stopped goes quiet; a busy one does not.
 */
export async function listQuietRuns(sql: Db, quietMs: number, limit: number): Promise<Run[]> {
  const since = sql`now() - make_interval(secs => ${quietMs / 1000})`;
  return camelRows(
    await sql<RunRow[]>`
    SELECT * FROM eval_runs r
    WHERE r.status = 'running' AND r.source IN ('api', 'schedule', 'regrade') AND r.created_at < ${since}
      AND NOT EXISTS (SELECT 1 FROM eval_iterations i WHERE i.run_id = r.id AND i.updated_at >= ${since})
    ORDER BY r.created_at LIMIT ${limit}`,
  );
}

export async function insertRun(tx: Tx, input: NewRun): Promise<Run> {
  // The suite row lock makes run numbers sequential per suite without gaps or duplicates.
  await tx`SELECT id FROM eval_suites WHERE id = ${input.suiteId} FOR UPDATE`;
  const [row] = await tx<RunRow[]>`
    INSERT INTO eval_runs (id, suite_id, project_id, organization_id, run_number, status, result, source, notes,
                           pass_criteria, server_ids, iteration_override, model_keys_enc, created_by_key_id,
                           external_run_id, framework, ci, tags, expected_iterations, host_id, client_profile,
                           iteration_isolation, budget, concurrency, adaptive, regrade_of, regrade_skipped)
    VALUES (${newId('run')}, ${input.suiteId}, ${input.projectId}, ${input.organizationId},
            (SELECT COALESCE(max(run_number), 0) + 1 FROM eval_runs WHERE suite_id = ${input.suiteId}),
            ${input.status ?? 'running'}, 'pending', ${input.source}, ${input.notes ?? null}, ${tx.json(input.passCriteria)},
            ${input.serverIds}, ${input.iterationOverride ?? null}, ${input.modelKeysEnc ?? null}, ${input.createdByKeyId ?? null},
            ${input.externalRunId ?? null}, ${input.framework ?? null}, ${input.ci ? tx.json(input.ci as never) : null},
            ${input.tags ? tx.json(input.tags as never) : null}, ${input.expectedIterations ?? null}, ${input.hostId ?? null},
            ${input.clientProfile ? tx.json(input.clientProfile as never) : null}, ${input.iterationIsolation ?? 'per-iteration'},
            ${input.budget ? tx.json(input.budget as never) : null}, ${input.concurrency ?? null},
            ${input.adaptive ? tx.json(input.adaptive as never) : null},
            ${input.regradeOf ?? null}, ${input.regradeSkipped ? tx.json(input.regradeSkipped as never) : null})
    RETURNING *`;
  return camelRow(row);
}

export async function findRun(sql: Db, projectId: string, runId: string): Promise<Run | undefined> {
  const [row] = await sql<RunRow[]>`SELECT * FROM eval_runs WHERE id = ${runId} AND project_id = ${projectId}`;
  return camelRow(row);
}

/** The project's runs among `runIds` (any order; ids it does not hold are left out). */
export async function findRuns(sql: Db, projectId: string, runIds: string[]): Promise<Run[]> {
  return camelRows(
    await sql<RunRow[]>`SELECT * FROM eval_runs WHERE id = ANY(${runIds}) AND project_id = ${projectId}`,
  );
}

export async function getRun(sql: Db, runId: string): Promise<Run | undefined> {
  const [row] = await sql<RunRow[]>`SELECT * FROM eval_runs WHERE id = ${runId}`;
  return camelRow(row);
}

/** The run, its row locked until the transaction ends: planning and finalizing a run never interleave. */
export async function lockRunById(tx: Tx, runId: string): Promise<Run | undefined> {
  const [row] = await tx<RunRow[]>`SELECT * FROM eval_runs WHERE id = ${runId} FOR UPDATE`;
  return camelRow(row);
}

export async function listSuiteRuns(sql: Db, suiteId: string, limit: number): Promise<Run[]> {
  return camelRows(
    await sql<
      RunRow[]
    >`SELECT * FROM eval_runs WHERE suite_id = ${suiteId} ORDER BY created_at DESC, run_number DESC LIMIT ${limit}`,
  );
}

/**
 * The progress counts over a set of iteration rows; one definition for one run and for many. The verdicts of
 * domain/evals/verdicts.ts (iterationVerdict) in SQL: the status decides first, and only a completed iteration's
 * result says passed or failed.
 */
const progressColumns = (sql: Db) => sql`
  count(*)::int AS total,
  count(*) FILTER (WHERE status IN ('completed', 'failed'))::int AS completed,
  count(*) FILTER (WHERE status = 'completed' AND result = 'passed')::int AS passed,
  count(*) FILTER (WHERE status = 'completed' AND result IS DISTINCT FROM 'passed')::int AS failed,
  count(*) FILTER (WHERE status = 'failed')::int AS errored`;

/** Progress from the iteration rows themselves: exact, and what polling falls back to without a worker. */
export async function runProgress(sql: Db, runId: string): Promise<Progress> {
  const [row] = await sql<Progress[]>`SELECT ${progressColumns(sql)} FROM eval_iterations WHERE run_id = ${runId}`;
  return row;
}

/** runProgress of several runs in one query (a suite's run list); a run without iterations has all counts 0. */
export async function runsProgress(sql: Db, runIds: string[]): Promise<Map<string, Progress>> {
  const rows = await sql<(Progress & { runId: string })[]>`
    SELECT run_id AS "runId", ${progressColumns(sql)} FROM eval_iterations WHERE run_id = ANY(${runIds}) GROUP BY run_id`;
  const none: Progress = { total: 0, completed: 0, passed: 0, failed: 0, errored: 0 };
  const byRun = new Map(rows.map(({ runId, ...progress }) => [runId, progress]));
  return new Map(runIds.map((id) => [id, byRun.get(id) ?? none]));
}

export async function markRunStarted(sql: Db, runId: string): Promise<void> {
  await sql`UPDATE eval_runs SET started_at = COALESCE(started_at, now()) WHERE id = ${runId}`;
}

/**
 * Ends a run once: a finished run is never finished again (finalize may be retried). Per-run model keys are dropped.
 * Only the finalize use case calls it (domain/useCases/runs/finalizeRun.ts): the one way a run ends.
 */
export async function finishRun(
  sql: Db,
  runId: string,
  input: {
    status: Exclude<RunStatus, 'running' | 'queued'>;
    result: 'passed' | 'failed' | null;
    summary: object;
    error?: string | null;
  },
): Promise<Run | undefined> {
  const [row] = await sql<RunRow[]>`
    UPDATE eval_runs SET status = ${input.status}, result = ${input.result}, summary = ${sql.json(input.summary as never)},
      error = ${input.error ?? null}, completed_at = now(), model_keys_enc = NULL
    WHERE id = ${runId} AND status IN ('running', 'queued')
    RETURNING *`;
  return camelRow(row);
}

/** An adaptive run's cases after a look (domain/useCases/runs/adaptiveRound.ts), kept in its `adaptive` column. */
export async function recordAdaptiveCases(sql: Db, runId: string, cases: AdaptiveCase[]): Promise<void> {
  await sql`
    UPDATE eval_runs SET adaptive = jsonb_set(adaptive, '{cases}', ${sql.json(cases as never)})
    WHERE id = ${runId} AND adaptive IS NOT NULL`;
}

/** The suite's last completed run: an adaptive run's baseline "previous". */
export async function lastCompletedRun(sql: Db, suiteId: string): Promise<Run | undefined> {
  const [row] = await sql<RunRow[]>`
    SELECT * FROM eval_runs WHERE suite_id = ${suiteId} AND status = 'completed' ORDER BY run_number DESC LIMIT 1`;
  return camelRow(row);
}
