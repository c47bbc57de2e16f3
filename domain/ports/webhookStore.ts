import type { ProjectLookup } from '../access/visibleProject.js';
import type {
  DeliveryStatus,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEvent,
  WebhookPayload,
} from '../webhooks/webhook.js';

/**
 * What the webhook stories (domain/useCases/webhooks) and the delivery activity need from storage, declared here and
 * implemented outside the domain (db/webhooks.ts).
 */

/** An endpoint to register: everything but what storage gives it (its id and times). */
export type NewWebhookEndpoint = Omit<WebhookEndpoint, 'id' | 'createdAt' | 'updatedAt'>;

export interface WebhookEndpointChanges {
  url?: string;
  description?: string;
  events?: WebhookEvent[];
  enabled?: boolean;
  secretEnc?: string;
}

/** Where a page of a newest-first list starts: after this row. */
export interface WebhookPosition {
  createdAt: number;
  id: string;
}

export interface NewWebhookDelivery {
  endpointId: string;
  messageId: string;
  eventType: WebhookEvent;
  payload: WebhookPayload;
  redeliveryOf: string | null;
}

/** A delivery with its attempts, oldest first. */
export interface DeliveryWithAttempts extends WebhookDelivery {
  attempts: WebhookAttempt[];
}

export interface WebhookStore extends ProjectLookup {
  createEndpoint(endpoint: NewWebhookEndpoint): Promise<WebhookEndpoint>;
  /** An endpoint of the organization by id (of any of its projects, or the organization's own). */
  endpoint(organizationId: string, endpointId: string): Promise<WebhookEndpoint | undefined>;
  /** A page of the organization's endpoints, newest first: its own (`projectId` null) or one project's. */
  endpoints(
    organizationId: string,
    scope: { projectId: string | null },
    page: { after?: WebhookPosition; limit: number },
  ): Promise<WebhookEndpoint[]>;
  /** How many endpoints the scope has (the organization's own, or one project's). */
  countEndpoints(organizationId: string, scope: { projectId: string | null }): Promise<number>;
  updateEndpoint(endpointId: string, changes: WebhookEndpointChanges): Promise<WebhookEndpoint | undefined>;
  deleteEndpoint(endpointId: string): Promise<boolean>;
  /** The enabled endpoints told of `event` in a project: the organization's and the project's own. */
  subscribers(organizationId: string, projectId: string, event: WebhookEvent): Promise<WebhookEndpoint[]>;
  /**
   * A new delivery; a first delivery of a message the endpoint already has (a duplicate notice) is not created
   * again: the existing one comes back, with `created` false.
   */
  createDelivery(delivery: NewWebhookDelivery): Promise<{ delivery: WebhookDelivery; created: boolean }>;
  delivery(endpointId: string, deliveryId: string): Promise<DeliveryWithAttempts | undefined>;
  /** A delivery by id alone, with its endpoint (the worker). */
  deliveryToSend(deliveryId: string): Promise<{ delivery: WebhookDelivery; endpoint: WebhookEndpoint } | undefined>;
  deliveries(endpointId: string, page: { after?: WebhookPosition; limit: number }): Promise<DeliveryWithAttempts[]>;
  recordAttempt(attempt: Omit<WebhookAttempt, 'attemptedAt'>): Promise<void>;
  /** A pending delivery ends; false when it had already ended. */
  finishDelivery(deliveryId: string, status: Exclude<DeliveryStatus, 'pending'>): Promise<boolean>;
  /** The suite's name of a run, for the payload (undefined when gone). */
  suiteName(suiteId: string): Promise<string | undefined>;
}
