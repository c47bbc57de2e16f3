import { notFound, OperationFailure } from '../../failures.js';
import type { WebhookDeliveries } from '../../ports/webhookWorkflows.js';
import type { DeliveryWithAttempts, WebhookStore } from '../../ports/webhookStore.js';
import type { Principal } from '../../principal.js';
import { requireChangeAllowed, requireEndpoint } from './access.js';

/**
 * POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver: the same message (same webhook-id and payload, a new
 * timestamp and signature) sent again as a delivery of its own, retried like the first. A disabled endpoint is 409.
 */
export function redeliverWebhook(deps: { webhooks: WebhookStore; deliveries: WebhookDeliveries }) {
  return async function redeliverWebhook(input: {
    principal: Principal;
    webhookId: string;
    deliveryId: string;
  }): Promise<DeliveryWithAttempts> {
    const endpoint = await requireEndpoint(deps.webhooks, input.principal, input.webhookId);
    requireChangeAllowed(input.principal, endpoint);
    const original = await deps.webhooks.delivery(endpoint.id, input.deliveryId);
    if (!original) throw notFound('webhook delivery', { webhookId: endpoint.id, deliveryId: input.deliveryId });
    if (!endpoint.enabled)
      throw new OperationFailure('CONFLICT', 'the webhook is disabled: enable it (PATCH enabled: true) to redeliver', {
        webhookId: endpoint.id,
        reason: 'WEBHOOK_DISABLED',
      });
    const { delivery } = await deps.webhooks.createDelivery({
      endpointId: endpoint.id,
      messageId: original.messageId,
      eventType: original.payload.type,
      payload: original.payload,
      redeliveryOf: original.redeliveryOf ?? original.id,
    });
    await deps.deliveries.start(delivery.id, {
      organizationId: endpoint.organizationId,
      endpointId: endpoint.id,
      eventType: delivery.eventType,
    });
    return { ...delivery, attempts: [] };
  };
}

export type RedeliverWebhook = ReturnType<typeof redeliverWebhook>;
