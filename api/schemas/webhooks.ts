import { z } from 'zod';
import { DELIVERY_STATUSES, WEBHOOK_EVENTS } from '../../domain/webhooks/webhook.js';
import { collection, epochMs, id, pageQuery } from './common.js';

/*
 * Signed webhooks (issue 33; docs/WEBHOOKS.md): endpoints of an organization or a project, told of the events they
 * name, each delivery signed per the Standard Webhooks specification. Request bodies are strict.
 */

export const webhookParams = z.object({ webhookId: id });
export const deliveryParams = z.object({ webhookId: id, deliveryId: id });

const url = z.string().min(1).max(2048).meta({
  description:
    'where deliveries are POSTed: https (http only where the operator allows private ranges, WEBHOOK_ALLOWED_RANGES); no credentials; a loopback, link-local or private literal address is refused, and every delivery checks the address the name resolves to',
  example: 'https://hooks.example.com/runway',
});
const events = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1)
  .max(WEBHOOK_EVENTS.length * 4)
  .meta({ description: 'the events this endpoint is told of' });
const description = z.string().max(500).meta({ description: 'a note of your own' });

export const createWebhookBody = z.strictObject({
  url,
  events,
  description: description.optional(),
  enabled: z.boolean().optional().meta({ description: 'default true' }),
});

export const editWebhookBody = z
  .strictObject({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ description: 'the fields given change; the others stay' });

export const webhookListQuery = pageQuery;
export const deliveryListQuery = pageQuery;

export const webhookSchema = z
  .object({
    webhookId: z.string(),
    projectId: z.string().nullable().meta({ description: "null: the organization's, told of every project's events" }),
    url: z.string(),
    description: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    enabled: z.boolean(),
    createdAt: epochMs,
    updatedAt: epochMs,
  })
  .meta({ id: 'Webhook' });

export const webhookWithSecretSchema = z
  .object({
    ...webhookSchema.shape,
    secret: z.string().meta({
      description:
        'the signing secret (whsec_ + base64): shown in this reply only; verify each delivery with it (docs/WEBHOOKS.md)',
    }),
  })
  .meta({ id: 'WebhookWithSecret' });

export const webhookListSchema = collection(webhookSchema, 'WebhookList');

export const webhookDeletedSchema = z.object({ webhookId: z.string(), deleted: z.literal(true) });

const attemptSchema = z
  .object({
    attempt: z.number().int().meta({ description: "1, 2, ...: Temporal's attempt number" }),
    attemptedAt: epochMs,
    succeeded: z.boolean().meta({ description: 'the endpoint answered 2xx' }),
    statusCode: z.number().int().nullable().meta({ description: "the endpoint's status; null: no answer" }),
    durationMs: z.number().int(),
    responseExcerpt: z.string().nullable().meta({ description: "the start of the endpoint's reply (at most 1 KiB)" }),
    error: z.string().nullable().meta({ description: 'why the attempt failed' }),
  })
  .meta({ id: 'WebhookAttempt' });

export const deliverySchema = z
  .object({
    deliveryId: z.string(),
    webhookId: z.string(),
    messageId: z.string().meta({ description: 'the webhook-id header: the same for every attempt and redelivery' }),
    eventType: z.string(),
    status: z.enum(DELIVERY_STATUSES).meta({
      description: 'pending while attempts go on, succeeded on a 2xx, failed once the retry time (24 h) is spent',
    }),
    redeliveryOf: z.string().nullable().meta({ description: 'the delivery this one sends again' }),
    payload: z.record(z.string(), z.unknown()).meta({ description: 'the JSON body sent (type, timestamp, data)' }),
    attempts: z.array(attemptSchema),
    createdAt: epochMs,
    finishedAt: epochMs.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryListSchema = collection(deliverySchema, 'WebhookDeliveryList');
