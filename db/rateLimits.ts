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
 * The token-bucket statement for the buckets that `keys` selects (a column `key_id`: an API key's id, or another
 * bucket's name such as a client address's), atomic per bucket: the row lock of INSERT ... ON CONFLICT serializes
 * concurrent requests from any number of API processes, and clock_timestamp() gives every process the database's
 * clock. A rejected request consumes nothing.
 * Returns `tokens, last_allowed` per bucket; read them with toTakeResult.
 */
export function takeTokenStatement(sql: Db, keys: ReturnType<Db>, settings: BucketSettings) {
  const { ratePerSecond: rate, burst } = settings;
  const refilled = sql`LEAST(${burst}::float8, b.tokens + EXTRACT(EPOCH FROM (EXCLUDED.updated_at - b.updated_at)) * ${rate}::float8)`;
  return sql`
    INSERT INTO rate_limit_buckets AS b (key_id, tokens, last_allowed, updated_at)
    SELECT key_id, ${burst - 1}::float8, true, clock_timestamp() FROM (${keys}) AS wanted
    ON CONFLICT (key_id) DO UPDATE SET
      tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
      last_allowed = ${refilled} >= 1,
      updated_at = EXCLUDED.updated_at
    RETURNING tokens, last_allowed`;
}

export function toTakeResult(row: { tokens: number; last_allowed: boolean }, settings: BucketSettings): TakeResult {
  if (row.last_allowed) return { allowed: true, remaining: Math.floor(row.tokens), retryAfterSeconds: 0 };
  return {
    allowed: false,
    remaining: 0,
    retryAfterSeconds: Math.max(1, Math.ceil((1 - row.tokens) / settings.ratePerSecond)),
  };
}

/** Takes a token from one bucket, named by the caller (e.g. a client address's, see api/rateLimit.ts), in one statement. */
export async function takeToken(sql: Db, bucketKey: string, settings: BucketSettings): Promise<TakeResult> {
  const [row] = await sql<
    { tokens: number; last_allowed: boolean }[]
  >`${takeTokenStatement(sql, sql`SELECT ${bucketKey}::text AS key_id`, settings)}`;
  return toTakeResult(row, settings);
}
