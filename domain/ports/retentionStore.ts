import type {
  OwnRetention,
  RetentionKind,
  RetentionPolicy,
  RetentionSetting,
  StoredRetention,
} from '../retention/policy.js';

/** What a kind's batch removed (or a dry run would remove), per organization. */
export interface RetentionCount {
  organizationId: string;
  count: number;
}

/** The rules a pass applies: the deployment's defaults and how long an expired, unused upload URL is kept. */
export interface RetentionRules {
  defaults: RetentionPolicy;
  expiredUrlGraceMs: number;
}

/** Retention's storage (db/retention.ts): the policies, and each kind's count and batched removal. */
export interface RetentionStore {
  /** every organization's own settings (or one's), oldest organization first */
  policies(organizationId?: string): Promise<StoredRetention[]>;
  /** sets the fields given (undefined keeps one); undefined when there is no such organization */
  setPolicy(
    organizationId: string,
    changes: Partial<Record<keyof OwnRetention, RetentionSetting>>,
  ): Promise<StoredRetention | undefined>;
  /** what `purge` of this kind would remove, all of it (a dry run) */
  count(kind: RetentionKind, rules: RetentionRules): Promise<RetentionCount[]>;
  /** removes at most `limit` of this kind, in one short statement (its own transaction) */
  purge(kind: RetentionKind, rules: RetentionRules, limit: number): Promise<RetentionCount[]>;
}

/**
 * A deployment-wide purge retention runs after its own kinds, in the same batches (e.g. expired idempotency keys:
 * `{ kind: 'idempotencyKeys', count, purge }` over a store's purgeExpiredIdempotencyKeys). Not per organization.
 */
export interface RetentionPurge {
  kind: string;
  count(): Promise<number>;
  purge(limit: number): Promise<number>;
}
