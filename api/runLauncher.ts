import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { evalRunWorkflowId, searchAttributeNames } from '../workflows/definitions.js';
import type { evalRun } from '../workflows/evalRun.js';

const keys = {
  organizationId: defineSearchAttributeKey(searchAttributeNames.organizationId, SearchAttributeType.KEYWORD),
  projectId: defineSearchAttributeKey(searchAttributeNames.projectId, SearchAttributeType.KEYWORD),
  suiteId: defineSearchAttributeKey(searchAttributeNames.suiteId, SearchAttributeType.KEYWORD),
  source: defineSearchAttributeKey(searchAttributeNames.source, SearchAttributeType.KEYWORD),
};

/** The API's side of eval runs on Temporal: start and cancel. One workflow per run. */
export class RunLauncher {
  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
  ) {}

  async start(run: { id: string; organizationId: string; projectId: string; suiteId: string; source: string }): Promise<void> {
    await this.temporal.workflow.start<typeof evalRun>('evalRun', {
      taskQueue: this.taskQueue,
      workflowId: evalRunWorkflowId(run.id),
      args: [{ runId: run.id }],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: keys.organizationId, value: run.organizationId },
        { key: keys.projectId, value: run.projectId },
        { key: keys.suiteId, value: run.suiteId },
        { key: keys.source, value: run.source },
      ]),
    });
  }

  async cancel(runId: string): Promise<void> {
    await this.temporal.workflow.getHandle(evalRunWorkflowId(runId)).cancel();
  }
}
