// Shared between workflow code and the API: names, queries and small types only (no I/O, no Node builtins).
import { defineQuery } from '@temporalio/workflow';

export const evalRunWorkflowId = (runId: string): string => `eval-run:${runId}`;

/** Search attributes (all Keyword) registered on the Temporal namespace; operators filter runs by them. */
export const searchAttributeNames = {
  organizationId: 'RunwayOrganizationId',
  projectId: 'RunwayProjectId',
  suiteId: 'RunwaySuiteId',
  source: 'RunwaySource',
} as const;

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
