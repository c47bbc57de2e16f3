import type { Db } from './connection.js';

export interface BucketSettings {
  /** tokens added per second */
  ratePerSecond: number;
  /** bucket size */
  burst: number;
}

export interface TakeResult {
  allowed: boolean;
  /** whole tokens left after this request */
  remaining: number;
  /** whole seconds until a token is available again (0 when allowed) */
  retryAfterSeconds: number;
}

/**
 * Token bucket per key in one atomic statement. The row lock of INSERT ... ON CONFLICT serializes concurrent
 * requests from any number of API processes, and clock_timestamp() gives every process the database's clock.
 * A rejected request consumes nothing.
 */
export async function takeToken(sql: Db, bucketKey: string, settings: BucketSettings): Promise<TakeResult> {
  const { ratePerSecond: rate, burst } = settings;
  const refilled = sql`LEAST(${burst}::float8, b.tokens + EXTRACT(EPOCH FROM (EXCLUDED.updated_at - b.updated_at)) * ${rate}::float8)`;
  const [row] = await sql<{ tokens: number; last_allowed: boolean }[]>`
    INSERT INTO rate_limit_buckets AS b (key_id, tokens, last_allowed, updated_at)
    VALUES (${bucketKey}, ${burst - 1}::float8, true, clock_timestamp())
    ON CONFLICT (key_id) DO UPDATE SET
      tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
      last_allowed = ${refilled} >= 1,
      updated_at = EXCLUDED.updated_at
    RETURNING tokens, last_allowed`;
  if (row.last_allowed) return { allowed: true, remaining: Math.floor(row.tokens), retryAfterSeconds: 0 };
  return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((1 - row.tokens) / rate)) };
}
