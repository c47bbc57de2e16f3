import { randomUUID } from 'node:crypto';
import type { RetentionPurge } from '../domain/ports/retentionStore.js';
import type {
  ClaimOutcome,
  ClaimTerms,
  IdempotencyKeyStore,
  IdempotencyScope,
  KeptReply,
} from '../domain/ports/idempotencyKeys.js';
import type { Db } from './connection.js';

/** idempotency_keys (migration 066), as SQL spells it (the columns a claim reads). */
interface IdempotencyKeyRow {
  fingerprint: string;
  claim_token: string;
  reply_status: number | null;
  reply_body: string | null;
  reply_headers: Record<string, string> | null;
}

const where = (sql: Db, scope: IdempotencyScope) =>
  sql`organization_id = ${scope.organizationId} AND api_key_id = ${scope.apiKeyId}
    AND route = ${scope.route} AND idempotency_key = ${scope.key}`;

/** The Idempotency-Key storage of the API (api/idempotency.ts), on the pool: each call is one statement. */
export function createIdempotencyKeyStore(sql: Db): IdempotencyKeyStore {
  return {
    async claim(scope, terms: ClaimTerms): Promise<ClaimOutcome | undefined> {
      const token = randomUUID();
      // One statement: the primary key's row lock serializes racing claims from any number of API processes; the
      // database's clock decides leases and expiry for all of them. A row is taken over in place when it expired, or
      // when its claim's lease passed without a reply (its process crashed, or lost the database).
      const [claimed] = await sql<{ claim_token: string }[]>`
        INSERT INTO idempotency_keys AS k
          (organization_id, api_key_id, route, idempotency_key, fingerprint, claim_token, locked_until, expires_at)
        VALUES (${scope.organizationId}, ${scope.apiKeyId}, ${scope.route}, ${scope.key}, ${terms.fingerprint}, ${token},
          clock_timestamp() + ${terms.leaseMs} * interval '1 millisecond',
          clock_timestamp() + ${terms.ttlMs} * interval '1 millisecond')
        ON CONFLICT (organization_id, api_key_id, route, idempotency_key) DO UPDATE SET
          fingerprint = EXCLUDED.fingerprint,
          claim_token = EXCLUDED.claim_token,
          locked_until = EXCLUDED.locked_until,
          reply_status = NULL,
          reply_body = NULL,
          reply_headers = NULL,
          created_at = clock_timestamp(),
          completed_at = NULL,
          expires_at = EXCLUDED.expires_at
        WHERE k.expires_at <= clock_timestamp() OR (k.reply_status IS NULL AND k.locked_until <= clock_timestamp())
        RETURNING claim_token`;
      if (claimed?.claim_token === token) return { kind: 'claimed', token };
      const [row] = await sql<IdempotencyKeyRow[]>`
        SELECT fingerprint, claim_token, reply_status, reply_body, reply_headers FROM idempotency_keys WHERE ${where(sql, scope)}`;
      if (!row) return undefined;
      return row.reply_status === null
        ? { kind: 'inProgress', fingerprint: row.fingerprint }
        : {
            kind: 'done',
            fingerprint: row.fingerprint,
            reply: { status: row.reply_status, body: row.reply_body, headers: row.reply_headers ?? {} },
          };
    },

    async renew(scope, token, leaseMs) {
      const renewed = await sql`
        UPDATE idempotency_keys SET locked_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
        WHERE ${where(sql, scope)} AND claim_token = ${token} AND reply_status IS NULL`;
      return renewed.count === 1;
    },

    async complete(scope, token, reply: KeptReply) {
      const completed = await sql`
        UPDATE idempotency_keys
        SET reply_status = ${reply.status}, reply_body = ${reply.body},
          reply_headers = ${sql.json(reply.headers as never)}, locked_until = NULL, completed_at = clock_timestamp()
        WHERE ${where(sql, scope)} AND claim_token = ${token} AND reply_status IS NULL`;
      return completed.count === 1;
    },

    async release(scope, token) {
      await sql`DELETE FROM idempotency_keys WHERE ${where(sql, scope)} AND claim_token = ${token} AND reply_status IS NULL`;
    },
  };
}

/**
 * Deletes at most `limit` keys that expired by `now` (oldest first), skipping rows another transaction holds, so it
 * never waits on a request; returns how many it deleted. The retention job calls it in batches until it returns less
 * than `limit`; the API calls it with a small limit after each new claim, so the table stays near a day of keys.
 */
export async function purgeExpiredIdempotencyKeys(sql: Db, now: Date, limit: number): Promise<number> {
  const deleted = await sql`
    DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM idempotency_keys WHERE expires_at <= ${now} ORDER BY expires_at LIMIT ${limit}
      FOR UPDATE SKIP LOCKED))`;
  return deleted.count;
}

/** Retention's view of the kept keys (domain/ports/retentionStore.ts): how many expired, and deleting them in batches. */
export function idempotencyKeyPurge(sql: Db): RetentionPurge {
  return {
    kind: 'idempotencyKeys',
    async count() {
      const [row] = await sql<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at <= now()`;
      return row!.n;
    },
    purge: (limit) => purgeExpiredIdempotencyKeys(sql, new Date(), limit),
  };
}
