import type { IngestStore } from '../domain/ports/ingestStore.js';
import { inTransaction, transactionOnly, type Db } from './connection.js';
import { insertRun, markRunStarted } from './evalRuns.js';
import { findOrCreateSuiteByName, lockSuiteCases } from './evalSuites.js';
import { claimArtifactSlot, createArtifactSlot, findArtifactSlot, recordArtifactReply } from './ingestArtifacts.js';
import { findCasesByIdentity, insertReportedCases } from './ingestCases.js';
import {
  countIterations,
  insertIngestedIterations,
  knownExternalIterationIds,
  lastIterationNumbers,
} from './ingestIterations.js';
import { findRunByExternalId, isExternalRunConflict, lockRun } from './ingestRuns.js';
import { findProject } from './projects.js';
import { createRunStore } from './runStore.js';
import { getServerRefsByNames } from './servers.js';

/** The ingest use cases' storage (domain/ports/ingestStore.ts) on a pool or a transaction of it: the queries of this folder. */
export function createIngestStore(sql: Db): IngestStore {
  const txOnly = (what: string) => transactionOnly(sql, what);
  return {
    visibleProject: (principal, projectId) => findProject(sql, principal, projectId),
    runs: createRunStore(sql),
    runByExternalId: (projectId, externalRunId) => findRunByExternalId(sql, projectId, externalRunId),
    lockRun: (projectId, ref) => lockRun(txOnly('a run is locked'), projectId, ref),
    serversNamed: (projectId, names) => getServerRefsByNames(sql, projectId, names),
    suiteNamed: (suite) => findOrCreateSuiteByName(txOnly('a suite is found by its name'), suite),
    createRun: (run) => insertRun(txOnly('a run is created'), run),
    markStarted: (runId) => markRunStarted(sql, runId),
    isExternalRunConflict,
    lockCases: async (suiteId) => (await lockSuiteCases(txOnly("a suite's cases are locked"), suiteId)).cases,
    casesByIdentity: (suiteId, identities) => findCasesByIdentity(sql, suiteId, identities),
    addReportedCases: (suiteId, cases) => insertReportedCases(sql, suiteId, cases),
    knownExternalIterationIds: (runId, ids) => knownExternalIterationIds(sql, runId, ids),
    iterationCount: (runId) => countIterations(sql, runId),
    lastIterationNumbers: (runId, caseIds, caselessTitles) => lastIterationNumbers(sql, runId, caseIds, caselessTitles),
    addIterations: (runId, iterations) => insertIngestedIterations(txOnly('iterations are stored'), runId, iterations),
    openSlot: (slot) => createArtifactSlot(sql, slot),
    slot: (tokenHash) => findArtifactSlot(sql, tokenHash),
    claimSlot: (tokenHash, blob) => claimArtifactSlot(txOnly('an upload slot is claimed'), tokenHash, blob),
    recordReply: (slotId, outcome) => recordArtifactReply(txOnly("an upload's reply is kept"), slotId, outcome),
    savepoint: async <T>(work: (store: IngestStore) => Promise<T>) =>
      (await txOnly('a savepoint is taken').savepoint((sp) => work(createIngestStore(sp)))) as T,
    transaction: (work) => inTransaction(sql, (tx) => work(createIngestStore(tx))),
  };
}
