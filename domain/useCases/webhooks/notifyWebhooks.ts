import type { Logger } from '../../ports/logger.js';
import type { WebhookDeliveries } from '../../ports/webhookWorkflows.js';
import type { WebhookStore } from '../../ports/webhookStore.js';
import { messageIdFor, type WebhookNotice, type WebhookPayload } from '../../webhooks/webhook.js';

export type { WebhookNotice };

/**
 * An event happened: one delivery per endpoint that takes it (the organization's and the project's own, enabled),
 * each with the same message id, and one workflow per delivery. Told twice, it creates and starts nothing twice (the
 * delivery's unique index, then the workflow id). Never throws: a delivery it could not start is logged.
 */
export function notifyWebhooks(deps: {
  webhooks: Pick<WebhookStore, 'subscribers' | 'createDelivery'>;
  deliveries: WebhookDeliveries;
  log: Logger;
}) {
  return async function notifyWebhooks(notice: WebhookNotice): Promise<number> {
    const endpoints = await deps.webhooks.subscribers(notice.organizationId, notice.projectId, notice.event);
    const messageId = messageIdFor(notice.event, notice.subjectId);
    const payload: WebhookPayload = {
      type: notice.event,
      timestamp: notice.occurredAt.toISOString(),
      data: notice.data,
    };
    // Each endpoint's delivery on its own (at most MAX_ENDPOINTS_PER_SCOPE twice over), so the caller waits for one.
    const outcomes = await Promise.all(
      endpoints.map(async (endpoint) => {
        try {
          const { delivery } = await deps.webhooks.createDelivery({
            endpointId: endpoint.id,
            messageId,
            eventType: notice.event,
            payload,
            redeliveryOf: null,
          });
          // Started even when the delivery existed: a notice told again after a crash between the two starts it now.
          await deps.deliveries.start(delivery.id, {
            organizationId: notice.organizationId,
            endpointId: endpoint.id,
            eventType: notice.event,
          });
          return true;
        } catch (error) {
          deps.log.warn(
            { err: error, webhookId: endpoint.id, event: notice.event },
            'could not start a webhook delivery',
          );
          return false;
        }
      }),
    );
    const started = outcomes.filter(Boolean).length;
    return started;
  };
}

export type NotifyWebhooks = ReturnType<typeof notifyWebhooks>;
