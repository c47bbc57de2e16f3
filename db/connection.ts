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

/** One pool per process; callers pass it down (createApp, createActivities). */
export function createSql(databaseUrl: string, options: { max?: number } = {}): Sql {
  return postgres(databaseUrl, {
    max: options.max ?? 10,
    onnotice: () => {},
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
