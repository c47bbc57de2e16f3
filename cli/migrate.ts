import { EnvironmentError, loadMigrationConfig } from '../runtime/config.js';
import { createSql } from '../db/connection.js';
import { migrate } from '../db/migrate.js';

// `npm run migrate`: applies the pending migrations (db/migrate.ts) to DATABASE_URL, then exits.
let url: string;
try {
  url = loadMigrationConfig().DATABASE_URL;
} catch (error) {
  if (!(error instanceof EnvironmentError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const sql = createSql(url, { max: 1 });
const applied = await migrate(sql);
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
await sql.end();
