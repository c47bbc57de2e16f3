import type { Host } from '../catalog/host.js';
import type { Project } from '../catalog/project.js';
import type { IterationIsolation, SavedServer } from '../catalog/server.js';
import type { Case, CaseChanges, CaseInput, CaseUpsert } from '../evals/case.js';
import type { Progress, Run, RunBudget } from '../evals/run.js';
import type { JudgeModel, ModelChoice, ScheduledSuite, Suite, SuiteWithStats } from '../evals/suite.js';
import type { OrgProviderKeys } from '../models/catalog.js';
import type { Principal } from '../principal.js';

/**
 * What the suite use cases (domain/useCases/suites, domain/access/suite.ts, the case writes and the saving of
 * generated cases) need from storage, declared here and implemented outside the domain (db/suiteStore.ts). They
 * take a SuiteStore, never a database handle.
 */

/** A new suite, as written. */
export interface NewSuite {
  projectId: string;
  name: string;
  description?: string;
  serverIds?: string[];
  defaultModel?: string | null;
  defaultModels?: ModelChoice[] | null;
  defaultBudget?: RunBudget | null;
  passCriteria?: { minimumPassRate: number };
  /** where it is made: through the API, or by ingest (`sdk`) */
  source: string;
  hostId?: string | null;
  iterationIsolation?: IterationIsolation;
  judgeModel?: JudgeModel | null;
}

/**
 * Changes to a live suite: a field left undefined stays; null clears an optional one. `defaultModels: null` clears
 * the list (defaultModel stays); a list also sets defaultModel to its first model.
 */
export type SuiteChanges = Partial<Omit<NewSuite, 'projectId' | 'source'>>;

/** What deleting a live suite did: deleted, or left as it is while runs of it are running. */
export type SuiteDeletion = { deleted: true } | { deleted: false; running: Run[] };

/** A case as a suite's overview lists it. */
export interface CaseHeading {
  id: string;
  title: string;
}

/** How one case did in one run: its finished iterations and how many passed. */
export interface CaseRunTally {
  runId: string;
  caseId: string;
  finished: number;
  passed: number;
}

/** A saved server as stored, its secrets sealed until `open()`: only what connects to it needs them. */
export interface SealedServer {
  id: string;
  enabled: boolean;
  open(): SavedServer;
}

export interface SuiteStore {
  /** The project the key may see, by id (`default`: the organization's default project); undefined otherwise. */
  visibleProject(principal: Principal, projectId: string): Promise<Project | undefined>;
  /** A live suite of the project. */
  find(projectId: string, suiteId: string): Promise<Suite | undefined>;
  /** A live suite of the project, with its organization and schedule state. */
  findWithSchedule(projectId: string, suiteId: string): Promise<ScheduledSuite | undefined>;
  /** The project's live suites with their latest run, totals, pass-rate trend and schedule state. */
  list(projectId: string): Promise<SuiteWithStats[]>;
  /** A new suite (names are not unique: a name in use makes another suite). */
  create(suite: NewSuite): Promise<Suite>;
  /** Applies the changes to a live suite; undefined when the project has no such suite. */
  update(projectId: string, suiteId: string, changes: SuiteChanges): Promise<Suite | undefined>;
  /**
   * Deletes a live suite unless a run of it is running, under the suite's row lock (the one run creation takes);
   * its runs stay readable. Undefined when the project has no such suite. Only inside `transaction`.
   */
  delete(projectId: string, suiteId: string): Promise<SuiteDeletion | undefined>;
  /** The live suite, its row locked until the transaction ends (only inside `transaction`). */
  lockLive(suiteId: string): Promise<Suite | undefined>;

  /**
   * A live suite of the project with its schedule state, its row locked until the transaction ends: changes to one
   * suite's schedule apply in order (only inside `transaction`).
   */
  lockSchedule(projectId: string, suiteId: string): Promise<ScheduledSuite | undefined>;
  /**
   * How many suites of the organization, besides `exceptSuiteId`, have an enabled schedule; holds the organization's
   * schedule lock until the transaction ends, so that concurrent enables cannot both pass the bound (only inside
   * `transaction`).
   */
  countEnabledSchedules(organizationId: string, exceptSuiteId: string): Promise<number>;
  /** Keeps the suite's wanted schedule (only inside `transaction`). */
  saveSchedule(suiteId: string, schedule: { enabled: boolean; intervalMinutes: number | null }): Promise<void>;

  /** The suite's live cases, oldest first. */
  cases(suiteId: string): Promise<Case[]>;
  /** A page of the suite's live cases, oldest first, after the case `afterCaseId` (a deleted one still marks its place). */
  caseHeadings(suiteId: string, afterCaseId: string | undefined, limit: number): Promise<CaseHeading[]>;
  /** A live case of the suite. */
  findCase(suiteId: string, caseId: string): Promise<Case | undefined>;
  /** The live case of the suite with this title and query, other than `exceptId`. */
  findCaseByIdentity(
    suiteId: string,
    identity: { title: string; query: string },
    exceptId?: string,
  ): Promise<Case | undefined>;
  /** Locks the suite against concurrent case creation and counts its live cases (only inside `transaction`). */
  lockCases(suiteId: string): Promise<number>;
  /** A new case of the suite. */
  addCase(suiteId: string, input: CaseInput): Promise<Case>;
  /**
   * Inserts or updates each case by its identity (title + query, or externalCaseId), each on its own: one that
   * cannot be written is reported in `failed` and the others still commit (only inside `transaction`).
   */
  upsertCases(suiteId: string, cases: CaseInput[]): Promise<CaseUpsert>;
  /** Applies the changes to a live case, which is then a runnable one; undefined when there is no such case. */
  updateCase(suiteId: string, caseId: string, changes: CaseChanges): Promise<Case | undefined>;
  /** Deletes a live case (past iterations keep pointing at it); false when there is no such case. */
  deleteCase(suiteId: string, caseId: string): Promise<boolean>;

  /** The suite's newest runs, newest first. */
  runs(suiteId: string, limit: number): Promise<Run[]>;
  /** Several runs' progress, by run id (a run without iterations has all counts 0). */
  progressOf(runIds: string[]): Promise<Map<string, Progress>>;
  /** Per run and case, the finished iterations and passes of these runs and cases. */
  caseRunTallies(runIds: string[], caseIds: string[]): Promise<CaseRunTally[]>;

  /** The project's saved servers, by id and name (what a suite's detail names its servers with). */
  projectServers(projectId: string): Promise<{ id: string; name: string }[]>;
  /** The project's servers of these ids (those it has, in no particular order), their secrets sealed. */
  sealedServers(projectId: string, serverIds: string[]): Promise<SealedServer[]>;
  /** A host of the project. */
  host(projectId: string, hostId: string): Promise<Host | undefined>;
  /** The organization's model provider keys, opened. */
  providerKeys(organizationId: string): Promise<OrgProviderKeys>;

  /** Runs `work` in one transaction (the caller's, when this store already is one), on a store bound to it. */
  transaction<T>(work: (store: SuiteStore) => Promise<T>): Promise<T>;
}
