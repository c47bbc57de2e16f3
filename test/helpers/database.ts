import postgres from 'postgres';
import { inject } from 'vitest';
import { randomBase62 } from '../../domain/ids.js';
import { createSql, type Sql } from '../../db/connection.js';
import { databaseUrl } from '../setup/postgres.js';

export interface TestDatabase {
  url: string;
  sql: Sql;
  drop(): Promise<void>;
}

/** A fresh, migrated database cloned from the run's template: each test file gets its own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const name = `${inject('pgDatabasePrefix')}${randomBase62(8).toLowerCase()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  // CREATE DATABASE ... TEMPLATE needs the template to have no other connections; retry briefly if it has.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
      break;
    } catch (error) {
      if (attempt > 20) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await admin.end();
  const url = databaseUrl(adminUrl, name);
  const sql = createSql(url);
  return {
    url,
    sql,
    async drop() {
      await sql.end({ timeout: 5 });
      const dropper = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}
