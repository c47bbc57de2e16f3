import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type { WebhookDeliveryInput } from '../domain/ports/webhookWorkflows.js';

type Activities = ReturnType<typeof createActivities>;

/** Each wait between attempts is this many times the one before (up to the input's ceiling). */
const BACKOFF = 3;

/**
 * One webhook delivery (issue 33; id webhookDeliveryWorkflowId(deliveryId)): the attempt activity signs and sends the
 * message and records what the endpoint answered; a failed attempt (no 2xx, no answer) is retried by Temporal with
 * backoff until the delivery's time is spent (scheduleToCloseTimeout), and the delivery then ends failed.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<{ status: string }> {
  const { deliverWebhookAttempt } = proxyActivities<Activities>({
    startToCloseTimeout: input.attemptTimeoutMs,
    scheduleToCloseTimeout: input.retry.retryForMs,
    retry: {
      initialInterval: input.retry.initialIntervalMs,
      maximumInterval: input.retry.maximumIntervalMs,
      backoffCoefficient: BACKOFF,
    },
  });
  const { endWebhookDelivery } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 10 },
  });
  try {
    return { status: (await deliverWebhookAttempt({ deliveryId: input.deliveryId })).outcome };
  } catch {
    await endWebhookDelivery({ deliveryId: input.deliveryId });
    return { status: 'failed' };
  }
}
