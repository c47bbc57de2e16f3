import type { IterationIsolation } from '../catalog/server.js';
import type { PassCriteria, RunBudget } from './run.js';

/** The model that grades a suite's `judge` checks; null: each case's own model. */
export interface JudgeModel {
  model: string;
  provider?: string;
}

/** One model a case runs with; provider as for a case's single `model` (a bare id needs one). */
export interface ModelChoice {
  model: string;
  provider?: string | null;
}

/** An eval suite: the cases of a project run together against its servers, with the settings its runs start from. */
export interface Suite {
  id: string;
  projectId: string;
  name: string;
  description: string;
  serverIds: string[];
  defaultModel: string | null;
  /** the models of cases that name none, when the suite compares several (defaultModel is the first) */
  defaultModels: ModelChoice[] | null;
  /** the budget of a run of the suite that gives none */
  defaultBudget: RunBudget | null;
  passCriteria: PassCriteria;
  /** where it was made: through the API, or by ingest (`sdk`) */
  source: string;
  /** the host whose client profile the suite's runs declare */
  hostId: string | null;
  /** whether the iterations of its runs get fresh MCP sessions each (default) or share them */
  iterationIsolation: IterationIsolation;
  judgeModel: JudgeModel | null;
  /** run every scheduleIntervalMinutes while enabled (the wanted state; Temporal holds the schedule itself) */
  scheduleEnabled: boolean;
  scheduleIntervalMinutes: number | null;
  /** a deleted suite keeps its row so that its runs stay readable; it is gone from every suite read */
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A suite's newest run as the suite list shows it. */
export interface LatestRun {
  id: string;
  status: string;
  result: string | null;
  summary: { passRate?: number; passed?: number; failed?: number; errored?: number } | null;
  /** as JSON gives it (ISO 8601) */
  createdAt: string;
}

/** A suite with its latest run, run totals and pass-rate trend (the suite list). */
export interface SuiteWithStats extends Suite {
  latestRun: LatestRun | null;
  runs: number;
  runsPassed: number;
  runsFailed: number;
  /** the pass rates of its last 10 finished runs, oldest first */
  trend: number[];
  /** the distinct sources of the suite's runs (api, sdk, schedule), in name order */
  sources: string[];
  /** when the suite's schedule last started a run */
  lastScheduledRunAt: Date | null;
}

/**
 * A suite's schedule as Runway keeps it: the wanted state set through the API, and what its last due runs did.
 * Temporal holds the schedule itself (api/suiteScheduler.ts); this is what survives a lost Temporal history and what
 * the suite's detail shows without asking Temporal.
 */
export interface ScheduleState {
  scheduleEnabled: boolean;
  scheduleIntervalMinutes: number | null;
  scheduleLastSkippedAt: Date | null;
  scheduleLastSkipReason: string | null;
  scheduleLastSkipMessage: string | null;
  /** the newest run the schedule started (source `schedule`), if any */
  lastScheduledRunId: string | null;
  lastScheduledRunAt: Date | null;
}

/** A suite with its organization and schedule state. */
export interface ScheduledSuite extends Suite, ScheduleState {
  organizationId: string;
}
