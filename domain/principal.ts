/** A member's role in an organization. */
export type OrgRole = 'owner' | 'admin' | 'member';

/**
 * Who acts: the API key a request came with, its owner, and the one organization the key acts in. Every access rule
 * (domain/access) and every use case that reads or writes an organization's data takes it.
 */
export interface Principal {
  keyId: string;
  userId: string;
  organizationId: string;
  orgRole: OrgRole;
}
