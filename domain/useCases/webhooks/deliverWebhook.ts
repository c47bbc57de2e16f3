import type { Lookup } from '../../mcp/outbound.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { WebhookStore } from '../../ports/webhookStore.js';
import { sendWebhook, type SendOutcome } from '../../webhooks/send.js';
import { signedHeaders, type WebhookTargets } from '../../webhooks/webhook.js';

/** What an attempt came to, for the activity: sent (2xx), failed (retry), or nothing to send any more. */
export type AttemptResult = { outcome: 'succeeded' | 'gone' } | { outcome: 'failed'; error: string };

/**
 * One attempt of a delivery (the worker's activity; Temporal retries a failed one): the stored message signed now
 * (same webhook-id, this attempt's timestamp) with the endpoint's secret, POSTed through the outbound guard, and the
 * attempt recorded. A deleted or disabled endpoint, or a delivery already ended, sends nothing.
 */
export function deliverWebhook(deps: {
  webhooks: Pick<WebhookStore, 'deliveryToSend' | 'recordAttempt' | 'finishDelivery'>;
  box: SecretBox;
  targets: WebhookTargets;
  timeoutMs: number;
  lookup?: Lookup;
  now?: () => Date;
}) {
  return async function deliverWebhook(input: { deliveryId: string; attempt: number }): Promise<AttemptResult> {
    const found = await deps.webhooks.deliveryToSend(input.deliveryId);
    if (!found || found.delivery.status !== 'pending') return { outcome: 'gone' };
    const { delivery, endpoint } = found;
    if (!endpoint.enabled) {
      await deps.webhooks.finishDelivery(delivery.id, 'failed');
      return { outcome: 'gone' };
    }
    const body = JSON.stringify(delivery.payload);
    const timestamp = Math.floor((deps.now?.() ?? new Date()).getTime() / 1000);
    const secret = deps.box.decrypt(endpoint.secretEnc);
    const outcome: SendOutcome = await sendWebhook(
      { url: endpoint.url, headers: signedHeaders(secret, delivery.messageId, timestamp, body), body },
      { targets: deps.targets, timeoutMs: deps.timeoutMs, ...(deps.lookup && { lookup: deps.lookup }) },
    );
    await deps.webhooks.recordAttempt({ deliveryId: delivery.id, attempt: input.attempt, ...outcome });
    if (outcome.succeeded) {
      await deps.webhooks.finishDelivery(delivery.id, 'succeeded');
      return { outcome: 'succeeded' };
    }
    return { outcome: 'failed', error: outcome.error ?? 'the endpoint did not accept the message' };
  };
}

export type DeliverWebhook = ReturnType<typeof deliverWebhook>;
