// Shared between workflow code and the API: names, queries and small types only (no I/O, no Node builtins).
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import { defineQuery } from '@temporalio/workflow';

export const evalRunWorkflowId = (runId: string): string => `eval-run:${runId}`;

/** Search attributes (all Keyword) registered on the Temporal namespace; operators filter runs by them. */
export const searchAttributeNames = {
  organizationId: 'RunwayOrganizationId',
  projectId: 'RunwayProjectId',
  suiteId: 'RunwaySuiteId',
  source: 'RunwaySource',
} as const;

const searchAttributeKeys = {
  organizationId: defineSearchAttributeKey(searchAttributeNames.organizationId, SearchAttributeType.KEYWORD),
  projectId: defineSearchAttributeKey(searchAttributeNames.projectId, SearchAttributeType.KEYWORD),
  suiteId: defineSearchAttributeKey(searchAttributeNames.suiteId, SearchAttributeType.KEYWORD),
  source: defineSearchAttributeKey(searchAttributeNames.source, SearchAttributeType.KEYWORD),
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

export interface EvalRunInput {
  runId: string;
}

export interface EvalRunProgress {
  total: number;
  completed: number;
  passed: number;
  failed: number;
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
  | { outcome: 'started'; run: RunLabels & { id: string } }
  | { outcome: 'skipped'; reason: string; message: string };
