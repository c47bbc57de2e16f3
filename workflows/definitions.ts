// Shared between workflow code and the API: names, queries and small types only (no I/O, no Node builtins).
import {
  defineSearchAttributeKey,
  SearchAttributeType,
  type SearchAttributePair,
  type SearchAttributeUpdatePair,
} from '@temporalio/common';
import { defineQuery } from '@temporalio/workflow';
import type { RunPlan } from '../domain/evals/plan.js';
import {
  evalRunWorkflowId,
  type RunDescription,
  type RunLabels,
  type ScheduledRunOutcome,
  type ScheduledSuiteRunInput,
} from '../domain/ports/runWorkflows.js';
import { markdownText } from './markdownText.js';

// The small shapes and the workflow id the domain shares with the workflows are the domain's
// (domain/ports/runWorkflows.ts, pure: the one domain module the workflows import as a value).
export { evalRunWorkflowId };
export type { RunDescription, RunLabels, ScheduledRunOutcome, ScheduledSuiteRunInput };

/** Search attributes (all Keyword) registered on the Temporal namespace; operators filter runs by them. */
export const searchAttributeNames = {
  organizationId: 'RunwayOrganizationId',
  projectId: 'RunwayProjectId',
  suiteId: 'RunwaySuiteId',
  source: 'RunwaySource',
  /** set when the run ends (runResultSearchAttribute) */
  result: 'RunwayResult',
} as const;

const searchAttributeKeys = {
  organizationId: defineSearchAttributeKey(searchAttributeNames.organizationId, SearchAttributeType.KEYWORD),
  projectId: defineSearchAttributeKey(searchAttributeNames.projectId, SearchAttributeType.KEYWORD),
  suiteId: defineSearchAttributeKey(searchAttributeNames.suiteId, SearchAttributeType.KEYWORD),
  source: defineSearchAttributeKey(searchAttributeNames.source, SearchAttributeType.KEYWORD),
  result: defineSearchAttributeKey(searchAttributeNames.result, SearchAttributeType.KEYWORD),
};

export function runSearchAttributes(labels: RunLabels): SearchAttributePair[] {
  return [
    { key: searchAttributeKeys.organizationId, value: labels.organizationId },
    { key: searchAttributeKeys.projectId, value: labels.projectId },
    { key: searchAttributeKeys.suiteId, value: labels.suiteId },
    { key: searchAttributeKeys.source, value: labels.source },
  ];
}

/**
 * `RunwayResult`, upserted by the run's workflow when it ends: the run's result as the API reports it (`passed`,
 * `failed`), else its status (`cancelled`, or `completed` when nothing finished to score). A run that ended `failed`
 * with an error is `failed` too; its workflow closed Failed, so `ExecutionStatus` tells the two apart.
 */
export function runResultSearchAttribute(finished: {
  status: string;
  result: string | null;
}): SearchAttributeUpdatePair {
  return { key: searchAttributeKeys.result, value: finished.result ?? finished.status };
}

/**
 * The workflow's static summary (one line) and details (Markdown), set when it starts. Web UI renders both as
 * Markdown, so the names in them, which tenants choose, are escaped (markdownText) and stay text for the operator;
 * ids and the source are Runway's own.
 */
export function runUserMetadata(
  run: RunLabels & { id: string },
  about: RunDescription,
): { staticSummary: string; staticDetails: string } {
  const text = markdownText;
  return {
    staticSummary: `Eval run of ${text(about.suiteName)}: ${about.iterations} ${about.iterations === 1 ? 'iteration' : 'iterations'}`,
    staticDetails: [
      `**Run** ${run.id}`,
      `**Suite** ${text(about.suiteName)} (${run.suiteId})`,
      `**Project** ${text(about.projectName)} (${run.projectId})`,
      `**Source** ${run.source}`,
      `**Iterations** ${about.iterations}`,
    ].join('\n\n'),
  };
}

/** The workflow's current details while it runs (Web UI shows them beside the static ones). */
export function runCurrentDetails(progress: EvalRunProgress): string {
  return `${progress.completed} of ${progress.total} iterations done: ${progress.passed} passed, ${progress.failed} failed, ${progress.errored} errored`;
}

export interface EvalRunInput {
  runId: string;
  /**
   * the run's plan when it was planned as it was created (POST /eval-runs, a schedule's run): the workflow starts its
   * batches at once; absent, the workflow plans (a local activity)
   */
  plan?: RunPlan;
}

/** As the API counts a run's iterations (domain/evals/verdicts.ts): passed, failed and errored are apart. */
export interface EvalRunProgress {
  total: number;
  completed: number;
  passed: number;
  failed: number;
  errored: number;
}

export const progressQuery = defineQuery<EvalRunProgress>('progress');

/** One Temporal Schedule per suite (api/suiteScheduler.ts); its id names the suite, so Web UI shows whose it is. */
export const suiteScheduleId = (suiteId: string): string => `suite-schedule:${suiteId}`;
/** The schedule's action workflow; Temporal appends the due time to this id for each action. */
export const scheduledSuiteRunWorkflowId = (suiteId: string): string => `suite-scheduled-run:${suiteId}`;

/** The deployment's retention schedule (runtime/retentionSchedule.ts) and the workflow id of each of its passes. */
export const RETENTION_SCHEDULE_ID = 'runway-retention';
export const RETENTION_WORKFLOW_ID = 'runway-retention-pass';
