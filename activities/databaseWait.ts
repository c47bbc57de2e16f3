import pRetry from 'p-retry';
import { isDatabaseUnreachable } from '../db/unreachable.js';

export interface DatabaseWait {
  /** the attempt's cancellation: a cancelled run stops waiting at once */
  signal: AbortSignal;
  /** how long one statement may wait for the database to come back; past it the error goes on (Temporal retries) */
  maxWaitMs: number;
  /** told about each wait, for the log */
  onWait?: (error: unknown, attempt: number) => void;
}

/**
 * Runs a batch's statement, and again while the database cannot be reached (a restart, a crash and its recovery, a
 * cut connection), promptly once it answers: the attempt goes on heartbeating meanwhile, so Temporal does not hand
 * the batch to a new attempt, and an iteration's result (model calls already paid for) waits to be stored instead
 * of being thrown away with the attempt. Statements the database refused, and waits past `maxWaitMs`, fail as
 * before. Retried statements must be safe to repeat (the fenced claim and completion are: runIterations.ts).
 */
export async function whileDatabaseAway<T>(statement: () => Promise<T>, wait: DatabaseWait): Promise<T> {
  return await pRetry(statement, {
    // bounded by time, not count: an outage lasts what it lasts
    retries: Number.POSITIVE_INFINITY,
    maxRetryTime: wait.maxWaitMs,
    minTimeout: 100,
    maxTimeout: 1_000,
    factor: 2,
    randomize: true,
    signal: wait.signal,
    shouldRetry: ({ error }) => isDatabaseUnreachable(error),
    onFailedAttempt: ({ error, attemptNumber }) => {
      if (isDatabaseUnreachable(error)) wait.onWait?.(error, attemptNumber);
    },
  });
}
