import type { RunPlan } from '../evals/plan.js';

/**
 * What the run use cases (domain/useCases/runs) need from Temporal, declared here and implemented outside the domain:
 * starting and cancelling a run's workflow (the API: api/runLauncher.ts) and Temporal's word on a run's workflow
 * (both processes: runtime/runReconciler.ts). Also the small shapes and the workflow id that a run's workflows and
 * the domain share (workflows/definitions.ts takes them from here): the domain never reads workflows/. Pure: the
 * workflows import it into Temporal's sandbox.
 */

/**
 * The id of a run's workflow: one per run, so a second start of the same run is refused by Temporal, and the run's
 * workflow is found by its run id alone (the API's start and cancel, the reconciler, a scheduled run's child).
 */
export const evalRunWorkflowId = (runId: string): string => `eval-run:${runId}`;

/** What an eval run's workflow (and a suite's schedule) is found by in Temporal Web UI. */
export interface RunLabels {
  organizationId: string;
  projectId: string;
  suiteId: string;
  source: string;
}

/** What an operator reads about a run in Temporal Web UI (its "User Metadata"), without opening Postgres. */
export interface RunDescription {
  suiteName: string;
  projectName: string;
  /** iterations the run plans: each case's runs, or the run's iterationOverride, summed over the suite's cases */
  iterations: number;
}

/** The input of a suite's scheduled run workflow (one per due time). */
export interface ScheduledSuiteRunInput {
  suiteId: string;
}

/** Why a due scheduled run did not start (also the suite's `schedule.lastSkipped.reason`). */
export type ScheduledRunOutcome =
  // `about` is missing from the results of runs started before Web UI got run descriptions
  | { outcome: 'started'; run: RunLabels & { id: string }; about?: RunDescription }
  | { outcome: 'skipped'; reason: string; message: string }
  // issue 33: past the cap, the organization queues runs; the queue starts it (its own workflow, not a child)
  | { outcome: 'queued'; run: RunLabels & { id: string } };

/** Starts and cancels runs' workflows: one workflow per run. */
export interface RunWorkflows {
  /** Starts the run's workflow with its plan (written with the run), so its first task starts the first batches. */
  start(run: RunLabels & { id: string }, about: RunDescription, plan?: RunPlan): Promise<void>;
  cancel(runId: string): Promise<void>;
}

/** How a run ends when its workflow closed without finalizing it. */
export interface WorkflowEnding {
  outcome: 'failed' | 'cancelled';
  error: string;
}

/** Temporal's word on a run's workflow. */
export type WorkflowState =
  /** running, paused, or in a state that may still run */
  | { state: 'open' }
  /** closed, and how: the reason an operator typed, a timeout, the workflow's own failure */
  | { state: 'closed'; ending: WorkflowEnding }
  /** Temporal knows no workflow of the run: it never started, or it was deleted */
  | { state: 'missing' }
  /** Temporal did not answer (in time): nothing can be said */
  | { state: 'unknown'; error: string };

export interface RunWorkflowStates {
  /** Asks Temporal about the run's workflow (its current execution: after a reset, the new one). Never throws. */
  state(runId: string): Promise<WorkflowState>;
}

/** What the run use cases write to the process's log (a pino logger is one). */
export interface RunLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}
