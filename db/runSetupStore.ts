import type { RunSetupStore } from '../domain/ports/runSetupStore.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import { copyRecordedIterations, countRecorded, recordedPrompts, skippedCases } from './regrades.js';
import { inTransaction, transactionOnly, type Db } from './connection.js';
import { casePassCounts, planIterations } from './evalIterations.js';
import {
  countQueuedRuns,
  getRun,
  insertRun,
  organizationsWithQueuedRuns,
  takeQueuedRun,
  lastCompletedRun,
  lockOrganizationRuns,
  lockRunById,
  markRunStarted,
  recordAdaptiveCases,
} from './evalRuns.js';
import {
  createSuite,
  findSuite,
  listCases,
  lockLiveSuite,
  lockSuiteCases,
  updateSuite,
  upsertCases,
} from './evalSuites.js';
import { findHost, toHost } from './hosts.js';
import { getOrganizationLimits } from './organizationLimits.js';
import { getProviderKeys } from './providerKeys.js';
import { modelPriceOverrides } from './modelPrices.js';
import { usageHistory } from './evalIterations.js';
import { createServerDirectory } from './serverDirectory.js';

/**
 * Setting a run up (domain/ports/runSetupStore.ts) on a pool or a transaction of it: the queries of this folder.
 * `box` opens the secrets of what it reads (servers, provider keys).
 */
export function createRunSetupStore(sql: Db, box: SecretBox): RunSetupStore {
  const txOnly = (what: string) => transactionOnly(sql, what);
  return {
    ...createServerDirectory(sql, box),
    suite: (projectId, suiteId, options) => findSuite(sql, projectId, suiteId, options),
    host: async (projectId, hostId) => {
      const row = await findHost(sql, projectId, hostId);
      return row && toHost(row);
    },
    providerKeys: (organizationId) => getProviderKeys(sql, box, organizationId),
    modelPrices: (organizationId) => modelPriceOverrides(sql, organizationId),
    usageHistory: (suiteId, runs) => usageHistory(sql, suiteId, runs),
    organizationLimits: (organizationId) => getOrganizationLimits(sql, organizationId),
    run: (runId) => getRun(sql, runId),
    lockActiveRuns: (organizationId) =>
      lockOrganizationRuns(txOnly("an organization's runs are locked"), organizationId),
    queuedRuns: (organizationId) => countQueuedRuns(sql, organizationId),
    takeQueuedRun: (organizationId) => takeQueuedRun(txOnly('a queued run is taken'), organizationId),
    organizationsWithQueuedRuns: (limit) => organizationsWithQueuedRuns(sql, limit),
    lockLiveSuite: (suiteId) => lockLiveSuite(txOnly('a suite is locked'), suiteId),
    createSuite: (suite) => createSuite(sql, suite),
    updateSuite: (projectId, suiteId, changes) => updateSuite(sql, projectId, suiteId, changes),
    lockCases: (suiteId, incoming) => lockSuiteCases(txOnly("a suite's cases are locked"), suiteId, incoming),
    upsertCases: (suiteId, cases) => upsertCases(txOnly('cases are upserted'), suiteId, cases),
    cases: (suiteId) => listCases(sql, suiteId),
    createRun: (run) => insertRun(txOnly('a run is created'), run),
    lockRun: (runId) => lockRunById(txOnly('a run is locked'), runId),
    planIterations: (runId, planned) => planIterations(sql, runId, planned),
    markStarted: (runId) => markRunStarted(sql, runId),
    lastCompletedRun: (suiteId) => lastCompletedRun(sql, suiteId),
    casePassCounts: (runId) => casePassCounts(sql, runId),
    recordAdaptiveCases: (runId, cases) => recordAdaptiveCases(sql, runId, cases),
    countRecorded: (runId) => countRecorded(sql, runId),
    skippedCases: (runId) => skippedCases(sql, runId),
    copyRecordedIterations: (originalRunId, runId) =>
      copyRecordedIterations(txOnly('iterations are copied for a re-grade'), originalRunId, runId),
    recordedPrompts: (iterationIds) => recordedPrompts(sql, iterationIds),
    transaction: (work) => inTransaction(sql, (tx) => work(createRunSetupStore(tx, box))),
  };
}
