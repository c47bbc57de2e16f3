import type { SecretBox } from '../domain/ports/secretBox.js';
import type { SuiteStore } from '../domain/ports/suiteStore.js';
import { inTransaction, transactionOnly, type Db } from './connection.js';
import { createCase, deleteCase, findCase, findCaseByIdentity, updateCase } from './evalCases.js';
import { listSuiteRuns, runsProgress } from './evalRuns.js';
import {
  caseRunTallies,
  createSuite,
  deleteSuite,
  findSuite,
  listCaseHeadings,
  listCases,
  listSuitesWithStats,
  lockLiveSuite,
  lockSuiteCases,
  updateSuite,
  upsertCases,
} from './evalSuites.js';
import { findHost, toHost } from './hosts.js';
import { findProject } from './projects.js';
import { getProviderKeys } from './providerKeys.js';
import { getStoredServersByIds, listStoredServers, toSavedServer } from './servers.js';
import { countEnabledSchedules, findSuiteWithSchedule, lockSuiteSchedule, setSuiteSchedule } from './suiteSchedules.js';

/**
 * The suite use cases' storage (domain/ports/suiteStore.ts) on a pool or a transaction of it: the queries of this
 * folder. `box` opens the secrets of what it reads (servers, provider keys).
 */
export function createSuiteStore(sql: Db, box: SecretBox): SuiteStore {
  const txOnly = (what: string) => transactionOnly(sql, what);
  return {
    visibleProject: (principal, projectId) => findProject(sql, principal, projectId),
    find: (projectId, suiteId) => findSuite(sql, projectId, suiteId),
    findWithSchedule: (projectId, suiteId) => findSuiteWithSchedule(sql, projectId, suiteId),
    list: (projectId) => listSuitesWithStats(sql, projectId),
    create: (suite) => createSuite(sql, suite),
    update: (projectId, suiteId, changes) => updateSuite(sql, projectId, suiteId, changes),
    delete: (projectId, suiteId) => deleteSuite(txOnly('a suite is deleted'), projectId, suiteId),
    lockLive: (suiteId) => lockLiveSuite(txOnly('a suite is locked'), suiteId),
    lockSchedule: (projectId, suiteId) => lockSuiteSchedule(txOnly("a suite's schedule is locked"), projectId, suiteId),
    countEnabledSchedules: (organizationId, exceptSuiteId) =>
      countEnabledSchedules(txOnly('enabled schedules are counted'), organizationId, exceptSuiteId),
    saveSchedule: (suiteId, schedule) => setSuiteSchedule(txOnly("a suite's schedule is saved"), suiteId, schedule),
    cases: (suiteId) => listCases(sql, suiteId),
    caseHeadings: (suiteId, afterCaseId, limit) => listCaseHeadings(sql, suiteId, afterCaseId, limit),
    findCase: (suiteId, caseId) => findCase(sql, suiteId, caseId),
    findCaseByIdentity: (suiteId, identity, exceptId) => findCaseByIdentity(sql, suiteId, identity, exceptId),
    lockCases: async (suiteId) => (await lockSuiteCases(txOnly("a suite's cases are locked"), suiteId)).cases,
    addCase: (suiteId, input) => createCase(sql, suiteId, input),
    upsertCases: (suiteId, cases) => upsertCases(txOnly('cases are upserted'), suiteId, cases),
    updateCase: (suiteId, caseId, changes) => updateCase(sql, suiteId, caseId, changes),
    deleteCase: (suiteId, caseId) => deleteCase(sql, suiteId, caseId),
    runs: (suiteId, limit) => listSuiteRuns(sql, suiteId, limit),
    progressOf: (runIds) => runsProgress(sql, runIds),
    caseRunTallies: (runIds, caseIds) => caseRunTallies(sql, runIds, caseIds),
    projectServers: (projectId) => listStoredServers(sql, projectId),
    sealedServers: async (projectId, serverIds) =>
      (await getStoredServersByIds(sql, projectId, serverIds)).map((server) => ({
        id: server.id,
        enabled: server.enabled,
        open: () => toSavedServer(box, server),
      })),
    host: async (projectId, hostId) => {
      const row = await findHost(sql, projectId, hostId);
      return row && toHost(row);
    },
    providerKeys: (organizationId) => getProviderKeys(sql, box, organizationId),
    transaction: (work) => inTransaction(sql, (tx) => work(createSuiteStore(tx, box))),
  };
}
