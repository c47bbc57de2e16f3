import { ApplicationFailure, Context } from '@temporalio/activity';
import type { SecretBox } from '../domain/ports/secretBox.js';
import type { WebhookStore } from '../domain/ports/webhookStore.js';
import { deliverWebhook } from '../domain/useCases/webhooks/deliverWebhook.js';
import type { WebhookTargets } from '../domain/webhooks/webhook.js';

export interface WebhookActivityDeps {
  webhooks: WebhookStore;
  box: SecretBox;
  targets: WebhookTargets;
  /** one attempt's request time limit (WEBHOOK_TIMEOUT_MS) */
  timeoutMs: number;
}

/** The type of a failed attempt's failure: Temporal retries it (workflows/webhookDelivery.ts). */
export const NOT_ACCEPTED = 'WebhookNotAccepted';

export function webhookActivities(deps: WebhookActivityDeps) {
  const deliver = deliverWebhook(deps);
  return {
    /** One attempt of a delivery, recorded under Temporal's attempt number; a failed one throws to be retried. */
    async deliverWebhookAttempt(input: { deliveryId: string }) {
      const result = await deliver({ deliveryId: input.deliveryId, attempt: Context.current().info.attempt });
      // BENIGN: an endpoint that is down is the endpoint's matter (each attempt is recorded), not a worker warning.
      if (result.outcome === 'failed')
        throw ApplicationFailure.create({ message: result.error, type: NOT_ACCEPTED, category: 'BENIGN' });
      return result;
    },

    /** The delivery's time is spent without a 2xx: it ends failed (a redelivery may still be asked for). */
    async endWebhookDelivery(input: { deliveryId: string }) {
      await deps.webhooks.finishDelivery(input.deliveryId, 'failed');
    },
  };
}
