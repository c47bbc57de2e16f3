import { createHash, createHmac, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { OutboundPolicy } from '../mcp/outbound.js';

/**
 * Signed webhooks (issue 33): what an endpoint is, the events it takes, and how a message is signed, per the Standard
 * Webhooks specification (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the secret's decoded bytes.
 */

export const WEBHOOK_EVENTS = [
  'eval_run.completed',
  'eval_run.failed',
  'eval_run.cancelled',
  'conformance.completed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** An endpoint as stored: its secret stays sealed (the keyring's envelope) until a delivery opens it. */
export interface WebhookEndpoint {
  id: string;
  organizationId: string;
  /** null: the organization's endpoint, told of every project's events */
  projectId: string | null;
  url: string;
  description: string;
  events: WebhookEvent[];
  secretEnc: string;
  enabled: boolean;
  createdByKeyId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One message to one endpoint; a redelivery is another delivery of the same message (same webhook-id). */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  payload: WebhookPayload;
  redeliveryOf: string | null;
  status: DeliveryStatus;
  createdAt: Date;
  finishedAt: Date | null;
}

/** One try of a delivery: what the endpoint answered (bounded), or why nothing was. */
export interface WebhookAttempt {
  deliveryId: string;
  attempt: number;
  attemptedAt: Date;
  succeeded: boolean;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

/** What is sent: the Standard Webhooks envelope (`type`, `timestamp`, `data`). Never a secret or a model key. */
export interface WebhookPayload {
  type: WebhookEvent;
  /** ISO 8601: when the event happened */
  timestamp: string;
  data: Record<string, unknown>;
}

/** Something webhooks tell of: an event about one subject (a run, a check) of one project. */
export interface WebhookNotice {
  event: WebhookEvent;
  organizationId: string;
  projectId: string;
  /** the run's or the check's id: with the event, it makes the message id */
  subjectId: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

/** The secret's prefix and size: `whsec_` + base64 of 32 random bytes (the specification asks for 24 to 64). */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key bytes of a `whsec_` secret. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** The `webhook-signature` value of one message: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. */
export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${messageId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** The three headers of a signed message, and its content type. */
export function signedHeaders(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signWebhook(secret, messageId, timestampSeconds, body),
  };
}

/**
 * The message id of an event about a subject (a run, a check): the same every time the event is told, so a duplicate
 * notice finds the delivery already made (and the receiver can deduplicate on webhook-id).
 */
export function messageIdFor(event: WebhookEvent, subjectId: string): string {
  return `msg_${createHash('sha256').update(`${event}:${subjectId}`).digest('base64url').slice(0, 27)}`;
}

/** The event a run's ending is. */
export function runEvent(status: string): WebhookEvent | undefined {
  if (status === 'completed') return 'eval_run.completed';
  if (status === 'failed') return 'eval_run.failed';
  if (status === 'cancelled') return 'eval_run.cancelled';
  return undefined;
}

/** The non-public address classes an operator may let webhooks reach (WEBHOOK_ALLOWED_RANGES); never link-local. */
export const ALLOWABLE_RANGES = ['loopback', 'private', 'carrierGradeNat'] as const;
export type AllowableRange = (typeof ALLOWABLE_RANGES)[number];

/** Where webhooks may go: public addresses, and the ranges the operator allows (for development and tests). */
export class WebhookTargets {
  /** the outbound guard's policy (domain/mcp/outbound.ts): the allowed ranges are its "home" classes */
  readonly policy: OutboundPolicy;

  constructor(allowed: readonly AllowableRange[]) {
    this.policy = new OutboundPolicy(new Set(allowed));
  }

  /** http is taken only where the operator lets webhooks reach non-public ranges (a local receiver). */
  get allowsHttp(): boolean {
    return this.policy.home.size > 0;
  }

  allows(address: string): boolean {
    return this.policy.allows(address);
  }

  /**
   * Why an endpoint URL is refused as written, or undefined when it may be saved: a URL, https (http only when
   * private ranges are allowed), no credentials, and a host that is no refused literal address. A name is not
   * resolved here (registration needs no DNS): each delivery checks the address it connects to.
   */
  refusal(text: string): string | undefined {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'url is not a URL';
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.allowsHttp))
      return this.allowsHttp ? 'url must be http or https' : 'url must be https';
    if (url.username || url.password) return 'url must not carry credentials';
    if (url.hash) return 'url must not carry a fragment';
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === '') return 'url has no host';
    if (isIP(host) && !this.allows(host))
      return `${host} is not an address webhooks may reach (loopback, link-local, private and reserved ranges are refused)`;
    if ((host === 'localhost' || host.endsWith('.localhost')) && !this.allows('127.0.0.1'))
      return `${host} is not an address webhooks may reach (loopback)`;
    return undefined;
  }
}
