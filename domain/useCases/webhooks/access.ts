import { requireVisibleProject } from '../../access/visibleProject.js';
import { notFound, OperationFailure } from '../../failures.js';
import type { WebhookStore } from '../../ports/webhookStore.js';
import type { Principal } from '../../principal.js';
import type { WebhookEndpoint } from '../../webhooks/webhook.js';

/**
 * Who may see and change which endpoint. A project's endpoints: whoever may see the project. The organization's
 * (told of every project's events, private ones too): every member reads them, only its owners and admins change them.
 * An endpoint of another organization, or of a project the key may not see, is the same 404 as one that does not exist.
 */

export type Scope = { projectId: string | null };

/** The scope a request names: `projectId` a project the key may see (its real id), or the organization's own. */
export async function requireScope(
  store: Pick<WebhookStore, 'visibleProject'>,
  principal: Principal,
  projectId: string | undefined,
): Promise<Scope> {
  if (projectId === undefined) return { projectId: null };
  return { projectId: (await requireVisibleProject(store, principal, projectId)).id };
}

/** Changing the organization's endpoints is its owners' and admins' (403 for a member). */
export function requireChangeAllowed(principal: Principal, scope: Scope): void {
  if (scope.projectId === null && principal.orgRole === 'member')
    throw new OperationFailure(
      'FORBIDDEN',
      "only the organization's owners and admins may change its webhooks; a project's webhooks (POST /projects/{projectId}/webhooks) are open to its members",
      { reason: 'ORG_ADMIN_REQUIRED' },
    );
}

/** An endpoint the key may see (404 otherwise). */
export async function requireEndpoint(
  store: Pick<WebhookStore, 'visibleProject' | 'endpoint'>,
  principal: Principal,
  endpointId: string,
): Promise<WebhookEndpoint> {
  const endpoint = await store.endpoint(principal.organizationId, endpointId);
  if (!endpoint) throw notFound('webhook', { webhookId: endpointId });
  if (endpoint.projectId !== null && !(await store.visibleProject(principal, endpoint.projectId)))
    throw notFound('webhook', { webhookId: endpointId });
  return endpoint;
}
