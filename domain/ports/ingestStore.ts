import type { Project } from '../catalog/project.js';
import type { CaseInput } from '../evals/case.js';
import type { Run } from '../evals/run.js';
import type { Suite } from '../evals/suite.js';
import type { ArtifactFormat, ArtifactSlot } from '../ingest/artifactSlot.js';
import type { IngestedIteration } from '../ingest/results.js';
import type { Principal } from '../principal.js';
import type { RunStore } from './runStore.js';
import type { NewRun } from './runSetupStore.js';
import type { NewSuite } from './suiteStore.js';
import type { ServerDirectory } from './serverDirectory.js';

/**
 * What the ingest use cases (domain/useCases/ingest, and the flows of domain/ingest/runs.ts and uploads.ts) need
 * from storage, declared here and implemented outside the domain (db/ingestStore.ts). They take an IngestStore,
 * never a database handle; their atomic writes go through `transaction`.
 */

/** A case of a suite as ingest finds it: by its external id, or by title + query. */
export interface CaseIdentity {
  id: string;
  title: string;
  query: string;
  externalCaseId: string | null;
}

/** The cases to look for: by external id, or by title and query (the two lists pairwise). */
export interface CaseIdentities {
  externalCaseIds: string[];
  titles: string[];
  queries: string[];
}

/** A new upload slot. Only the token's hash is stored: storage alone cannot mint a usable URL. */
export interface NewArtifactSlot {
  organizationId: string;
  projectId: string;
  tokenHash: string;
  format: ArtifactFormat | null;
  suiteName: string | null;
  externalRunId: string | null;
  /** how long the URL stays usable, by the database's clock */
  ttlMs: number;
  createdByKeyId: string;
}

/** The bytes an upload stores in its slot. */
export interface ArtifactBlob {
  content: Buffer;
  contentType: string | null;
  sha256: string;
}

export interface IngestStore {
  /** The project the key may see, by id (`default`: the organization's default project); undefined otherwise. */
  visibleProject(principal: Principal, projectId: string): Promise<Project | undefined>;
  /**
   * The runs' storage on the same connection (inside `transaction`, the same transaction): an ingested run ends
   * through the one finalizeRun (domain/useCases/runs/finalizeRun.ts), under the lock ingest took.
   */
  readonly runs: RunStore;

  /** A run by the id its reporter gave it (unique per project). */
  runByExternalId(projectId: string, externalRunId: string): Promise<Run | undefined>;
  /**
   * The project's run named by `ref` (by id, by external id, or both), locked until the transaction ends: appends to
   * one run and its finalize happen one at a time (only inside `transaction`).
   */
  lockRun(projectId: string, ref: { runId?: string; externalRunId?: string }): Promise<Run | undefined>;
  /** The project's saved servers named so (a reporter names its servers), oldest first. */
  serversNamed: ServerDirectory['serversNamed'];
  /**
   * The newest live suite of that name, else a new one: reporters name suites and retry, so one name keeps landing in
   * one suite. Concurrent reporters of one new name create it once; the name and the suite stay locked until the
   * transaction ends, so a suite deleted meanwhile is not reported into (only inside `transaction`).
   */
  suiteNamed(suite: NewSuite): Promise<Suite>;
  /** A new run, numbered next in its suite under the suite's row lock (only inside `transaction`). */
  createRun(run: NewRun): Promise<Run>;
  /** Marks the run started (once: a later call keeps the first time). */
  markStarted(runId: string): Promise<void>;
  /**
   * Whether `error` is a new run losing the race for its externalRunId: the unique index, not a prior read, decides
   * which of several concurrent reports creates the run.
   */
  isExternalRunConflict(error: unknown): boolean;

  /** Locks the suite against concurrent case creation and counts its live cases (only inside `transaction`). */
  lockCases(suiteId: string): Promise<number>;
  /** The suite's live cases named by external id or by title + query. */
  casesByIdentity(suiteId: string, identities: CaseIdentities): Promise<CaseIdentity[]>;
  /**
   * Creates reported cases, skipping any whose identity the suite already holds (a case keeps what first reported
   * it). They hold results only: no run plans them. Their ids are found afterwards (casesByIdentity).
   */
  addReportedCases(suiteId: string, cases: CaseInput[]): Promise<void>;

  /** Which of these external iteration ids the run already has. */
  knownExternalIterationIds(runId: string, ids: string[]): Promise<Set<string>>;
  /** How many iterations the run holds. */
  iterationCount(runId: string): Promise<number>;
  /**
   * The highest iteration number each case already has in the run; iterations stored without a case are numbered by
   * title, under the key `title:<title>`.
   */
  lastIterationNumbers(runId: string, caseIds: string[], caselessTitles: string[]): Promise<Map<string, number>>;
  /**
   * Stores the iterations and their traces; one whose external iteration id the run holds already is skipped, never
   * duplicated (only inside `transaction`). Answers the ids stored.
   */
  addIterations(runId: string, iterations: IngestedIteration[]): Promise<Set<string>>;

  /** A new upload slot, usable for `ttlMs`. */
  openSlot(slot: NewArtifactSlot): Promise<ArtifactSlot>;
  /** The slot a token's hash names. */
  slot(tokenHash: string): Promise<ArtifactSlot | undefined>;
  /**
   * Stores the blob in the slot and marks it used, when it is unused, unexpired and its minting key still usable;
   * of two concurrent uploads to one URL, only the first claims it (only inside `transaction`).
   */
  claimSlot(tokenHash: string, blob: ArtifactBlob): Promise<ArtifactSlot | undefined>;
  /** Keeps the reply an upload got (replayed to a client retrying with the same bytes) and the run it became. */
  recordReply(slotId: string, outcome: { runId: string | null; reply: object }): Promise<void>;

  /**
   * Runs `work` in a savepoint of the transaction, on a store bound to it: when `work` throws, what it wrote is
   * undone and the error goes on, and the transaction can go on (only inside `transaction`).
   */
  savepoint<T>(work: (store: IngestStore) => Promise<T>): Promise<T>;
  /** Runs `work` in one transaction (the caller's, when this store already is one), on a store bound to it. */
  transaction<T>(work: (store: IngestStore) => Promise<T>): Promise<T>;
}
