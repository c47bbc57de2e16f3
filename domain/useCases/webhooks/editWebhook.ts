import { notFound } from '../../failures.js';
import type { WebhookStore } from '../../ports/webhookStore.js';
import type { Principal } from '../../principal.js';
import { type WebhookEndpoint, type WebhookEvent, type WebhookTargets } from '../../webhooks/webhook.js';
import { requireChangeAllowed, requireEndpoint } from './access.js';
import { checkEndpointUrl } from './registerWebhook.js';

/** PATCH /webhooks/{webhookId}: the fields given change, the others stay. */
export function editWebhook(deps: { webhooks: WebhookStore; targets: WebhookTargets }) {
  return async function editWebhook(input: {
    principal: Principal;
    webhookId: string;
    changes: { url?: string; events?: WebhookEvent[]; description?: string; enabled?: boolean };
  }): Promise<WebhookEndpoint> {
    const endpoint = await requireEndpoint(deps.webhooks, input.principal, input.webhookId);
    requireChangeAllowed(input.principal, endpoint);
    if (input.changes.url !== undefined) checkEndpointUrl(deps.targets, input.changes.url);
    const { events, ...rest } = input.changes;
    const updated = await deps.webhooks.updateEndpoint(endpoint.id, {
      ...rest,
      ...(events && { events: [...new Set(events)] }),
    });
    if (!updated) throw notFound('webhook', { webhookId: input.webhookId });
    return updated;
  };
}

export type EditWebhook = ReturnType<typeof editWebhook>;
