import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalStackConfig } from '../runtime/config.js';
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

// Where `npm start` keeps its embedded state (RUNWAY_DATA_DIR, EMBEDDED_POSTGRES_PORT); the operator CLI finds the
// same database and key there.

/** The embedded PostgreSQL `npm start` runs (scripts/embedded-postgres.ts). */
export const embeddedDatabaseUrl = (stack: LocalStackConfig) =>
  `postgres://runway:runway@127.0.0.1:${stack.EMBEDDED_POSTGRES_PORT}/runway`;

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
