import {
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  evalRunWorkflowId,
  type RunWorkflowStates,
  type WorkflowEnding,
  type WorkflowState,
} from '../domain/ports/runWorkflows.js';
import type { ReconcileRuns } from '../domain/useCases/runs/reconcileRuns.js';
import type { Logger } from './logger.js';

/**
 * The reconciler's side in the processes (the story itself is domain/useCases/runs/reconcileRuns.ts): Temporal's
 * word on a run's workflow, asked through the process's Temporal client, and the periodic sweep.
 */

/** A question to Temporal that takes longer leaves the row as it is: a read never hangs on Temporal. */
const TEMPORAL_DEADLINE_MS = 3_000;

/** The domain's RunWorkflowStates on a Temporal client (the API's, or the worker's for scheduled runs at the cap). */
export function temporalRunWorkflowStates(temporal: Client): RunWorkflowStates {
  return {
    async state(runId: string): Promise<WorkflowState> {
      try {
        return await temporal.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, async (): Promise<WorkflowState> => {
          // Without a run id the handle names the workflow's current execution: after a reset, the new one.
          const description = await temporal.workflow.getHandle(evalRunWorkflowId(runId)).describe();
          if (['RUNNING', 'PAUSED', 'UNSPECIFIED', 'UNKNOWN'].includes(description.status.name))
            return { state: 'open' };
          const ending = await closedEnding(
            temporal.workflow.getHandle(description.workflowId, description.runId, { followRuns: false }),
          );
          return { state: 'closed', ending };
        });
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { state: 'missing' };
        return { state: 'unknown', error: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}

/** How a closed execution ended, from its close event (what `result()` reads): the reason an operator typed, too. */
async function closedEnding(execution: WorkflowHandle): Promise<WorkflowEnding> {
  try {
    await execution.result();
    // Completed, yet the row says running: the run was not finalized by this execution.
    return { outcome: 'failed', error: 'the workflow completed in Temporal without finalizing the run' };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const cause = error.cause;
    if (cause instanceof TerminatedFailure)
      return { outcome: 'failed', error: `the workflow was terminated in Temporal: ${cause.message}` };
    if (cause instanceof TimeoutFailure)
      return { outcome: 'failed', error: 'the workflow timed out in Temporal (its execution or run timeout passed)' };
    if (cause instanceof CancelledFailure)
      return { outcome: 'cancelled', error: 'the workflow was cancelled in Temporal before it finalized the run' };
    // as the workflow words its own failures: the activity's message rather than "Activity task failed"
    const detail = (cause?.cause instanceof Error ? cause.cause : (cause ?? error)).message;
    return { outcome: 'failed', error: `the workflow failed in Temporal before it finalized the run: ${detail}` };
  }
}

/**
 * The periodic sweep, so that no run depends on someone reading it: every intervalMs, the runs quiet for that long
 * are checked. Runs in every API process; replicas sweeping the same run at once end it once (guarded by status).
 */
export function startRunSweep(
  reconciler: Pick<ReconcileRuns, 'sweep'>,
  options: { intervalMs: number; log: Logger },
): { stop(): Promise<void> } {
  let stopped = false;
  let pass: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      pass = reconciler
        .sweep(options.intervalMs)
        .then(
          (ended) => {
            if (ended > 0) options.log.info({ ended }, 'run sweep ended runs whose workflow had closed');
          },
          (error: unknown) =>
            options.log.warn(
              { err: error instanceof Error ? error.message : String(error) },
              'run sweep failed; trying again next interval',
            ),
        )
        .finally(() => {
          pass = undefined;
          if (!stopped) schedule();
        });
    }, options.intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
