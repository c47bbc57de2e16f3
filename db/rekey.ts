import type { Db, Sql } from './connection.js';
import { sealLegacyHostHeaders } from './hosts.js';
import { encryptedColumns, ident, retireOlderKeys, type Keyring } from './keyring.js';

/**
 * `secrets rekey`: re-seals every stored secret (every `*_enc` column of every table, host header values included)
 * with the newest key, then retires the older keys in the database's record.
 *
 * Resumable and idempotent: it walks each table in primary-key order in batches, each its own committed transaction
 * (rows locked while they are re-sealed, so a concurrent write is never lost); a secret already sealed with the
 * newest key is skipped. Run again after an interruption, it finishes the job; run again after that, it does nothing.
 */

export interface RekeyOptions {
  /** rows per batch (default 500) */
  batchSize?: number;
  /** stop after this many batches (to spread the work over several runs); the next run carries on */
  maxBatches?: number;
}

export interface RekeyReport {
  /** the key every secret is sealed with once the job is complete */
  keyId: string;
  /** every secret is sealed with the newest key, and the older keys are retired */
  complete: boolean;
  /** secrets re-sealed by this run */
  resealed: number;
  /** per `table.column`, secrets re-sealed by this run */
  columns: Record<string, number>;
  batches: number;
  /** hosts whose plain header values this run sealed */
  hostsSealed: number;
  /** secrets still sealed with another key (0 when complete) */
  remaining: number;
  /** keys this run retired */
  retired: string[];
}

interface Table {
  name: string;
  primaryKey: string[];
  columns: string[];
}

export async function rekeySecrets(sql: Sql, keyring: Keyring, options: RekeyOptions = {}): Promise<RekeyReport> {
  const batchSize = options.batchSize ?? 500;
  const report: RekeyReport = {
    keyId: keyring.newest.id,
    complete: false,
    resealed: 0,
    columns: {},
    batches: 0,
    hostsSealed: 0,
    remaining: 0,
    retired: [],
  };
  report.hostsSealed = await sealLegacyHostHeaders(sql, keyring);
  const stopped = () => options.maxBatches !== undefined && report.batches >= options.maxBatches;

  for (const table of await secretTables(sql)) {
    let after: string[] | undefined;
    while (!stopped()) {
      const batch = await sql.begin((tx) => resealBatch(tx, keyring, table, after, batchSize));
      if (batch.rows === 0) break;
      report.batches++;
      for (const [column, n] of Object.entries(batch.resealed)) {
        report.columns[`${table.name}.${column}`] = (report.columns[`${table.name}.${column}`] ?? 0) + n;
        report.resealed += n;
      }
      if (batch.rows < batchSize) break;
      after = batch.last;
    }
  }

  // Retire the older keys only when nothing sealed with them is left (a process still sealing with an older key
  // could have written behind the walk); else the record stays, and so does every process's warning.
  const { retired, remaining } = await retireOlderKeys(sql, keyring, (tx) => countNotCurrent(tx, keyring));
  return { ...report, complete: remaining === 0, remaining, retired };
}

/** One batch: the next rows (after `after`, in key order) with a secret not sealed with the newest key, re-sealed. */
async function resealBatch(tx: Db, keyring: Keyring, table: Table, after: string[] | undefined, limit: number) {
  const prefix = keyring.currentPrefix;
  const params: unknown[] = [prefix];
  const stale = table.columns.map((c) => `(${ident(c)} IS NOT NULL AND NOT starts_with(${ident(c)}, $1))`).join(' OR ');
  const key = table.primaryKey.map(ident).join(', ');
  let where = `(${stale})`;
  if (after) {
    where += ` AND (${key}) > (${after.map((value) => `$${params.push(value)}`).join(', ')})`;
  }
  const rows = await tx.unsafe<Record<string, string | null>[]>(
    `SELECT ${[...table.primaryKey, ...table.columns].map(ident).join(', ')} FROM ${ident(table.name)}
     WHERE ${where} ORDER BY ${key} LIMIT ${Number(limit)} FOR UPDATE`,
    params as never[],
  );
  const resealed: Record<string, number> = {};
  for (const row of rows) {
    const changes = table.columns.filter((c) => row[c] !== null && !keyring.isCurrent(row[c]!));
    const values = changes.map((c) => {
      try {
        return keyring.reseal(row[c]!);
      } catch (error) {
        const at = table.primaryKey.map((k) => `${k}=${row[k]}`).join(', ');
        throw new Error(`cannot open the secret in ${table.name}.${c} (${at}): ${(error as Error).message}`, {
          cause: error,
        });
      }
    });
    const set = changes.map((c, i) => `${ident(c)} = $${i + 1}`).join(', ');
    const match = table.primaryKey.map((k, i) => `${ident(k)} = $${changes.length + i + 1}`).join(' AND ');
    await tx.unsafe(`UPDATE ${ident(table.name)} SET ${set} WHERE ${match}`, [
      ...values,
      ...table.primaryKey.map((k) => row[k]),
    ] as never[]);
    for (const c of changes) resealed[c] = (resealed[c] ?? 0) + 1;
  }
  const last = rows.at(-1);
  return { rows: rows.length, resealed, last: last && table.primaryKey.map((k) => String(last[k])) };
}

/** Tables with `*_enc` columns, with their primary keys (the walk's order). */
async function secretTables(sql: Db): Promise<Table[]> {
  const byTable = new Map<string, string[]>();
  for (const { table, column } of await encryptedColumns(sql))
    byTable.set(table, [...(byTable.get(table) ?? []), column]);
  const tables: Table[] = [];
  for (const [name, columns] of byTable) {
    const primaryKey = (
      await sql<{ name: string }[]>`
      SELECT a.attname AS name
      FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = ${ident(name)}::regclass AND i.indisprimary
      ORDER BY array_position(i.indkey::int2[], a.attnum)`
    ).map((r) => r.name);
    if (primaryKey.length === 0)
      throw new Error(`table ${name} holds secrets but has no primary key, so it cannot be re-sealed in batches`);
    tables.push({ name, primaryKey, columns });
  }
  return tables;
}

/** Secrets not sealed with the newest key, over every `*_enc` column. */
async function countNotCurrent(sql: Db, keyring: Keyring): Promise<number> {
  let total = 0;
  for (const { table, column } of await encryptedColumns(sql)) {
    const [{ n }] = await sql.unsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${ident(table)} WHERE ${ident(column)} IS NOT NULL AND NOT starts_with(${ident(column)}, $1)`,
      [keyring.currentPrefix],
    );
    total += n;
  }
  return total;
}

/** Per `table.column`, how many secrets each key seals (`v1` for envelopes from before keys had ids). */
export async function secretsByKey(sql: Db): Promise<Record<string, Record<string, number>>> {
  const result: Record<string, Record<string, number>> = {};
  for (const { table, column } of await encryptedColumns(sql)) {
    const rows = await sql.unsafe<{ key: string; n: number }[]>(
      `SELECT CASE WHEN starts_with(${ident(column)}, 'v2.') THEN split_part(${ident(column)}, '.', 2) ELSE split_part(${ident(column)}, '.', 1) END AS key,
              count(*)::int AS n
       FROM ${ident(table)} WHERE ${ident(column)} IS NOT NULL GROUP BY 1 ORDER BY 1`,
    );
    if (rows.length > 0) result[`${table}.${column}`] = Object.fromEntries(rows.map((r) => [r.key, r.n]));
  }
  return result;
}
