import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

const { applyRetentionBatches } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  // a batch is one short statement: a minute without one means the worker is gone
  heartbeatTimeout: '1 minute',
  // an outage of Postgres is waited out within bounds; the next scheduled pass starts afresh
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 10 },
});

export interface RetentionWorkflowInput {
  /** where the pass stands (a continued run's): the use case's `next` */
  from?: number;
  /** what the pass removed so far, per kind (carried across continue-as-new) */
  counts?: Record<string, number>;
  /** activities one run of the workflow calls before it continues as new (default 100) */
  activitiesPerRun?: number;
  /** batches per activity (default: the activity's) */
  batchesPerActivity?: number;
}

export interface RetentionWorkflowResult {
  counts: Record<string, number>;
}

/**
 * A retention pass (issue 33), the action of the `runway-retention` Temporal Schedule (runtime/retentionSchedule.ts):
 * activity after activity, each a few batches of domain/useCases/retention/applyRetention.ts, until nothing more has
 * expired. A long pass continues as new, so its history stays short.
 */
export async function retention(input: RetentionWorkflowInput = {}): Promise<RetentionWorkflowResult> {
  const counts: Record<string, number> = { ...input.counts };
  const activitiesPerRun = input.activitiesPerRun ?? 100;
  let from = input.from ?? 0;
  for (let calls = 1; ; calls += 1) {
    const report = await applyRetentionBatches({
      from,
      ...(input.batchesPerActivity !== undefined && { maxBatches: input.batchesPerActivity }),
    });
    for (const [kind, count] of Object.entries(report.counts)) counts[kind] = (counts[kind] ?? 0) + count;
    if (report.done || report.next === undefined) return { counts };
    from = report.next;
    if (calls >= activitiesPerRun || workflowInfo().continueAsNewSuggested)
      return await continueAsNew<typeof retention>({ ...input, from, counts });
  }
}
