import type { Sql } from './connection.js';
import { sealLegacyHostHeaders } from './hosts.js';
import { checkDatabaseKey, type KeyCheck, type Keyring, type KeySource } from './keyring.js';

/**
 * What every process (API, worker, admin CLI, `npm start`) does with the database before it reads or writes a
 * secret: check its keys against the database's record (db/keyring.ts; throws KeyMismatchError, whose message is
 * for the operator), then seal host header values still held in plain text (hosts saved before migration 004).
 * Run after `migrate`.
 */
export async function checkSecretsAtStart(
  sql: Sql,
  keyring: Keyring,
  source: KeySource,
): Promise<KeyCheck & { hostsSealed: number }> {
  const check = await checkDatabaseKey(sql, keyring, source);
  const hostsSealed = await sealLegacyHostHeaders(sql, keyring);
  return { ...check, hostsSealed };
}
