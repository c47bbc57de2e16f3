import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Db, Sql } from './connection.js';

/**
 * The one owner of encryption keys: the key list (`RUNWAY_ENCRYPTION_KEY`, newest first), the envelope secrets are
 * sealed in, and the check that a process holds the keys its database's secrets are sealed with.
 *
 * Envelopes (AES-256-GCM, parts in base64url):
 * - `v2.<keyId>.<iv>.<tag>.<ciphertext>`: written by this module, with the newest key; `v2.<keyId>` is authenticated
 *   data, so a ciphertext cannot be passed off as another key's.
 * - `v1.<iv>.<tag>.<ciphertext>`: written before keys had ids (one key per deployment); still read, with whichever
 *   held key opens it (GCM tells), and re-sealed as v2 by `secrets rekey`.
 *
 * A key id is derived from the key (an HMAC of a fixed label under it), so it needs no syntax and cannot be given
 * wrong; the fingerprint is another such HMAC. Neither reveals anything about the key.
 */

export interface KeyIdentity {
  /** 11 base64url characters, the id envelopes carry */
  id: string;
  /** hex HMAC-SHA256 of a fixed label under the key, recorded in the database */
  fingerprint: string;
}

interface HeldKey extends KeyIdentity {
  key: Buffer;
}

const identify = (key: Buffer): KeyIdentity => ({
  id: createHmac('sha256', key).update('runway/encryption-key/id').digest().subarray(0, 8).toString('base64url'),
  fingerprint: createHmac('sha256', key).update('runway/encryption-key/fingerprint/v1').digest('hex'),
});

/** A key list could not be read: the message says which entry and why. */
export class EncryptionKeyError extends Error {
  override name = 'EncryptionKeyError';
}

export class Keyring {
  readonly #keys: HeldKey[];

  private constructor(keys: Buffer[]) {
    this.#keys = keys.map((key) => ({ key, ...identify(key) }));
  }

  /**
   * The value of `RUNWAY_ENCRYPTION_KEY`: one key, or several separated by commas, newest first. Each is base64 of
   * 32 random bytes (`openssl rand -base64 32`). New secrets are sealed with the first; the others only open.
   */
  static fromSetting(value: string, setting = 'RUNWAY_ENCRYPTION_KEY'): Keyring {
    const entries = value.split(',').map((entry) => entry.trim());
    const keys = entries.map((entry, i) => {
      const where = entries.length > 1 ? `${setting} (key ${i + 1} of ${entries.length})` : setting;
      if (!entry)
        throw new EncryptionKeyError(
          `${where} is empty; give base64 of 32 random bytes, several separated by commas, newest first`,
        );
      const key = Buffer.from(entry, 'base64');
      if (key.length !== 32) {
        throw new EncryptionKeyError(`${where} must be base64 of 32 random bytes (openssl rand -base64 32)`);
      }
      return key;
    });
    const ring = new Keyring(keys);
    const ids = ring.#keys.map((k) => k.id);
    if (new Set(ids).size !== ids.length) throw new EncryptionKeyError(`${setting} lists the same key twice`);
    return ring;
  }

  static generateKey(): string {
    return randomBytes(32).toString('base64');
  }

  /** The held keys, newest first. */
  get keys(): KeyIdentity[] {
    return this.#keys.map(({ id, fingerprint }) => ({ id, fingerprint }));
  }

  /** The key new secrets are sealed with. */
  get newest(): KeyIdentity {
    const { id, fingerprint } = this.#keys[0];
    return { id, fingerprint };
  }

  holds(key: KeyIdentity): boolean {
    return this.#keys.some((k) => k.id === key.id && k.fingerprint === key.fingerprint);
  }

  encrypt(plain: string): string {
    const { key, id } = this.#keys[0];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(`v2.${id}`));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v2', id, ...[iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'))].join('.');
  }

  decrypt(envelope: string): string {
    return this.#open(envelope).plain;
  }

  encryptJson(value: unknown): string {
    return this.encrypt(JSON.stringify(value));
  }

  decryptJson<T>(envelope: string | null | undefined, fallback: T): T {
    return envelope ? (JSON.parse(this.decrypt(envelope)) as T) : fallback;
  }

  /** True when the envelope is already sealed with the newest key (so `secrets rekey` leaves it alone). */
  isCurrent(envelope: string): boolean {
    return envelope.startsWith(this.currentPrefix);
  }

  /** What every envelope sealed with the newest key starts with. */
  get currentPrefix(): string {
    return `v2.${this.#keys[0].id}.`;
  }

  /** The same secret sealed with the newest key. */
  reseal(envelope: string): string {
    return this.encrypt(this.decrypt(envelope));
  }

  /** Which held key opens the envelope, or undefined when none does. */
  openerOf(envelope: string): KeyIdentity | undefined {
    try {
      const { id, fingerprint } = this.#open(envelope).key;
      return { id, fingerprint };
    } catch {
      return undefined;
    }
  }

  #open(envelope: string): { plain: string; key: HeldKey } {
    const parts = envelope.split('.');
    if (parts[0] === 'v2' && parts.length === 5) {
      const [, id, iv, tag, body] = parts;
      const key = this.#keys.find((k) => k.id === id);
      if (!key) {
        throw new EncryptionKeyError(
          `a secret is sealed with key ${id}, which RUNWAY_ENCRYPTION_KEY does not hold (it holds ${this.#keys.map((k) => k.id).join(', ')})`,
        );
      }
      return { plain: openGcm(key.key, iv, tag, body, Buffer.from(`v2.${id}`)), key };
    }
    if (parts[0] === 'v1' && parts.length === 4) {
      const [, iv, tag, body] = parts;
      for (const key of this.#keys) {
        try {
          return { plain: openGcm(key.key, iv, tag, body), key };
        } catch {
          // not this key: GCM authentication fails; try the next one
        }
      }
      throw new EncryptionKeyError('a secret (v1 envelope) opens with none of the keys in RUNWAY_ENCRYPTION_KEY');
    }
    throw new Error('unreadable secret envelope');
  }
}

function openGcm(key: Buffer, iv: string, tag: string, body: string, aad?: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

// ---------------------------------------------------------------------------------------------------------------
// The database's record of its keys (table encryption_keys). A key is "in use" from the moment a process that
// seals with it starts, until `secrets rekey` has re-sealed everything with a newer key and retires it.

/** Where a process got its keys, for messages that say what to fix. */
export interface KeySource {
  /** e.g. `RUNWAY_ENCRYPTION_KEY`, or `the key file /srv/runway/.data/encryption.key` */
  name: string;
  /** the sentence that says how to fix a mismatch */
  fix: string;
}

export const environmentKeySource: KeySource = {
  name: 'RUNWAY_ENCRYPTION_KEY',
  fix: 'Set RUNWAY_ENCRYPTION_KEY to that key, the same in every API and worker process and in the admin CLI (to rotate, list the new key first and the old ones after it: NEW,OLD).',
};

export interface RecordedKey extends KeyIdentity {
  recordedAt: Date;
  retiredAt: Date | null;
}

// Any constant; every process that checks keys takes it, so two first starts cannot both record a key.
const KEY_RECORD_LOCK = 4_242_018;

export async function recordedKeys(sql: Db): Promise<RecordedKey[]> {
  const rows = await sql<{ key_id: string; fingerprint: string; recorded_at: Date; retired_at: Date | null }[]>`
    SELECT key_id, fingerprint, recorded_at, retired_at FROM encryption_keys ORDER BY recorded_at, key_id`;
  return rows.map((r) => ({
    id: r.key_id,
    fingerprint: r.fingerprint,
    recordedAt: r.recorded_at,
    retiredAt: r.retired_at,
  }));
}

/** Thrown when a process must not start: its message is meant for the operator as it is. */
export class KeyMismatchError extends Error {
  override name = 'KeyMismatchError';
}

export interface KeyCheck {
  /** the keys in use after the check (the database's record) */
  inUse: KeyIdentity[];
  /** true when this process recorded the first key of the database */
  firstRecord: boolean;
  /** things an operator should act on, e.g. secrets still sealed with an older key */
  warnings: string[];
}

/**
 * The start-up check every process runs before it reads or writes a secret. Refuses (KeyMismatchError) unless the
 * process holds every key the database records as in use; otherwise records the process's newest key as in use
 * (it is about to seal with it). On a database with no record yet: records the newest key when there are no
 * secrets, else the held keys that open them, and refuses when a secret opens with none (a database written before
 * this check existed, with another key).
 */
export async function checkDatabaseKey(sql: Sql, keyring: Keyring, source: KeySource): Promise<KeyCheck> {
  return (await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${KEY_RECORD_LOCK})`;
    const recorded = (await recordedKeys(tx)).filter((k) => k.retiredAt === null);
    let firstRecord = false;
    let inUse: KeyIdentity[] = recorded;
    if (recorded.length === 0) {
      firstRecord = true;
      inUse = await keysOpeningSamples(tx, keyring, source);
    } else {
      const missing = recorded.filter((k) => !keyring.holds(k));
      if (missing.length > 0) {
        throw new KeyMismatchError(
          `${source.name} does not hold the key this database's secrets are sealed with (key id ${missing.map((k) => k.id).join(', ')}, ` +
            `recorded ${missing[0].recordedAt.toISOString()}; ${source.name} holds ${keyring.keys.map((k) => k.id).join(', ')}). ${source.fix} ` +
            'Refusing to start: with a wrong key, new secrets would be sealed so that no other process can open them.',
        );
      }
    }
    const toRecord = [...inUse, keyring.newest].filter((k, i, all) => all.findIndex((o) => o.id === k.id) === i);
    for (const key of toRecord) {
      await tx`
        INSERT INTO encryption_keys (key_id, fingerprint) VALUES (${key.id}, ${key.fingerprint})
        ON CONFLICT (key_id) DO UPDATE SET retired_at = NULL WHERE encryption_keys.retired_at IS NOT NULL`;
    }
    const warnings: string[] = [];
    const older = toRecord.filter((k) => k.id !== keyring.newest.id);
    if (older.length > 0) {
      warnings.push(
        `secrets in this database may still be sealed with older key ${older.map((k) => k.id).join(', ')}; new secrets are sealed with ` +
          `${keyring.newest.id}. Run \`npm run -s admin -- secrets rekey\` to re-seal them all with the newest key, then drop the old key from ${source.name}.`,
      );
    }
    return { inUse: toRecord, firstRecord, warnings };
  })) as KeyCheck;
}

/** The held keys that open one secret of each encrypted column; refuses when a secret opens with none. */
async function keysOpeningSamples(sql: Db, keyring: Keyring, source: KeySource): Promise<KeyIdentity[]> {
  const found = new Map<string, KeyIdentity>();
  for (const { table, column } of await encryptedColumns(sql)) {
    const rows = await sql.unsafe<{ value: string }[]>(
      `SELECT ${ident(column)} AS value FROM ${ident(table)} WHERE ${ident(column)} IS NOT NULL LIMIT 1`,
    );
    if (rows.length === 0) continue;
    const opener = keyring.openerOf(rows[0].value);
    if (!opener) {
      throw new KeyMismatchError(
        `${source.name} does not hold the key this database's secrets are sealed with (a secret in ${table}.${column} opens with none of ` +
          `${keyring.keys.map((k) => k.id).join(', ')}). ${source.fix} Refusing to start: with a wrong key, new secrets would be sealed so ` +
          'that no other process can open them.',
      );
    }
    found.set(opener.id, opener);
  }
  return [...found.values()];
}

/** Every column that holds secrets: by convention, the text columns named `*_enc`. */
export async function encryptedColumns(sql: Db): Promise<{ table: string; column: string }[]> {
  const rows = await sql<{ table_name: string; column_name: string }[]>`
    SELECT c.table_name, c.column_name
    FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
      AND c.column_name LIKE '%\\_enc' AND c.data_type = 'text'
    ORDER BY c.table_name, c.ordinal_position`;
  return rows.map((r) => ({ table: r.table_name, column: r.column_name }));
}

/** A quoted SQL identifier (names come from the catalog, quoted all the same). */
export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Retires every recorded key but the newest, once `left` (run under the record's lock) finds no secret sealed with
 * another key; `secrets rekey` calls it after re-sealing. Returns the retired ids and what `left` counted.
 */
export async function retireOlderKeys(
  sql: Sql,
  keyring: Keyring,
  left: (tx: Db) => Promise<number>,
): Promise<{ retired: string[]; remaining: number }> {
  return (await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${KEY_RECORD_LOCK})`;
    const remaining = await left(tx);
    if (remaining > 0) return { retired: [], remaining };
    const { id, fingerprint } = keyring.newest;
    await tx`
      INSERT INTO encryption_keys (key_id, fingerprint) VALUES (${id}, ${fingerprint})
      ON CONFLICT (key_id) DO UPDATE SET retired_at = NULL`;
    const retired = await tx<{ key_id: string }[]>`
      UPDATE encryption_keys SET retired_at = now() WHERE key_id <> ${id} AND retired_at IS NULL RETURNING key_id`;
    return { retired: retired.map((r) => r.key_id), remaining };
  })) as { retired: string[]; remaining: number };
}
