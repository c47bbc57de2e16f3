import type { IterationIsolation } from '../catalog/server.js';
import type { ClientProfile } from '../mcp/clientProfile.js';
import type { AdaptiveSettings } from './adaptive.js';

/**
 * Where a run stands: running until it ends once, completed, failed or cancelled (finalizeRun). `queued` (issue 33):
 * created past its organization's concurrency cap by a request that asked to queue (or under the organization's
 * setting); it has no workflow until a slot frees and it is started (domain/useCases/runs/promoteQueuedRuns.ts), or
 * it ends cancelled while it waits.
 */
export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** A run's place in its organization's queue (1: the next to start), while it is queued. */
export interface QueuePlace {
  position: number;
}

/** What an ended run's pass criteria said of it; `pending` while it runs; null: not judged (a failed start). */
export type RunResult = 'passed' | 'failed' | 'pending';

/**
 * Sources of runs executed here, each by its evalRun workflow: started through the API, by a suite's schedule, or
 * re-grading a finished run's recorded conversations (`regrade`, domain/evals/regrade.ts). Ingested runs (`sdk`) have
 * no workflow. The concurrency cap counts these; the SQL of db/evalRuns.ts spells the same
 * list as a literal, so that the partial index eval_runs_active_idx (migration 033) matches it.
 */
export const executedSources = ['api', 'schedule', 'regrade'] as const;
export type ExecutedSource = (typeof executedSources)[number];
export const isExecuted = (run: { source: string }): boolean =>
  (executedSources as readonly string[]).includes(run.source);

/** What a run may spend; a field left out is not bounded (unless the organization's ceiling bounds it). */
export interface RunBudget {
  maxTokens?: number;
  maxIterations?: number;
  /** USD at the organization's prices (domain/models/prices.ts); every model the run plans must have a known price */
  maxCostUsd?: number;
}

/** The share of a run's iterations that must pass for the run to pass. */
export interface PassCriteria {
  minimumPassRate: number;
}

/**
 * An ended run's summary as stored: the counts every run has, with what else its source keeps (an executed run's
 * statistics, domain/evals/summary.ts; an ingested run's report).
 */
export type StoredRunSummary = { total: number; passed: number; failed: number; passRate: number } & Record<
  string,
  unknown
>;

/** A case of the original run that a re-grade leaves out, and why. */
export interface SkippedCase {
  caseId: string | null;
  title: string;
  reason: 'CASE_DELETED' | 'PROMPTS_CHANGED';
}

/** An eval run: one execution of a suite's cases (or one reported by ingest), and where it stands. */
export interface Run {
  id: string;
  suiteId: string;
  projectId: string;
  organizationId: string;
  /** 1, 2, ... per suite, without gaps */
  runNumber: number;
  status: RunStatus;
  result: RunResult | null;
  /** set when the run ends */
  summary: StoredRunSummary | null;
  /** how it started: `api`, `schedule` (both executed here, executedSources) or `sdk` (ingested) */
  source: string;
  notes: string | null;
  passCriteria: PassCriteria;
  serverIds: string[];
  /** iterations per case, in place of each case's own count */
  iterationOverride: number | null;
  /** the run's own model keys, sealed; dropped when the run ends */
  modelKeysEnc: string | null;
  /** an ingested run's id in the reporting framework */
  externalRunId: string | null;
  /** the host the run was started with, and the client profile taken from it then (null: each server's own) */
  hostId: string | null;
  clientProfile: ClientProfile | null;
  /** the suite's choice when the run started: fresh MCP sessions per iteration, or shared ones */
  iterationIsolation: IterationIsolation;
  /** what the run may spend (after the organization's ceiling); null: no budget */
  budget: RunBudget | null;
  /** batches in flight at once, as the run asked; null: the worker's default */
  concurrency: number | null;
  /** adaptive iterations against a baseline run (issue 31); null: every case runs its planned iterations */
  adaptive: AdaptiveSettings | null;
  /** why it failed, for a failed run */
  error: string | null;
  /** a re-grade (source `regrade`): the run whose recorded conversations it grades again; null otherwise */
  regradeOf: string | null;
  /** a re-grade: the original's cases it left out, and why (deleted since, prompts changed); null otherwise */
  regradeSkipped: SkippedCase[] | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  /** when retention first deleted one of its iterations' traces (migration 068); null: never */
  tracesExpiredAt: Date | null;
}

/**
 * A run's iterations by verdict, as domain/evals/verdicts.ts defines them: passed, failed (scored, missed) and errored
 * (could not be scored) are disjoint; `completed` is the three together (the finished ones).
 */
export interface Progress {
  total: number;
  completed: number;
  passed: number;
  failed: number;
  errored: number;
}
