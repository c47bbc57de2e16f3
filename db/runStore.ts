import type { RunStore, ScheduledSuites } from '../domain/ports/runStore.js';
import { inTransaction, transactionOnly, type Db } from './connection.js';
import { previousCompletedRun, runModels, sideAggregates } from './evalCompare.js';
import {
  cancelUnfinishedIterations,
  findIteration,
  findTrace,
  finishedOutcomes,
  hasIterationBegun,
  listIterationPage,
  listStreamIterations,
} from './evalIterations.js';
import {
  findRun,
  findRuns,
  finishRun,
  getRun,
  listActiveRuns,
  listQuietRuns,
  lockRunById,
  queuePositions,
  runProgress,
  runsProgress,
} from './evalRuns.js';
import { findProject } from './projects.js';
import { findScheduledSuite, recordScheduleSkip } from './suiteSchedules.js';

/** The run use cases' storage (domain/ports/runStore.ts) on a pool or a transaction of it: the queries of this folder. */
export function createRunStore(sql: Db): RunStore {
  return {
    visibleProject: (principal, projectId) => findProject(sql, principal, projectId),
    find: (projectId, runId) => findRun(sql, projectId, runId),
    findMany: (projectId, runIds) => findRuns(sql, projectId, runIds),
    get: (runId) => getRun(sql, runId),
    lock: (runId) => lockRunById(transactionOnly(sql, 'a run is locked'), runId),
    finish: (runId, ending) => finishRun(sql, runId, ending),
    cancelUnfinishedIterations: (runId, why) => cancelUnfinishedIterations(sql, runId, why),
    finishedOutcomes: (runId) => finishedOutcomes(sql, runId),
    progress: (runId) => runProgress(sql, runId),
    progressOf: (runIds) => runsProgress(sql, runIds),
    active: (organizationId) => listActiveRuns(sql, organizationId),
    quiet: (quietMs, limit) => listQuietRuns(sql, quietMs, limit),
    hasBegun: (runId) => hasIterationBegun(sql, runId),
    iterationPage: (runId, afterSeq, limit) => listIterationPage(sql, runId, afterSeq, limit),
    streamIterations: (runId, afterPosition, skip, limit) =>
      listStreamIterations(sql, runId, afterPosition, skip, limit),
    iteration: (runId, iterationId) => findIteration(sql, runId, iterationId),
    trace: (iterationId) => findTrace(sql, iterationId),
    models: (runId) => runModels(sql, runId),
    previousCompleted: (run) => previousCompletedRun(sql, run),
    sideAggregates: (runId, model, options) => sideAggregates(sql, runId, model, options),
    queuePositions: (runIds) => queuePositions(sql, runIds),
    transaction: (work) => inTransaction(sql, (tx) => work(createRunStore(tx))),
  };
}

/** The suites scheduled runs start from (domain/ports/runStore.ts), on a pool or a transaction. */
export function createScheduledSuites(sql: Db): ScheduledSuites {
  return {
    find: (suiteId) => findScheduledSuite(sql, suiteId),
    recordSkip: (suiteId, skip) => recordScheduleSkip(sql, suiteId, skip),
  };
}
