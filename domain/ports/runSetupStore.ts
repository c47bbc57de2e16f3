import type { Host } from '../catalog/host.js';
import type { IterationIsolation } from '../catalog/server.js';
import type { Case, CaseInput, CaseUpsert } from '../evals/case.js';
import type { IterationStatus, PlannedIteration } from '../evals/iteration.js';
import type { Run, RunBudget, SkippedCase } from '../evals/run.js';
import type { AdaptiveCase, AdaptiveSettings } from '../evals/adaptive.js';
import type { OrganizationLimits } from '../evals/runSettings.js';
import type { Suite } from '../evals/suite.js';
import type { ClientProfile } from '../mcp/clientProfile.js';
import type { OrgProviderKeys } from '../models/catalog.js';
import type { ModelPrice } from '../models/prices.js';
import type { UsageHistory } from '../evals/estimate.js';
import type { ServerDirectory } from './serverDirectory.js';
import type { NewSuite, SuiteChanges } from './suiteStore.js';

/**
 * What setting a run up needs from storage, declared here and implemented outside the domain (db/runSetupStore.ts):
 * creating it (domain/evals/startEvalRun.ts, for startRun and startScheduledRun), planning its iterations
 * (domain/evals/plan.ts) and loading what its batches run with (domain/evals/runContext.ts). Ingest writes its runs
 * through the same NewRun (domain/ports/ingestStore.ts).
 */

/** A new run, as written: `running` (or `queued`, issue 33), numbered next in its suite. */
export interface NewRun {
  /** default `running`; `queued`: past the organization's cap, waiting for a slot without a workflow */
  status?: 'running' | 'queued';
  suiteId: string;
  projectId: string;
  organizationId: string;
  source: string;
  notes?: string | null;
  passCriteria: { minimumPassRate: number };
  serverIds: string[];
  iterationOverride?: number | null;
  /** the run's own model keys, sealed (domain/ports/secretBox.ts) */
  modelKeysEnc?: string | null;
  createdByKeyId?: string | null;
  /** an ingested run's id in the reporting framework, and what its reporter says about it */
  externalRunId?: string | null;
  framework?: string | null;
  ci?: unknown;
  tags?: unknown;
  expectedIterations?: number | null;
  hostId?: string | null;
  clientProfile?: ClientProfile | null;
  /** default per-iteration; meaningless for ingested runs */
  iterationIsolation?: IterationIsolation;
  budget?: RunBudget | null;
  concurrency?: number | null;
  adaptive?: AdaptiveSettings | null;
  /** a re-grade: the run it grades again, and the cases of that run it leaves out */
  regradeOf?: string | null;
  regradeSkipped?: SkippedCase[] | null;
}

/** A case's finished iterations in a run (scored or errored) and how many passed. */
export interface CasePassCounts {
  caseId: string;
  passed: number;
  total: number;
}

export interface RunSetupStore extends ServerDirectory {
  /** A suite of the project, live; with `includeDeleted`, also a deleted one (the record of a run that exists). */
  suite(projectId: string, suiteId: string, options?: { includeDeleted?: boolean }): Promise<Suite | undefined>;
  /** A host of the project. */
  host(projectId: string, hostId: string): Promise<Host | undefined>;
  /** The organization's model provider keys, opened. */
  providerKeys(organizationId: string): Promise<OrgProviderKeys>;
  /** The organization's own model prices, by price key (`<provider>/<name>`), over the defaults (models/prices.ts). */
  modelPrices(organizationId: string): Promise<Record<string, ModelPrice>>;
  /**
   * What each case of the suite spent per iteration with each model (and provider) in the suite's last
   * `runs` executed runs: finished iterations only (domain/evals/estimate.ts).
   */
  usageHistory(suiteId: string, runs: number): Promise<UsageHistory[]>;
  /** The ceilings every run of the organization obeys (all null when none is set). */
  organizationLimits(organizationId: string): Promise<OrganizationLimits>;
  /** A run by id alone. */
  run(runId: string): Promise<Run | undefined>;

  /**
   * Takes the organization's run-creation lock until the transaction ends (so that its cap holds across API
   * replicas) and counts the running runs the cap counts (only inside `transaction`).
   */
  lockActiveRuns(organizationId: string): Promise<number>;
  /** How many of the organization's runs are queued (issue 33). */
  queuedRuns(organizationId: string): Promise<number>;
  /**
   * The organization's oldest queued run, now running (its row locked; one another transaction holds is skipped);
   * undefined when none is left. Only inside `transaction`, after lockActiveRuns.
   */
  takeQueuedRun(organizationId: string): Promise<Run | undefined>;
  /** Organizations that have queued runs, the longest waiting first, at most `limit`. */
  organizationsWithQueuedRuns(limit: number): Promise<string[]>;
  /** The live suite, its row locked until the transaction ends: no run is created in a suite being deleted. */
  lockLiveSuite(suiteId: string): Promise<Suite | undefined>;
  /** A new suite (names are not unique: a name in use makes another suite). */
  createSuite(suite: NewSuite): Promise<Suite>;
  /** Applies the changes to a live suite; undefined when the project has no such suite. */
  updateSuite(projectId: string, suiteId: string, changes: SuiteChanges): Promise<Suite | undefined>;
  /**
   * Locks the suite against concurrent case creation and counts its live cases and, of `incoming` (by title +
   * query), those it does not hold yet (only inside `transaction`).
   */
  lockCases(suiteId: string, incoming: { title: string; query: string }[]): Promise<{ cases: number; adding: number }>;
  /**
   * Inserts or updates each case by its identity (title + query, or externalCaseId), each on its own: one that
   * cannot be written is reported in `failed` and the others still commit (only inside `transaction`).
   */
  upsertCases(suiteId: string, cases: CaseInput[]): Promise<CaseUpsert>;
  /** The suite's live cases, oldest first. */
  cases(suiteId: string): Promise<Case[]>;
  /** A new run, numbered next in its suite under the suite's row lock (only inside `transaction`). */
  createRun(run: NewRun): Promise<Run>;
  /** A run by id alone, locked until the transaction ends: planning and ending a run never interleave. */
  lockRun(runId: string): Promise<Run | undefined>;
  /**
   * Writes the run's planned iterations as pending, once (a plan written again adds nothing), and answers all of
   * the run's iterations in plan order.
   */
  planIterations(runId: string, planned: PlannedIteration[]): Promise<{ id: string; status: IterationStatus }[]>;
  /** Marks the run started (once: a later call keeps the first time). */
  markStarted(runId: string): Promise<void>;
  /** The suite's last completed run (an adaptive run's baseline "previous"). */
  lastCompletedRun(suiteId: string): Promise<Run | undefined>;
  /** Per case, the run's finished iterations and how many passed, counted in SQL (an adaptive run's looks). */
  casePassCounts(runId: string): Promise<CasePassCounts[]>;
  /** An adaptive run's cases after a look. */
  recordAdaptiveCases(runId: string, cases: AdaptiveCase[]): Promise<void>;

  /** A run's finished iterations, and how many of them recorded a graded conversation (re-grading reads these). */
  countRecorded(runId: string): Promise<{ finished: number; recorded: number }>;
  /** The run's cases a re-grade of it leaves out (deleted since, or asking another prompt now), and why. */
  skippedCases(runId: string): Promise<SkippedCase[]>;
  /**
   * Copies the original run's iterations of live cases into the re-grade run with their recorded traces and the
   * cases' current expectations: completed ones pending (to be graded again), errored ones failed. Answers the
   * pending ids in plan order (only inside `transaction`).
   */
  copyRecordedIterations(originalRunId: string, runId: string): Promise<string[]>;
  /** The recorded turns (`prompts[]` of the trace: prompt, tool calls, answer) of these iterations, by id. */
  recordedPrompts(iterationIds: string[]): Promise<Map<string, unknown>>;

  /** Runs `work` in one transaction (the caller's, when this store already is one), on a store bound to it. */
  transaction<T>(work: (store: RunSetupStore) => Promise<T>): Promise<T>;
}
