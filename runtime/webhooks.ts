import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { createWebhookStore } from '../db/webhooks.js';
import type { Sql } from '../db/connection.js';
import type { ConformanceCheck } from '../domain/catalog/conformanceCheck.js';
import type { RunEnded } from '../domain/ports/runEnded.js';
import {
  webhookDeliveryWorkflowId,
  type WebhookDeliveries,
  type WebhookDeliveryInput,
} from '../domain/ports/webhookWorkflows.js';
import { notifyWebhooks } from '../domain/useCases/webhooks/notifyWebhooks.js';
import { conformanceNotice, runNotice } from '../domain/webhooks/payload.js';
import { WebhookTargets } from '../domain/webhooks/webhook.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

/**
 * Signed webhooks' side in the processes (issue 33; the stories are domain/useCases/webhooks): a delivery's workflow
 * started on Temporal, and the listeners that turn a run's ending (the RunEnded port) and a check's completion into
 * deliveries. The API and the worker build them the same way (webhookListeners).
 */

type WebhookConfig = Pick<
  Config,
  | 'TEMPORAL_TASK_QUEUE'
  | 'PUBLIC_URL'
  | 'PORT'
  | 'WEBHOOK_RETRY_FOR_MS'
  | 'WEBHOOK_RETRY_INITIAL_INTERVAL_MS'
  | 'WEBHOOK_RETRY_MAX_INTERVAL_MS'
  | 'WEBHOOK_TIMEOUT_MS'
  | 'WEBHOOK_ALLOWED_RANGES'
>;

/** The outbound rules of webhook endpoints, from WEBHOOK_ALLOWED_RANGES. */
export const webhookTargets = (config: Pick<Config, 'WEBHOOK_ALLOWED_RANGES'>) =>
  new WebhookTargets(config.WEBHOOK_ALLOWED_RANGES);

/** What a delivery's workflow is started with: Temporal's retry of its attempts, from the settings. */
export function deliveryInput(config: WebhookConfig, deliveryId: string): WebhookDeliveryInput {
  return {
    deliveryId,
    retry: {
      initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_INTERVAL_MS,
      maximumIntervalMs: Math.max(config.WEBHOOK_RETRY_MAX_INTERVAL_MS, config.WEBHOOK_RETRY_INITIAL_INTERVAL_MS),
      retryForMs: config.WEBHOOK_RETRY_FOR_MS,
    },
    attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS + 5_000,
  };
}

/** The domain's WebhookDeliveries on a Temporal client: one workflow per delivery, never two. */
export class TemporalWebhookDeliveries implements WebhookDeliveries {
  constructor(
    private readonly temporal: Client,
    private readonly config: WebhookConfig,
  ) {}

  async start(
    deliveryId: string,
    labels: { organizationId: string; endpointId: string; eventType: string },
  ): Promise<void> {
    try {
      await this.temporal.workflow.start('webhookDelivery', {
        taskQueue: this.config.TEMPORAL_TASK_QUEUE,
        workflowId: webhookDeliveryWorkflowId(deliveryId),
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [deliveryInput(this.config, deliveryId)],
        staticSummary: `Webhook ${labels.eventType} to ${labels.endpointId}`,
        staticDetails: `**Delivery** ${deliveryId}\n\n**Webhook** ${labels.endpointId}\n\n**Organization** ${labels.organizationId}`,
      });
    } catch (error) {
      // Started before (a duplicate notice): the delivery is under way or done, nothing is sent twice.
      if (error instanceof WorkflowExecutionAlreadyStartedError) return;
      throw error;
    }
  }
}

/** The deployment's public origin for payload links: PUBLIC_URL, else the API on this machine. */
export const publicBase = (config: Pick<Config, 'PUBLIC_URL' | 'PORT'>) =>
  config.PUBLIC_URL?.replace(/\/$/, '') ?? `http://localhost:${config.PORT}`;

export interface WebhookListeners {
  /** the RunEnded listener: eval_run.completed, .failed, .cancelled */
  runEnded: RunEnded;
  /** conformance.completed, told by the check's activity once the report is stored */
  conformanceCompleted: (check: ConformanceCheck) => Promise<void>;
}

/** The listeners of a process (the API's, the worker's): what happened becomes deliveries. */
export function webhookListeners(deps: {
  sql: Sql;
  temporal: Client;
  config: WebhookConfig;
  log: Logger;
}): WebhookListeners {
  const webhooks = createWebhookStore(deps.sql);
  const notify = notifyWebhooks({
    webhooks,
    deliveries: new TemporalWebhookDeliveries(deps.temporal, deps.config),
    log: deps.log,
  });
  const base = publicBase(deps.config);
  return {
    async runEnded({ run, endedAt }) {
      const notice = runNotice(run, { suiteName: (await webhooks.suiteName(run.suiteId)) ?? null, base, endedAt });
      if (notice) await notify(notice);
    },
    async conformanceCompleted(check) {
      const notice = conformanceNotice(check, { base });
      if (notice) await notify(notice);
    },
  };
}
