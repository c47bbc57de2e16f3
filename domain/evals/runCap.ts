/**
 * The organization's cap on running runs, for every way a run is created (POST /eval-runs, a schedule, a re-grade):
 * the count is taken under the organization's lock in the run's transaction; at the cap, the counted runs are checked
 * against Temporal once (outside the transaction: no network call holds the lock) and the run is tried again; still
 * at the cap, 429 RATE_LIMITED with details.reason CONCURRENT_RUN_LIMIT and a Retry-After.
 *
 * Queued runs (issue 33): a run created with `queue` (holdOrQueueRunSlot) is written as `queued` instead of refused
 * when the cap is full, up to the organization's bound on queued runs (then 429 with details.reason RUN_QUEUE_FULL).
 * Queued runs hold their place: while any wait, a new run (queued or not) is at the cap too, so it never overtakes
 * them; promoteQueuedRuns starts them oldest first as slots free.
 */
import { OperationFailure } from '../failures.js';
import type { RunSetupStore } from '../ports/runSetupStore.js';

/** Seconds a client is told to wait when the organization's run cap is reached. */
const CAP_RETRY_AFTER_SECONDS = 10;

/** Queued runs an organization may have when the deployment sets no bound (MAX_QUEUED_RUNS' default). */
export const DEFAULT_MAX_QUEUED_RUNS = 100;

export interface RunCap {
  maxConcurrentRuns: number;
  /** queued runs an organization may have at once (MAX_QUEUED_RUNS; default DEFAULT_MAX_QUEUED_RUNS) */
  maxQueuedRuns?: number;
  /**
   * At the cap, ends the organization's counted runs whose workflow already closed in Temporal (reconcileRuns);
   * how many it ended. Called outside the transaction, so no network call holds the organization's lock.
   */
  reconcileAtCap(organizationId: string): Promise<number>;
}

class RunCapReached extends Error {
  constructor(
    readonly active: number,
    readonly queued = 0,
  ) {
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

/**
 * Inside an eval run's transaction (issue 33): the status to create the run with. `running` while a slot is free
 * and no run of the organization is queued; else, with `queue`, `queued` (refused past the bound on queued runs:
 * 429 RUN_QUEUE_FULL); else refused as at the cap.
 */
export async function holdOrQueueRunSlot(
  tx: Pick<RunSetupStore, 'lockActiveRuns' | 'queuedRuns'>,
  cap: RunCap,
  organizationId: string,
  queue: boolean,
): Promise<'running' | 'queued'> {
  const active = await tx.lockActiveRuns(organizationId);
  const queued = await tx.queuedRuns(organizationId);
  if (active < cap.maxConcurrentRuns && queued === 0) return 'running';
  if (!queue) throw new RunCapReached(active, queued);
  const bound = cap.maxQueuedRuns ?? DEFAULT_MAX_QUEUED_RUNS;
  if (queued >= bound) {
    throw new OperationFailure(
      'RATE_LIMITED',
      `this organization already has ${queued} queued eval runs (limit ${bound}) besides ${active} running; wait for the queue to shorten`,
      { reason: 'RUN_QUEUE_FULL', maxQueuedRuns: bound, queuedRuns: queued, activeRuns: active },
      CAP_RETRY_AFTER_SECONDS,
    );
  }
  return 'queued';
}

/**
 * Creates the run (a transaction that calls holdRunSlot or holdOrQueueRunSlot with the `queue` it is given),
 * reconciling once at the cap before refusing; with `queue`, a run still at the cap is created queued instead.
 */
export async function withinRunCap<T>(
  cap: RunCap,
  organizationId: string,
  create: (queue: boolean) => Promise<T>,
  /** undefined: what is created cannot queue (a conformance check, a re-grade); false: it could, but was not asked */
  queue?: boolean,
): Promise<T> {
  const capped = (error: unknown) => {
    if (error instanceof RunCapReached) return error;
    throw error;
  };
  let created = await create(false).catch(capped);
  if (created instanceof RunCapReached && (await cap.reconcileAtCap(organizationId)) > 0)
    created = await create(false).catch(capped);
  if (created instanceof RunCapReached && queue === true) created = await create(true).catch(capped);
  if (created instanceof RunCapReached) {
    const queued = created.queued > 0 ? ` and ${created.queued} queued` : '';
    throw new OperationFailure(
      'RATE_LIMITED',
      `this organization already has ${created.active} running eval runs or conformance checks (limit ${cap.maxConcurrentRuns})${queued}; wait for one to finish${queue === false ? ', or pass queue: true to queue the run' : ''}`,
      {
        reason: 'CONCURRENT_RUN_LIMIT',
        maxConcurrentRuns: cap.maxConcurrentRuns,
        activeRuns: created.active,
        ...(created.queued > 0 && { queuedRuns: created.queued }),
      },
      CAP_RETRY_AFTER_SECONDS,
    );
  }
  return created;
}
