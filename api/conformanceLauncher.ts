import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { conformanceCheck } from '../workflows/conformanceCheck.js';
import {
  conformanceCheckWorkflowId,
  type ConformanceCheckInput,
  type ConformanceCheckWorkflows,
} from '../domain/ports/conformanceWorkflows.js';

/** The API's side of conformance checks on Temporal (the domain's ConformanceCheckWorkflows): one workflow per check. */
export class ConformanceLauncher implements ConformanceCheckWorkflows {
  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
  ) {}

  async start(input: ConformanceCheckInput, labels: { organizationId: string; projectId: string }): Promise<void> {
    await this.temporal.workflow.start<typeof conformanceCheck>('conformanceCheck', {
      taskQueue: this.taskQueue,
      workflowId: conformanceCheckWorkflowId(input.checkId),
      args: [input],
      staticSummary: `Conformance check ${input.checkId}`,
      staticDetails: `**Check** ${input.checkId}\n\n**Project** ${labels.projectId}\n\n**Organization** ${labels.organizationId}`,
    });
  }

  async cancel(checkId: string): Promise<void> {
    try {
      await this.temporal.workflow.getHandle(conformanceCheckWorkflowId(checkId)).cancel();
    } catch (error) {
      // Closed already, or never started: the check's row says how it ended.
      if (error instanceof WorkflowNotFoundError) return;
      throw error;
    }
  }
}
