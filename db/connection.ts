import postgres from 'postgres';

export type Sql = postgres.Sql;
/** What query modules take: the pool or a transaction of it. */
export type Db = postgres.Sql | postgres.TransactionSql;
/** A transaction, for modules that need savepoints or must run inside one. */
export type Tx = postgres.TransactionSql;

/** Runs fn in one transaction: the caller's, when db already is one, else a new one. */
export async function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return 'savepoint' in db ? await fn(db) : ((await db.begin(fn)) as T);
}

/**
 * `db` as the transaction a statement that locks until its end (or needs savepoints) must run in; a store built on
 * the pool throws, naming `what`.
 */
export function transactionOnly(db: Db, what: string): Tx {
  if (!('savepoint' in db)) throw new Error(`${what} only inside a transaction`);
  return db;
}

/** How long the pool waits before reopening a connection after its `failures`-th failure: 50 ms doubling to 1 s. */
export function reconnectDelaySeconds(failures: number): number {
  return Math.min(0.05 * 2 ** Math.max(0, failures - 1), 1) * (0.5 + Math.random() / 2);
}

/** One pool per process; callers pass it down (createApp, createActivities). */
export function createSql(databaseUrl: string, options: { max?: number } = {}): Sql {
  return postgres(databaseUrl, {
    max: options.max ?? 10,
    onnotice: () => {},
    // Seconds before a connection that failed is opened again. The library's default grows with a failure count
    // shared by the whole pool (3^n / 100 s, up to 20 s): after a crash every connection of the pool fails at once,
    // and work stood still for 15-18 s after the database was back (issue 34). Quick, jittered, at most 1 s.
    backoff: reconnectDelaySeconds,
    // bigint columns (seq, counts) come back as JS numbers: they stay far below 2^53, and JSON can carry them.
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (value: number) => String(value),
        parse: (value: string) => Number(value),
      },
    },
    // No column transform: rows keep the table's snake_case here, and db modules return them as camelCase domain
    // objects through db/rows.ts (which says why there, not here).
    transform: { undefined: null },
  });
}
