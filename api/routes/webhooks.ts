import type { DeliveryWithAttempts } from '../../domain/ports/webhookStore.js';
import type { DeleteWebhook } from '../../domain/useCases/webhooks/deleteWebhook.js';
import type { EditWebhook } from '../../domain/useCases/webhooks/editWebhook.js';
import type { GetWebhook } from '../../domain/useCases/webhooks/getWebhook.js';
import type { ListWebhookDeliveries } from '../../domain/useCases/webhooks/listWebhookDeliveries.js';
import type { ListWebhooks } from '../../domain/useCases/webhooks/listWebhooks.js';
import type { RedeliverWebhook } from '../../domain/useCases/webhooks/redeliverWebhook.js';
import type { RegisterWebhook } from '../../domain/useCases/webhooks/registerWebhook.js';
import type { RotateWebhookSecret } from '../../domain/useCases/webhooks/rotateWebhookSecret.js';
import type { WebhookEndpoint } from '../../domain/webhooks/webhook.js';
import { defineRoute } from '../route.js';
import { projectParams } from '../schemas/common.js';
import {
  createWebhookBody,
  deliveryListQuery,
  deliveryListSchema,
  deliveryParams,
  deliverySchema,
  editWebhookBody,
  webhookDeletedSchema,
  webhookListQuery,
  webhookListSchema,
  webhookParams,
  webhookSchema,
  webhookWithSecretSchema,
} from '../schemas/webhooks.js';

const TAG = 'Webhooks';

const toWebhook = (endpoint: WebhookEndpoint) => ({
  webhookId: endpoint.id,
  projectId: endpoint.projectId,
  url: endpoint.url,
  description: endpoint.description,
  events: endpoint.events,
  enabled: endpoint.enabled,
  createdAt: endpoint.createdAt.getTime(),
  updatedAt: endpoint.updatedAt.getTime(),
});

const toDelivery = (delivery: DeliveryWithAttempts) => ({
  deliveryId: delivery.id,
  webhookId: delivery.endpointId,
  messageId: delivery.messageId,
  eventType: delivery.eventType,
  status: delivery.status,
  redeliveryOf: delivery.redeliveryOf,
  payload: { ...delivery.payload },
  attempts: delivery.attempts.map((a) => ({
    attempt: a.attempt,
    attemptedAt: a.attemptedAt.getTime(),
    succeeded: a.succeeded,
    statusCode: a.statusCode,
    durationMs: a.durationMs,
    responseExcerpt: a.responseExcerpt,
    error: a.error,
  })),
  createdAt: delivery.createdAt.getTime(),
  finishedAt: delivery.finishedAt?.getTime() ?? null,
});

const CREATE_DESCRIPTION =
  'The reply carries the signing secret (`whsec_...`), once: keep it to verify deliveries (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`; docs/WEBHOOKS.md). ' +
  'The URL is checked as written (https, no credentials, no loopback, link-local or private literal address: 400 VALIDATION_ERROR, details.reason URL_REFUSED); a name is not resolved now: every delivery checks the address it connects to. ' +
  'Events: eval_run.completed, eval_run.failed, eval_run.cancelled, conformance.completed. ' +
  'At most 20 endpoints per organization and per project: past it 409 CONFLICT (WEBHOOK_LIMIT).';

/**
 * Signed webhooks (issue 33; a Runway extension): endpoints of the organization (every project's events; changed by
 * its owners and admins) or of one project, their deliveries with every attempt, a redelivery, a new secret.
 */
export function webhookRoutes(deps: {
  registerWebhook: RegisterWebhook;
  listWebhooks: ListWebhooks;
  getWebhook: GetWebhook;
  editWebhook: EditWebhook;
  rotateWebhookSecret: RotateWebhookSecret;
  deleteWebhook: DeleteWebhook;
  listWebhookDeliveries: ListWebhookDeliveries;
  redeliverWebhook: RedeliverWebhook;
}) {
  return [
    defineRoute({
      method: 'post',
      path: '/webhooks',
      // The derived id (postWebhooks) is the project's route's.
      operationId: 'postOrganizationWebhooks',
      tag: TAG,
      summary: "Register an organization's webhook endpoint, told of every project's events (owners and admins)",
      description: CREATE_DESCRIPTION + ' A member (not owner or admin) is 403 FORBIDDEN: register a project webhook.',
      body: createWebhookBody,
      status: 201,
      response: webhookWithSecretSchema,
      errors: ['VALIDATION_ERROR', 'FORBIDDEN', 'CONFLICT'],
      async handler({ principal, body, req, res }) {
        const { endpoint, secret } = await deps.registerWebhook({ principal, fields: body });
        res.set('Location', `${req.baseUrl}/webhooks/${endpoint.id}`);
        return { ...toWebhook(endpoint), secret };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks',
      operationId: 'getOrganizationWebhooks',
      tag: TAG,
      summary: "The organization's own webhook endpoints, newest first (paginated; no secrets)",
      query: webhookListQuery,
      response: webhookListSchema,
      errors: ['VALIDATION_ERROR'],
      async handler({ principal, query }) {
        const { endpoints, nextCursor } = await deps.listWebhooks({ principal, ...query });
        return { items: endpoints.map(toWebhook), ...(nextCursor !== undefined && { nextCursor }) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/webhooks',
      tag: TAG,
      summary: "Register a project's webhook endpoint, told of the project's events",
      description: CREATE_DESCRIPTION,
      params: projectParams,
      body: createWebhookBody,
      status: 201,
      response: webhookWithSecretSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT'],
      async handler({ principal, params, body, req, res }) {
        const { endpoint, secret } = await deps.registerWebhook({
          principal,
          projectId: params.projectId,
          fields: body,
        });
        res.set('Location', `${req.baseUrl}/webhooks/${endpoint.id}`);
        return { ...toWebhook(endpoint), secret };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/webhooks',
      tag: TAG,
      summary: "The project's webhook endpoints, newest first (paginated; no secrets)",
      params: projectParams,
      query: webhookListQuery,
      response: webhookListSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, query }) {
        const { endpoints, nextCursor } = await deps.listWebhooks({ principal, projectId: params.projectId, ...query });
        return { items: endpoints.map(toWebhook), ...(nextCursor !== undefined && { nextCursor }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/:webhookId',
      tag: TAG,
      summary: 'A webhook endpoint (no secret)',
      params: webhookParams,
      response: webhookSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        return toWebhook(await deps.getWebhook({ principal, ...params }));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/webhooks/:webhookId',
      tag: TAG,
      summary: "Change a webhook endpoint's URL, events, description or enabled (the fields given)",
      params: webhookParams,
      body: editWebhookBody,
      response: webhookSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN'],
      async handler({ principal, params, body }) {
        return toWebhook(await deps.editWebhook({ principal, webhookId: params.webhookId, changes: body }));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:webhookId/rotate-secret',
      tag: TAG,
      summary: 'A new signing secret for the endpoint, shown in this reply only; the old one stops signing at once',
      params: webhookParams,
      response: webhookWithSecretSchema,
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      async handler({ principal, params }) {
        const { endpoint, secret } = await deps.rotateWebhookSecret({ principal, ...params });
        return { ...toWebhook(endpoint), secret };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/webhooks/:webhookId',
      tag: TAG,
      summary: 'Delete a webhook endpoint and its deliveries (no body fields)',
      params: webhookParams,
      response: webhookDeletedSchema,
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      async handler({ principal, params }) {
        await deps.deleteWebhook({ principal, ...params });
        return { webhookId: params.webhookId, deleted: true as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/:webhookId/deliveries',
      tag: TAG,
      summary: "The endpoint's deliveries with every attempt (status, duration, the reply's start), newest first",
      params: webhookParams,
      query: deliveryListQuery,
      response: deliveryListSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, query }) {
        const { deliveries, nextCursor } = await deps.listWebhookDeliveries({
          principal,
          webhookId: params.webhookId,
          ...query,
        });
        return { items: deliveries.map(toDelivery), ...(nextCursor !== undefined && { nextCursor }) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
      tag: TAG,
      summary: 'Send a delivered (or failed) message again: the same webhook-id and payload, a new delivery (202)',
      description:
        'The redelivery is a delivery of its own (redeliveryOf names the first), retried like any other. A disabled endpoint is 409 CONFLICT (WEBHOOK_DISABLED).',
      params: deliveryParams,
      status: 202,
      response: deliverySchema,
      errors: ['NOT_FOUND', 'CONFLICT', 'FORBIDDEN'],
      async handler({ principal, params, req, res }) {
        const delivery = await deps.redeliverWebhook({ principal, ...params });
        res.set('Location', `${req.baseUrl}/webhooks/${params.webhookId}/deliveries`);
        return toDelivery(delivery);
      },
    }),
  ];
}
