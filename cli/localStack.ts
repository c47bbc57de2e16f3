import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SecretBox } from '../db/secretBox.js';

/** Where `npm start` keeps its embedded state; the CLI finds the same database and key there. */
export const dataDir = process.env.RUNWAY_DATA_DIR ?? join(fileURLToPath(new URL('..', import.meta.url)), '.data');
export const embeddedPostgresPort = Number(process.env.EMBEDDED_POSTGRES_PORT ?? 54329);
export const embeddedDatabaseUrl = `postgres://runway:runway@127.0.0.1:${embeddedPostgresPort}/runway`;

/** RUNWAY_ENCRYPTION_KEY, else the key `npm start` generated in .data/ (created on first use). */
export function localEncryptionKey(create: boolean): string | undefined {
  if (process.env.RUNWAY_ENCRYPTION_KEY) return process.env.RUNWAY_ENCRYPTION_KEY;
  const file = join(dataDir, 'encryption.key');
  if (!existsSync(file)) {
    if (!create) return undefined;
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, SecretBox.generateKey(), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}
