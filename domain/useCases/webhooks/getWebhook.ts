import type { WebhookStore } from '../../ports/webhookStore.js';
import type { Principal } from '../../principal.js';
import type { WebhookEndpoint } from '../../webhooks/webhook.js';
import { requireEndpoint } from './access.js';

/** GET /webhooks/{webhookId}: one endpoint the key may see (never its secret). */
export function getWebhook(deps: { webhooks: WebhookStore }) {
  return async function getWebhook(input: { principal: Principal; webhookId: string }): Promise<WebhookEndpoint> {
    return await requireEndpoint(deps.webhooks, input.principal, input.webhookId);
  };
}

export type GetWebhook = ReturnType<typeof getWebhook>;
