import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../scripts/embedded-postgres.js';
import { freePort } from '../helpers/ports.js';

export interface TestPostgres {
  /** a URL with rights to create databases */
  adminUrl: string;
  stop(): Promise<void>;
}

async function reachable(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** TEST_DATABASE_URL, else the local server at 127.0.0.1:5432, else an embedded PostgreSQL. */
export async function provideTestPostgres(): Promise<TestPostgres> {
  const candidates = [process.env.TEST_DATABASE_URL, 'postgres://postgres@127.0.0.1:5432/postgres'].filter(
    Boolean,
  ) as string[];
  for (const url of candidates) {
    if (await reachable(url)) return { adminUrl: url, stop: async () => {} };
    if (url === process.env.TEST_DATABASE_URL) throw new Error(`TEST_DATABASE_URL is set but not reachable: ${url}`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'runway-test-pg-'));
  // As root, embedded Postgres runs as the postgres user, which must be able to enter the folder.
  chmodSync(dataDir, 0o755);
  const embedded: EmbeddedDatabase = await startEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    database: 'runway_admin',
  });
  return { adminUrl: embedded.url, stop: () => embedded.stop() };
}

export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
