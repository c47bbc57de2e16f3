/**
 * The organization's cap on running runs, for every way a run is created (POST /eval-runs, a schedule, a re-grade):
 * the count is taken under the organization's lock in the run's transaction; at the cap, the counted runs are checked
 * against Temporal once (outside the transaction: no network call holds the lock) and the run is tried again; still
 * at the cap, 429 RATE_LIMITED with details.reason CONCURRENT_RUN_LIMIT and a Retry-After.
 */
import { OperationFailure } from '../failures.js';
import type { RunSetupStore } from '../ports/runSetupStore.js';

/** Seconds a client is told to wait when the organization's run cap is reached. */
const CAP_RETRY_AFTER_SECONDS = 10;

export interface RunCap {
  maxConcurrentRuns: number;
  /**
   * At the cap, ends the organization's counted runs whose workflow already closed in Temporal (reconcileRuns);
   * how many it ended. Called outside the transaction, so no network call holds the organization's lock.
   */
  reconcileAtCap(organizationId: string): Promise<number>;
}

class RunCapReached extends Error {
  constructor(readonly active: number) {
    super('concurrent run limit reached');
  }
}

/** Inside the run's transaction: locks the organization's runs and refuses when they are at the cap. */
export async function holdRunSlot(
  tx: Pick<RunSetupStore, 'lockActiveRuns'>,
  cap: RunCap,
  organizationId: string,
): Promise<void> {
  const active = await tx.lockActiveRuns(organizationId);
  if (active >= cap.maxConcurrentRuns) throw new RunCapReached(active);
}

/** Creates the run (a transaction that calls holdRunSlot), reconciling once at the cap before refusing. */
export async function withinRunCap<T>(cap: RunCap, organizationId: string, create: () => Promise<T>): Promise<T> {
  const capped = (error: unknown) => {
    if (error instanceof RunCapReached) return error;
    throw error;
  };
  let created = await create().catch(capped);
  if (created instanceof RunCapReached && (await cap.reconcileAtCap(organizationId)) > 0)
    created = await create().catch(capped);
  if (created instanceof RunCapReached) {
    throw new OperationFailure(
      'RATE_LIMITED',
      `this organization already has ${created.active} running eval runs or conformance checks (limit ${cap.maxConcurrentRuns}); wait for one to finish`,
      { reason: 'CONCURRENT_RUN_LIMIT', maxConcurrentRuns: cap.maxConcurrentRuns, activeRuns: created.active },
      CAP_RETRY_AFTER_SECONDS,
    );
  }
  return created;
}
