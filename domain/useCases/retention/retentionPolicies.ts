import { notFound } from '../../failures.js';
import type { RetentionStore } from '../../ports/retentionStore.js';
import {
  effectivePolicy,
  type OrganizationRetention,
  type OwnRetention,
  type RetentionPolicy,
  type RetentionSetting,
  type StoredRetention,
} from '../../retention/policy.js';

const withEffective = (stored: StoredRetention, defaults: RetentionPolicy): OrganizationRetention => ({
  ...stored,
  effective: effectivePolicy(stored.own, defaults),
});

/** Every organization's retention policy (or one's): its own settings and what is in effect. */
export function showRetention(deps: { retention: RetentionStore; defaults: RetentionPolicy }) {
  return async function showRetention(input: { organizationId?: string } = {}): Promise<OrganizationRetention[]> {
    const found = await deps.retention.policies(input.organizationId);
    if (input.organizationId !== undefined && found.length === 0)
      throw notFound('organization', { organizationId: input.organizationId });
    return found.map((stored) => withEffective(stored, deps.defaults));
  };
}

/** Sets an organization's own retention (a field left out keeps its setting; `default` goes back to the deployment's). */
export function setRetention(deps: { retention: RetentionStore; defaults: RetentionPolicy }) {
  return async function setRetention(input: {
    organizationId: string;
    changes: Partial<Record<keyof OwnRetention, RetentionSetting>>;
  }): Promise<OrganizationRetention> {
    const set = await deps.retention.setPolicy(input.organizationId, input.changes);
    if (!set) throw notFound('organization', { organizationId: input.organizationId });
    return withEffective(set, deps.defaults);
  };
}
