/**
 * Starting a webhook delivery's workflow (runtime/webhooks.ts on Temporal), and the workflow's id and input that the
 * domain and the workflow share. Pure: the workflow imports it into Temporal's sandbox.
 */

/** One workflow per delivery: a second start of the same delivery (a duplicate notice) is refused by Temporal. */
export const webhookDeliveryWorkflowId = (deliveryId: string): string => `webhook-delivery:${deliveryId}`;

export interface WebhookDeliveryInput {
  deliveryId: string;
  /** Temporal's retry of the attempts: the first wait, its ceiling, and how long a delivery is tried in all */
  retry: { initialIntervalMs: number; maximumIntervalMs: number; retryForMs: number };
  /** one attempt's time limit (the request's own is a little under it) */
  attemptTimeoutMs: number;
}

export interface WebhookDeliveries {
  /** Starts the delivery's workflow; one already started for it is no error (nothing is sent twice). */
  start(deliveryId: string, labels: { organizationId: string; endpointId: string; eventType: string }): Promise<void>;
}
