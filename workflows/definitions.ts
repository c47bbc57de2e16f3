// Shared between workflow code and the API: names, queries and small types only (no I/O, no Node builtins).
import {
  defineSearchAttributeKey,
  SearchAttributeType,
  type SearchAttributePair,
  type SearchAttributeUpdatePair,
} from '@temporalio/common';
import { defineQuery } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { markdownText } from './markdownText.js';

/** What planning a run gives its workflow: the iterations, the first batches' size, the concurrency, the budget. */
type RunPlan = Awaited<ReturnType<Activities['planRun']>>;

export const evalRunWorkflowId = (runId: string): string => `eval-run:${runId}`;

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

/** What an eval run's workflow (and a suite's schedule) is found by in Temporal Web UI. */
export interface RunLabels {
  organizationId: string;
  projectId: string;
  suiteId: string;
  source: string;
}

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

/** What an operator reads about a run in Temporal Web UI (its "User Metadata"), without opening Postgres. */
export interface RunDescription {
  suiteName: string;
  projectName: string;
  /** iterations the run plans: each case's runs, or the run's iterationOverride, summed over the suite's cases */
  iterations: number;
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

export interface ScheduledSuiteRunInput {
  suiteId: string;
}

/** Why a due scheduled run did not start (also the suite's `schedule.lastSkipped.reason`). */
export type ScheduledRunOutcome =
  // `about` is missing from the results of runs started before Web UI got run descriptions
  | { outcome: 'started'; run: RunLabels & { id: string }; about?: RunDescription }
  | { outcome: 'skipped'; reason: string; message: string };
