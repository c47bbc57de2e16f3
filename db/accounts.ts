import { createHash } from 'node:crypto';
import type { Db } from './connection.js';
import { newId, randomBase62 } from '../domain/ids.js';
import { takeTokenStatement, toTakeResult, type BucketSettings, type TakeResult } from './rateLimits.js';
import type { Account } from '../domain/catalog/account.js';
import type { OrgRole, Principal } from '../domain/principal.js';

export type KeyLookup =
  | { status: 'valid'; principal: Principal; rateLimit: TakeResult }
  /** a key that cannot act: its token came from the bucket of the caller's address instead */
  | { status: 'unknown' | 'revoked' | 'orphaned'; addressLimit: TakeResult };

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export async function createOrganization(sql: Db, input: { name: string; id?: string }) {
  const [row] = await sql<{ id: string; name: string }[]>`
    INSERT INTO organizations (id, name) VALUES (${input.id ?? newId('org')}, ${input.name}) RETURNING id, name`;
  return row;
}

export async function createUser(
  sql: Db,
  input: { email: string; name: string; imageUrl?: string | null; plan?: string | null },
) {
  const [row] = await sql<{ id: string; email: string; name: string }[]>`
    INSERT INTO users (id, email, name, image_url, plan)
    VALUES (${newId('usr')}, ${input.email}, ${input.name}, ${input.imageUrl ?? null}, ${input.plan ?? null})
    RETURNING id, email, name`;
  return row;
}

export async function addMembership(sql: Db, input: { organizationId: string; userId: string; role: OrgRole }) {
  await sql`
    INSERT INTO memberships (organization_id, user_id, role) VALUES (${input.organizationId}, ${input.userId}, ${input.role})
    ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role`;
}

export async function removeMembership(sql: Db, organizationId: string, userId: string) {
  await sql`DELETE FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`;
}

/** Creates a key; the plain value is returned once and only its hash is stored. */
export async function createApiKey(sql: Db, input: { name: string; organizationId: string; userId: string }) {
  const key = `sk_${randomBase62(40)}`;
  const id = newId('key');
  await sql`
    INSERT INTO api_keys (id, name, key_hash, key_prefix, organization_id, user_id)
    VALUES (${id}, ${input.name}, ${hashApiKey(key)}, ${key.slice(0, 7)}, ${input.organizationId}, ${input.userId})`;
  return { id, key, name: input.name };
}

export type RevokeOutcome =
  | { status: 'revoked'; id: string; name: string }
  | { status: 'already revoked'; id: string; name: string; revokedAt: Date }
  | { status: 'unknown' };

/**
 * Revokes the key named by its id (`key_...`) or by its value (`sk_...`, looked up by its hash like every key:
 * the value itself is never stored). A key already revoked keeps the time it was revoked at.
 */
export async function revokeApiKey(sql: Db, key: string): Promise<RevokeOutcome> {
  const match = key.startsWith('sk_') ? sql`key_hash = ${hashApiKey(key)}` : sql`id = ${key}`;
  const [row] = await sql<{ id: string; name: string; revoked_at: Date; was_revoked: boolean }[]>`
    UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, now())
    FROM (SELECT id, revoked_at IS NOT NULL AS was_revoked FROM api_keys WHERE ${match} FOR UPDATE) before
    WHERE k.id = before.id
    RETURNING k.id, k.name, k.revoked_at, before.was_revoked`;
  if (!row) return { status: 'unknown' };
  return row.was_revoked
    ? { status: 'already revoked', id: row.id, name: row.name, revokedAt: row.revoked_at }
    : { status: 'revoked', id: row.id, name: row.name };
}

/**
 * Whether a key admitted earlier may still act, as admitApiKey would judge it now: `revoked`, `orphaned` (its user is
 * no longer a member of its organization), `unknown` (gone with its organization) or `valid`. For what outlives one
 * request (an events stream), so takes no rate-limit token.
 */
export async function keyStanding(sql: Db, keyId: string): Promise<'valid' | 'revoked' | 'orphaned' | 'unknown'> {
  const [row] = await sql<{ revoked: boolean; member: boolean }[]>`
    SELECT k.revoked_at IS NOT NULL AS revoked, m.role IS NOT NULL AS member
    FROM api_keys k LEFT JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.user_id
    WHERE k.id = ${keyId}`;
  if (!row) return 'unknown';
  return row.revoked ? 'revoked' : row.member ? 'valid' : 'orphaned';
}

/**
 * Admits a request in one round trip: the key, its organization binding, the owner's membership in it, and a
 * token from a rate-limit bucket: the key's own for a usable key, else the one of the caller's address (so
 * guessing or replaying keys is limited too, at no extra round trip). Every request pays this, so it is one
 * statement.
 */
export async function admitApiKey(
  sql: Db,
  key: string,
  buckets: { key: BucketSettings; address: { name: string; settings: BucketSettings } },
): Promise<KeyLookup> {
  type Row = {
    id: string | null;
    user_id: string | null;
    organization_id: string | null;
    revoked: boolean | null;
    role: OrgRole | null;
    tokens: number | null;
    last_allowed: boolean | null;
    address_tokens: number | null;
    address_last_allowed: boolean | null;
  };
  const [row] = await sql<Row[]>`
    WITH api_key AS (
      SELECT k.id, k.user_id, k.organization_id, k.revoked_at IS NOT NULL AS revoked, m.role
      FROM api_keys k
      LEFT JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.user_id
      WHERE k.key_hash = ${hashApiKey(key)}
    ), usable AS (
      SELECT id AS key_id FROM api_key WHERE NOT revoked AND role IS NOT NULL
    ), bucket AS (
      ${takeTokenStatement(sql, sql`SELECT key_id FROM usable`, buckets.key)}
    ), address_bucket AS (
      ${takeTokenStatement(sql, sql`SELECT ${buckets.address.name}::text AS key_id WHERE NOT EXISTS (SELECT FROM usable)`, buckets.address.settings)}
    )
    SELECT api_key.*, bucket.tokens, bucket.last_allowed, address_bucket.tokens AS address_tokens, address_bucket.last_allowed AS address_last_allowed
    FROM (VALUES (1)) AS one (x)
    LEFT JOIN api_key ON true LEFT JOIN bucket ON true LEFT JOIN address_bucket ON true`;
  if (
    row.id === null ||
    !row.user_id ||
    !row.organization_id ||
    !row.role ||
    row.tokens === null ||
    row.last_allowed === null
  ) {
    const addressLimit = toTakeResult(
      { tokens: row.address_tokens!, last_allowed: row.address_last_allowed! },
      buckets.address.settings,
    );
    return { status: row.id === null ? 'unknown' : row.revoked ? 'revoked' : 'orphaned', addressLimit };
  }
  return {
    status: 'valid',
    principal: { keyId: row.id, userId: row.user_id, organizationId: row.organization_id, orgRole: row.role },
    rateLimit: toTakeResult({ tokens: row.tokens, last_allowed: row.last_allowed }, buckets.key),
  };
}

/** The user behind the key, in the organization the key acts in. */
export async function getAccount(sql: Db, principal: Principal): Promise<Account> {
  const [row] = await sql<
    {
      id: string;
      email: string;
      name: string;
      image_url: string | null;
      plan: string | null;
      created_at: Date;
      updated_at: Date;
      org_id: string;
      org_name: string;
    }[]
  >`
    SELECT u.id, u.email, u.name, u.image_url, u.plan, u.created_at, u.updated_at, o.id AS org_id, o.name AS org_name
    FROM users u, organizations o WHERE u.id = ${principal.userId} AND o.id = ${principal.organizationId}`;
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    imageUrl: row.image_url,
    plan: row.plan,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    organization: { id: row.org_id, name: row.org_name },
  };
}
