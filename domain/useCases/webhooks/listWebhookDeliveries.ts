import type { PageCursors } from '../../ports/pageCursors.js';
import type { DeliveryWithAttempts, WebhookPosition, WebhookStore } from '../../ports/webhookStore.js';
import type { Principal } from '../../principal.js';
import { requireEndpoint } from './access.js';

/** GET /webhooks/{webhookId}/deliveries: the endpoint's deliveries with every attempt, newest first, paginated. */
export function listWebhookDeliveries(deps: { webhooks: WebhookStore; cursors: PageCursors }) {
  return async function listWebhookDeliveries(input: {
    principal: Principal;
    webhookId: string;
    cursor?: string;
    limit: number;
  }): Promise<{ deliveries: DeliveryWithAttempts[]; nextCursor?: string }> {
    const endpoint = await requireEndpoint(deps.webhooks, input.principal, input.webhookId);
    const list = `webhook-deliveries:${endpoint.id}`;
    const after = input.cursor === undefined ? undefined : deps.cursors.decode<WebhookPosition>(list, input.cursor);
    const rows = await deps.webhooks.deliveries(endpoint.id, { after, limit: input.limit + 1 });
    const deliveries = rows.slice(0, input.limit);
    const last = deliveries.at(-1);
    return {
      deliveries,
      ...(rows.length > input.limit &&
        last && { nextCursor: deps.cursors.encode(list, { createdAt: last.createdAt.getTime(), id: last.id }) }),
    };
  };
}

export type ListWebhookDeliveries = ReturnType<typeof listWebhookDeliveries>;
