import { CancellationScope, ParentClosePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  evalRunWorkflowId,
  runSearchAttributes,
  runUserMetadata,
  type ScheduledRunOutcome,
  type ScheduledSuiteRunInput,
} from './definitions.js';
import { evalRun } from './evalRun.js';

const { startScheduledRun, failScheduledRunStart } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // Refusals (cap full, missing key, ...) are answers, not failures: the activity records them as a skip. What is
  // retried here is an outage of Postgres or Temporal, within bounds: a due run is not chased for ever; the next
  // due time starts afresh.
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/**
 * The action of a suite's Temporal Schedule (api/suiteScheduler.ts), one per due time: create the run as
 * POST /eval-runs would (or skip it, recorded on the suite), then run it with the ordinary evalRun workflow as a
 * child (workflow id `eval-run:<runId>`, so reads, cancels and the reconciler treat it as any run). It stays open
 * until its run ends, which is what lets the schedule's overlap policy (SKIP) skip a due time while the suite's
 * previous scheduled run is still going.
 */
export async function scheduledSuiteRun({ suiteId }: ScheduledSuiteRunInput): Promise<ScheduledRunOutcome> {
  const started = await startScheduledRun({ suiteId });
  // A queued run (issue 33) is started by the queue in its turn, with its own workflow: nothing more to do here.
  if (started.outcome !== 'started') return started;
  const { run } = started;
  let child;
  try {
    child = await startChild(evalRun, {
      workflowId: evalRunWorkflowId(run.id),
      args: [{ runId: run.id }],
      typedSearchAttributes: runSearchAttributes(run),
      // Web UI's summary and details of the run, as POST /eval-runs gives them (from the activity's recorded result)
      ...(started.about && runUserMetadata(run, started.about)),
      // Cancelling or terminating this workflow in Web UI cancels the run, which then finalizes what it has.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    });
  } catch (error) {
    // The run row exists but its workflow does not: end it as failed (its slot freed), as POST /eval-runs does.
    await CancellationScope.nonCancellable(() => failScheduledRunStart({ runId: run.id }));
    throw error;
  }
  // A failed or cancelled run fails this workflow too, so Web UI tells the same story as the run's own workflow.
  await child.result();
  return started;
}
