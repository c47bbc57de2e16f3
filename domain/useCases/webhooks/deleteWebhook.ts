import { notFound } from '../../failures.js';
import type { WebhookStore } from '../../ports/webhookStore.js';
import type { Principal } from '../../principal.js';
import { requireChangeAllowed, requireEndpoint } from './access.js';

/** DELETE /webhooks/{webhookId}: the endpoint and its deliveries; a delivery in flight stops at its next attempt. */
export function deleteWebhook(deps: { webhooks: WebhookStore }) {
  return async function deleteWebhook(input: { principal: Principal; webhookId: string }): Promise<void> {
    const endpoint = await requireEndpoint(deps.webhooks, input.principal, input.webhookId);
    requireChangeAllowed(input.principal, endpoint);
    if (!(await deps.webhooks.deleteEndpoint(endpoint.id))) throw notFound('webhook', { webhookId: input.webhookId });
  };
}

export type DeleteWebhook = ReturnType<typeof deleteWebhook>;
