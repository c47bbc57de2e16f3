import type { Project } from '../catalog/project.js';
import type { compareSides } from '../evals/compare/compare.js';
import type { Iteration } from '../evals/iteration.js';
import type { Progress, Run, RunStatus } from '../evals/run.js';
import type { IterationOutcome } from '../evals/statistics.js';
import type { ScheduledSuite } from '../evals/suite.js';
import type { Principal } from '../principal.js';

/**
 * What the run use cases (domain/useCases/runs, domain/access/run.ts) need from storage, declared here and
 * implemented outside the domain (db/runStore.ts). The use cases take a RunStore, never a database handle.
 */

/** One side of a comparison, counted in storage: its cases, tools, confusions and performance. */
export type SideAggregates = Parameters<typeof compareSides>[0];

/** Which iterations of a run a side counts. undefined: every model; null: iterations without a model; a string: that model. */
export type ModelFilter = string | null | undefined;

/** How a run ends: what finishing it writes. */
export interface RunEnding {
  status: Exclude<RunStatus, 'running' | 'queued'>;
  result: 'passed' | 'failed' | null;
  summary: object;
  error?: string | null;
}

/** Why the iterations a run did not get to are kept as cancelled (by default: no reason written). */
export interface NotRunReason {
  error: string;
  errorDetails: object;
}

export interface RunStore {
  /** The project the key may see, by id (`default`: the organization's default project); undefined otherwise. */
  visibleProject(principal: Principal, projectId: string): Promise<Project | undefined>;
  /** A run of the project; undefined when the project has no such run. */
  find(projectId: string, runId: string): Promise<Run | undefined>;
  /** The project's runs among `runIds` (those it has; in no particular order). */
  findMany(projectId: string, runIds: string[]): Promise<Run[]>;
  /** A run by id alone. */
  get(runId: string): Promise<Run | undefined>;
  /** A run by id alone, locked until the transaction ends (only inside `transaction`). */
  lock(runId: string): Promise<Run | undefined>;
  /** Ends a running run once (an ended run is left as it is: undefined); per-run model keys are dropped. */
  finish(runId: string, ending: RunEnding): Promise<Run | undefined>;
  /** Keeps the run's pending and running iterations as cancelled. */
  cancelUnfinishedIterations(runId: string, why?: NotRunReason): Promise<void>;
  /** The numbers of the run's finished iterations, in plan order: what its summary is computed from. */
  finishedOutcomes(runId: string): Promise<IterationOutcome[]>;
  /** A run's progress, counted from its iterations. */
  progress(runId: string): Promise<Progress>;
  /** Several runs' progress, by run id. */
  progressOf(runIds: string[]): Promise<Map<string, Progress>>;
  /** The organization's running runs (those the run cap counts). */
  active(organizationId: string): Promise<Run[]>;
  /** Running runs nothing happened to for quietMs, oldest first, at most `limit`. */
  quiet(quietMs: number, limit: number): Promise<Run[]>;
  /** Whether any of the run's iterations left `pending`: its workflow ran. */
  hasBegun(runId: string): Promise<boolean>;
  /** A page of the run's iterations in plan order, after position `afterSeq`. */
  iterationPage(runId: string, afterSeq: number, limit: number): Promise<Iteration[]>;
  /** The run's final iterations after a stream position, in stream order, without the ids in `skip`. */
  streamIterations(runId: string, afterPosition: number, skip: string[], limit: number): Promise<Iteration[]>;
  /** One iteration of the run. */
  iteration(runId: string, iterationId: string): Promise<Iteration | undefined>;
  /** An iteration's trace, in the wire shape; undefined when it has none. */
  trace(iterationId: string): Promise<Record<string, unknown> | undefined>;
  /** The models the run's iterations used, in plan order of first use. */
  models(runId: string): Promise<(string | null)[]>;
  /** The suite's latest completed run before this one (by run number). */
  previousCompleted(run: Pick<Run, 'suiteId' | 'runNumber'>): Promise<Run | undefined>;
  /** One side of a comparison: the run's finished iterations (of one model, or all), counted. */
  sideAggregates(runId: string, model: ModelFilter, options: { confusions: number }): Promise<SideAggregates>;
  /** Each queued run's place in its organization's queue (1: next to start), by run id; other runs are left out. */
  queuePositions(runIds: string[]): Promise<Map<string, number>>;
  /** Runs `work` in one transaction (the caller's, when this store already is one), on a store bound to it. */
  transaction<T>(work: (store: RunStore) => Promise<T>): Promise<T>;
}

/** The suites scheduled runs start from (db/runStore.ts). */
export interface ScheduledSuites {
  /** The suite (deleted or not), its organization, project name and schedule state, by id alone. */
  find(suiteId: string): Promise<(ScheduledSuite & { projectName: string }) | undefined>;
  /** Keeps the newest skip of a due run on the suite, with its reason. */
  recordSkip(suiteId: string, skip: { reason: string; message: string }): Promise<void>;
}
