import postgres from 'postgres';

export type Sql = postgres.Sql;
/** What query modules take: the pool or a transaction of it. */
export type Db = postgres.Sql | postgres.TransactionSql;

/** One pool per process; callers pass it down (createApp, createActivities). */
export function createSql(databaseUrl: string, options: { max?: number } = {}): Sql {
  return postgres(databaseUrl, {
    max: options.max ?? 10,
    onnotice: () => {},
    // bigint columns (seq, counts) come back as JS numbers; they stay far below 2^53.
    types: { bigint: postgres.BigInt },
    transform: { undefined: null },
  });
}
