import type { Sql } from '../../db/connection.js';

export interface SnapshotOptions {
  /**
   * Rows left out, per table: a SQL condition on the table's columns (the table is aliased `t`). For a test that
   * lets some requests write on purpose (into a project of their own) and proves the others wrote nothing.
   */
  exclude?: Record<string, string>;
}

/**
 * A fingerprint of every table's content (row count and a hash of all rows), to prove a set of requests wrote
 * nothing. Rate-limit buckets change on every request by design and are left out.
 */
export async function snapshotDatabase(sql: Sql, options: SnapshotOptions = {}): Promise<Record<string, string>> {
  const tables = await sql<{ table_name: string }[]>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'rate_limit_buckets'
    ORDER BY table_name`;
  const snapshot: Record<string, string> = {};
  for (const { table_name } of tables) {
    const excluded = options.exclude?.[table_name];
    const [row] = await sql.unsafe<{ n: number; digest: string | null }[]>(
      `SELECT count(*)::int AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM "${table_name}" t${excluded ? ` WHERE (${excluded}) IS NOT TRUE` : ''}`,
    );
    snapshot[table_name] = `${row.n}:${row.digest ?? ''}`;
  }
  return snapshot;
}
