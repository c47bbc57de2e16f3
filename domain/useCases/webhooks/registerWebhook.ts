import { OperationFailure, refused } from '../../failures.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { WebhookStore } from '../../ports/webhookStore.js';
import type { Principal } from '../../principal.js';
import {
  newWebhookSecret,
  type WebhookEndpoint,
  type WebhookEvent,
  type WebhookTargets,
} from '../../webhooks/webhook.js';
import { requireChangeAllowed, requireScope } from './access.js';

export interface WebhookFields {
  url: string;
  events: WebhookEvent[];
  description?: string;
  enabled?: boolean;
}

/** An endpoint URL as written must be one webhooks may reach (no DNS: each delivery checks the address). */
export function checkEndpointUrl(targets: WebhookTargets, url: string): void {
  const refusal = targets.refusal(url);
  if (refusal) throw refused(refusal, { field: 'url', reason: 'URL_REFUSED' });
}

/**
 * Endpoints per scope (the organization's own, or one project's), at most: every event starts a delivery per
 * endpoint, so the work one run's ending makes stays bounded.
 */
export const MAX_ENDPOINTS_PER_SCOPE = 20;

/**
 * POST /webhooks (the organization's) and POST /projects/{projectId}/webhooks: a new endpoint with a new signing
 * secret, sealed at rest. The secret is in this reply only (and in a rotation's).
 */
export function registerWebhook(deps: { webhooks: WebhookStore; box: SecretBox; targets: WebhookTargets }) {
  return async function registerWebhook(input: {
    principal: Principal;
    /** undefined: the organization's endpoint */
    projectId?: string;
    fields: WebhookFields;
  }): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const scope = await requireScope(deps.webhooks, input.principal, input.projectId);
    requireChangeAllowed(input.principal, scope);
    checkEndpointUrl(deps.targets, input.fields.url);
    if ((await deps.webhooks.countEndpoints(input.principal.organizationId, scope)) >= MAX_ENDPOINTS_PER_SCOPE)
      throw new OperationFailure(
        'CONFLICT',
        `at most ${MAX_ENDPOINTS_PER_SCOPE} webhooks per ${scope.projectId === null ? 'organization' : 'project'}: delete one first`,
        { reason: 'WEBHOOK_LIMIT', limit: MAX_ENDPOINTS_PER_SCOPE },
      );
    const secret = newWebhookSecret();
    const endpoint = await deps.webhooks.createEndpoint({
      organizationId: input.principal.organizationId,
      projectId: scope.projectId,
      url: input.fields.url,
      description: input.fields.description ?? '',
      events: [...new Set(input.fields.events)],
      secretEnc: deps.box.encrypt(secret),
      enabled: input.fields.enabled ?? true,
      createdByKeyId: input.principal.keyId,
    });
    return { endpoint, secret };
  };
}

export type RegisterWebhook = ReturnType<typeof registerWebhook>;
