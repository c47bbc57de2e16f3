import { notFound } from '../../failures.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { WebhookStore } from '../../ports/webhookStore.js';
import type { Principal } from '../../principal.js';
import { newWebhookSecret, type WebhookEndpoint } from '../../webhooks/webhook.js';
import { requireChangeAllowed, requireEndpoint } from './access.js';

/** POST /webhooks/{webhookId}/rotate-secret: a new signing secret, in this reply only; the old one stops at once. */
export function rotateWebhookSecret(deps: { webhooks: WebhookStore; box: SecretBox }) {
  return async function rotateWebhookSecret(input: {
    principal: Principal;
    webhookId: string;
  }): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const endpoint = await requireEndpoint(deps.webhooks, input.principal, input.webhookId);
    requireChangeAllowed(input.principal, endpoint);
    const secret = newWebhookSecret();
    const updated = await deps.webhooks.updateEndpoint(endpoint.id, { secretEnc: deps.box.encrypt(secret) });
    if (!updated) throw notFound('webhook', { webhookId: input.webhookId });
    return { endpoint: updated, secret };
  };
}

export type RotateWebhookSecret = ReturnType<typeof rotateWebhookSecret>;
