import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_EMBEDDED_POSTGRES_PORT, type LocalStackConfig } from '../runtime/config.js';
import type { Sql } from '../db/connection.js';
import {
  encryptedColumns,
  environmentKeySource,
  ident,
  KeyMismatchError,
  Keyring,
  recordedKeys,
  type KeySource,
} from '../db/keyring.js';
import { databaseLabel, runningStack } from './stackRecord.js';

// Where `npm start` keeps its embedded state (RUNWAY_DATA_DIR, EMBEDDED_POSTGRES_PORT); the operator CLI finds the
// same database and key there.

/** The embedded PostgreSQL `npm start` runs (scripts/embedded-postgres.ts), whose password is always this one. */
export const embeddedDatabaseUrl = (port: number) => `postgres://runway:runway@127.0.0.1:${port}/runway`;

/** The database the operator CLI uses, and how it chose it: every error about the database names both. */
export interface StackDatabase {
  url: string;
  /** host:port/database, never a user or password (cli/stackRecord.ts databaseLabel) */
  label: string;
  /** where the CLI took it from */
  source: string;
  /** what to check when it cannot be reached */
  hint: string;
}

/**
 * DATABASE_URL; else npm start's embedded PostgreSQL on EMBEDDED_POSTGRES_PORT; else the database of the `npm start`
 * that runs in RUNWAY_DATA_DIR (its stack.json: a stack started on other ports is found from another shell); else
 * the embedded PostgreSQL on its default port.
 */
export function stackDatabase(stack: LocalStackConfig): StackDatabase {
  const at = (url: string, source: string, hint: string) => ({ url, label: databaseLabel(url), source, hint });
  if (stack.DATABASE_URL) return at(stack.DATABASE_URL, 'from DATABASE_URL', 'is DATABASE_URL right?');
  if (stack.EMBEDDED_POSTGRES_PORT !== undefined)
    return at(
      embeddedDatabaseUrl(stack.EMBEDDED_POSTGRES_PORT),
      "npm start's embedded PostgreSQL on EMBEDDED_POSTGRES_PORT",
      'does `npm start` run with that EMBEDDED_POSTGRES_PORT?',
    );
  const running = runningStack(stack.RUNWAY_DATA_DIR);
  if (running) {
    const url = new URL(running.databaseUrl);
    if (running.embeddedDatabase) url.password = 'runway';
    return at(
      url.toString(),
      `from the npm start running in ${running.dataDir} (pid ${running.pid})`,
      running.status === 'starting' ? 'it is still starting: try again in a moment' : 'is it stopping?',
    );
  }
  return at(
    embeddedDatabaseUrl(DEFAULT_EMBEDDED_POSTGRES_PORT),
    `npm start's embedded PostgreSQL on its default port (no npm start runs in ${stack.RUNWAY_DATA_DIR})`,
    'is `npm start` running, with this RUNWAY_DATA_DIR? For another database, set DATABASE_URL',
  );
}

/** The key `npm start` generates for a database that has none, kept beside its data. */
export const keyFile = (stack: LocalStackConfig) => join(stack.RUNWAY_DATA_DIR, 'encryption.key');

const keyFileSource = (file: string): KeySource => ({
  name: `the key file ${file}`,
  fix:
    `Put that key in ${file} (copy the encryption.key of the data folder whose \`npm start\` created this database), ` +
    'or set RUNWAY_ENCRYPTION_KEY to it.',
});

export interface LocalKey {
  /** the setting's value: one base64 key, or several separated by commas, newest first */
  value: string;
  source: KeySource;
}

/** RUNWAY_ENCRYPTION_KEY, else the key file in the data folder; undefined when there is neither. */
export function localEncryptionKey(stack: LocalStackConfig): LocalKey | undefined {
  if (stack.RUNWAY_ENCRYPTION_KEY) return { value: stack.RUNWAY_ENCRYPTION_KEY, source: environmentKeySource };
  const file = keyFile(stack);
  if (!existsSync(file)) return undefined;
  return { value: readFileSync(file, 'utf8').trim(), source: keyFileSource(file) };
}

/**
 * The key of this process (see localEncryptionKey). When there is none: `npm start` (`create`) generates the key
 * file, but only for a database that holds no secrets and records no key; anyone else, and `npm start` facing such
 * a database (a second checkout pointed at the first one's database), is refused with what to do instead.
 */
export async function requireLocalKey(
  sql: Sql,
  stack: LocalStackConfig,
  options: { create: boolean },
): Promise<LocalKey> {
  const found = localEncryptionKey(stack);
  if (found) return found;
  const file = keyFile(stack);
  const inUse = (await recordedKeys(sql)).filter((k) => k.retiredAt === null);
  if (inUse.length > 0 || (await holdsSecrets(sql))) {
    const sealedWith =
      inUse.length > 0
        ? `already sealed with key ${inUse.map((k) => k.id).join(', ')}`
        : 'already sealed with another key';
    throw new KeyMismatchError(
      `no encryption key: RUNWAY_ENCRYPTION_KEY is not set and ${file} does not exist, and this database's secrets are ${sealedWith}. ` +
        `Refusing to create a new key for it. Set RUNWAY_ENCRYPTION_KEY to that key, or copy the encryption.key of the data folder whose ` +
        `\`npm start\` created this database to ${file}.`,
    );
  }
  if (!options.create) {
    throw new KeyMismatchError(
      `no encryption key: set RUNWAY_ENCRYPTION_KEY (base64 of 32 random bytes: openssl rand -base64 32), or run \`npm start\` once: it creates ${file}.`,
    );
  }
  mkdirSync(stack.RUNWAY_DATA_DIR, { recursive: true });
  writeFileSync(file, `${Keyring.generateKey()}\n`, { mode: 0o600, flag: 'wx' });
  return localEncryptionKey(stack)!;
}

async function holdsSecrets(sql: Sql): Promise<boolean> {
  for (const { table, column } of await encryptedColumns(sql)) {
    if ((await sql.unsafe(`SELECT 1 FROM ${ident(table)} WHERE ${ident(column)} IS NOT NULL LIMIT 1`)).length > 0)
      return true;
  }
  return false;
}
