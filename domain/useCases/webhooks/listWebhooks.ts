import type { PageCursors } from '../../ports/pageCursors.js';
import type { WebhookPosition, WebhookStore } from '../../ports/webhookStore.js';
import type { Principal } from '../../principal.js';
import type { WebhookEndpoint } from '../../webhooks/webhook.js';
import { requireScope } from './access.js';

/** GET /webhooks and GET /projects/{projectId}/webhooks: the scope's endpoints, newest first, one page at a time. */
export function listWebhooks(deps: { webhooks: WebhookStore; cursors: PageCursors }) {
  return async function listWebhooks(input: {
    principal: Principal;
    projectId?: string;
    cursor?: string;
    limit: number;
  }): Promise<{ endpoints: WebhookEndpoint[]; nextCursor?: string }> {
    const scope = await requireScope(deps.webhooks, input.principal, input.projectId);
    const list = `webhooks:${input.principal.organizationId}:${scope.projectId ?? ''}`;
    const after = input.cursor === undefined ? undefined : deps.cursors.decode<WebhookPosition>(list, input.cursor);
    const rows = await deps.webhooks.endpoints(input.principal.organizationId, scope, {
      after,
      limit: input.limit + 1,
    });
    const endpoints = rows.slice(0, input.limit);
    const last = endpoints.at(-1);
    return {
      endpoints,
      ...(rows.length > input.limit &&
        last && { nextCursor: deps.cursors.encode(list, { createdAt: last.createdAt.getTime(), id: last.id }) }),
    };
  };
}

export type ListWebhooks = ReturnType<typeof listWebhooks>;
