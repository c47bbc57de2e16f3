import { Context } from '@temporalio/activity';
import type { ApplyRetention, RetentionReport } from '../domain/useCases/retention/applyRetention.js';

/** Batches one activity runs before it hands back to the workflow (each batch is one short statement). */
export const RETENTION_BATCHES_PER_ACTIVITY = 20;

/**
 * The worker's side of retention (issue 33): the retention workflow (workflows/retention.ts) calls this activity
 * until the pass is done; each call runs a few batches of the same use case the operator CLI runs, heartbeating
 * after each, and says where the next call carries on. A retried call starts again where the pass stood: batches
 * already committed are gone, so nothing is removed twice.
 */
export function retentionActivities(deps: { applyRetention: ApplyRetention }) {
  return {
    async applyRetentionBatches(input: { from: number; maxBatches?: number }): Promise<RetentionReport> {
      return await deps.applyRetention({
        from: input.from,
        maxBatches: input.maxBatches ?? RETENTION_BATCHES_PER_ACTIVITY,
        onBatch: (progress) => Context.current().heartbeat(progress),
      });
    },
  };
}
