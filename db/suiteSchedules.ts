import type { Db, Tx } from './connection.js';
import type { SuiteRow } from './evalSuites.js';
import { camelRow, camelRows, type Camel, type RowIsNoun, type Same } from './rows.js';
import type { ScheduledSuite, ScheduleState } from '../domain/evals/suite.js';

/**
 * A suite's schedule as Runway keeps it (migrations 030 and 033): the wanted state set through the API, and what
 * its last due runs did. Temporal holds the schedule itself (api/suiteScheduler.ts); this is what survives a lost
 * Temporal history and what the suite's detail shows without asking Temporal.
 */
export interface ScheduleStateRow {
  schedule_enabled: boolean;
  schedule_interval_minutes: number | null;
  schedule_last_skipped_at: Date | null;
  schedule_last_skip_reason: string | null;
  schedule_last_skip_message: string | null;
  /** the newest run the schedule started (source `schedule`), if any */
  last_scheduled_run_id: string | null;
  last_scheduled_run_at: Date | null;
}

/** The columns as the domain's ScheduleState (domain/evals/suite.ts). */
type _ScheduleStateIsRow = RowIsNoun<Same<Camel<ScheduleStateRow>, ScheduleState>>;

export interface ScheduledSuiteRow extends SuiteRow, ScheduleStateRow {
  organization_id: string;
  deleted_at: Date | null;
}

/** The row as the domain's ScheduledSuite (domain/evals/suite.ts): a suite with its organization and schedule state. */
type _ScheduledSuiteIsRow = RowIsNoun<Same<Camel<ScheduledSuiteRow>, ScheduledSuite>>;

const lastScheduledRun = (db: Db) => db`
  LEFT JOIN LATERAL (SELECT id AS last_scheduled_run_id, created_at AS last_scheduled_run_at FROM eval_runs
                     WHERE suite_id = s.id AND source = 'schedule' ORDER BY created_at DESC LIMIT 1) r ON true`;

/** The suite (deleted or not), its organization, project name and schedule state, by id alone: what a due run starts from. */
export async function findScheduledSuite(
  sql: Db,
  suiteId: string,
): Promise<(ScheduledSuite & { projectName: string }) | undefined> {
  const [row] = await sql<(ScheduledSuiteRow & { project_name: string })[]>`
    SELECT s.*, p.organization_id, p.name AS project_name, r.* FROM eval_suites s JOIN projects p ON p.id = s.project_id ${lastScheduledRun(sql)}
    WHERE s.id = ${suiteId}`;
  return camelRow(row);
}

/** A suite of the project that is not deleted, with its schedule state; undefined otherwise. */
export async function findSuiteWithSchedule(
  sql: Db,
  projectId: string,
  suiteId: string,
): Promise<ScheduledSuite | undefined> {
  const [row] = await sql<ScheduledSuiteRow[]>`
    SELECT s.*, p.organization_id, r.* FROM eval_suites s JOIN projects p ON p.id = s.project_id ${lastScheduledRun(sql)}
    WHERE s.id = ${suiteId} AND s.project_id = ${projectId} AND s.deleted_at IS NULL`;
  return camelRow(row);
}

/**
 * Locks the suite's row until the transaction ends (schedule changes of one suite apply to Temporal one at a time,
 * in the order they are written) and returns it, when it is the project's and not deleted.
 */
export async function lockSuiteSchedule(
  tx: Tx,
  projectId: string,
  suiteId: string,
): Promise<ScheduledSuite | undefined> {
  const [locked] = await tx<{ id: string }[]>`
    SELECT id FROM eval_suites WHERE id = ${suiteId} AND project_id = ${projectId} AND deleted_at IS NULL FOR UPDATE`;
  return locked ? await findSuiteWithSchedule(tx, projectId, suiteId) : undefined;
}

/**
 * How many suites of the organization, besides `exceptSuiteId`, have an enabled schedule; holds the organization's
 * schedule lock until the transaction ends, so that concurrent enables cannot both pass the bound.
 */
export async function countEnabledSchedules(tx: Tx, organizationId: string, exceptSuiteId: string): Promise<number> {
  await tx`SELECT pg_advisory_xact_lock(hashtext('suite-schedules'), hashtext(${organizationId}))`;
  const [row] = await tx<{ enabled: number }[]>`
    SELECT count(*)::int AS enabled FROM eval_suites s JOIN projects p ON p.id = s.project_id
    WHERE p.organization_id = ${organizationId} AND s.schedule_enabled AND s.deleted_at IS NULL AND s.id <> ${exceptSuiteId}`;
  return row.enabled;
}

export async function setSuiteSchedule(
  tx: Tx,
  suiteId: string,
  schedule: { enabled: boolean; intervalMinutes: number | null },
): Promise<void> {
  await tx`
    UPDATE eval_suites SET schedule_enabled = ${schedule.enabled}, schedule_interval_minutes = ${schedule.intervalMinutes},
      updated_at = clock_timestamp()
    WHERE id = ${suiteId}`;
}

/** A due run that did not start: the newest such skip is kept with its reason, for the suite's detail. */
export async function recordScheduleSkip(
  sql: Db,
  suiteId: string,
  skip: { reason: string; message: string },
): Promise<void> {
  await sql`
    UPDATE eval_suites SET schedule_last_skipped_at = clock_timestamp(), schedule_last_skip_reason = ${skip.reason},
      schedule_last_skip_message = ${skip.message}
    WHERE id = ${suiteId}`;
}

/** Suites whose schedule is enabled (and not deleted), with what their Temporal Schedule is made from. */
export interface EnabledScheduleRow {
  id: string;
  name: string;
  project_id: string;
  organization_id: string;
  schedule_interval_minutes: number;
}

export type EnabledSchedule = Camel<EnabledScheduleRow>;

export async function listEnabledSchedules(sql: Db): Promise<EnabledSchedule[]> {
  return camelRows(
    await sql<EnabledScheduleRow[]>`
    SELECT s.id, s.name, s.project_id, p.organization_id, s.schedule_interval_minutes
    FROM eval_suites s JOIN projects p ON p.id = s.project_id
    WHERE s.schedule_enabled AND s.deleted_at IS NULL AND s.schedule_interval_minutes IS NOT NULL
    ORDER BY s.id`,
  );
}
