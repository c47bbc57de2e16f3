import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.js';
import { Keyring } from '../../db/keyring.js';

const A = Keyring.generateKey();
const B = Keyring.generateKey();

function sealV1(key: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'base64'), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(
    '.',
  );
}

describe('keyring', () => {
  it('seals with the newest key, in a v2 envelope that names it, and opens with any held key', () => {
    const a = Keyring.fromSetting(A);
    const ba = Keyring.fromSetting(` ${B} , ${A} `);
    expect(ba.keys.map((k) => k.id)).toEqual([Keyring.fromSetting(B).newest.id, a.newest.id]);

    const underA = a.encrypt('secret');
    expect(underA).toMatch(new RegExp(`^v2\\.${a.newest.id.replace(/[-_]/g, '\\$&')}\\.[\\w-]+\\.[\\w-]+\\.[\\w-]+$`));
    expect(ba.decrypt(underA)).toBe('secret');
    expect(ba.isCurrent(underA)).toBe(false);
    const resealed = ba.reseal(underA);
    expect(ba.isCurrent(resealed)).toBe(true);
    expect(Keyring.fromSetting(B).decrypt(resealed)).toBe('secret');
    expect(() => a.decrypt(resealed)).toThrow(
      `a secret is sealed with key ${ba.newest.id}, which RUNWAY_ENCRYPTION_KEY does not hold`,
    );
  });

  it('reads v1 envelopes with whichever held key opens them', () => {
    expect(Keyring.fromSetting(`${B},${A}`).decrypt(sealV1(A, 'old'))).toBe('old');
    expect(Keyring.fromSetting(`${B},${A}`).openerOf(sealV1(A, 'old'))?.id).toBe(Keyring.fromSetting(A).newest.id);
    expect(() => Keyring.fromSetting(B).decrypt(sealV1(A, 'old'))).toThrow('opens with none of the keys');
  });

  it('refuses an envelope whose key id was swapped or whose ciphertext was changed', () => {
    const ab = Keyring.fromSetting(`${A},${B}`);
    const [version, , iv, tag, body] = ab.encrypt('secret').split('.');
    expect(() => ab.decrypt([version, ab.keys[1].id, iv, tag, body].join('.'))).toThrow();
    // 'secret' is 6 bytes, 8 base64url characters with no spare bits: changing the last one changes the ciphertext.
    const changed = `${body.slice(0, -1)}${body.endsWith('A') ? 'B' : 'A'}`;
    expect(() => ab.decrypt([version, ab.keys[0].id, iv, tag, changed].join('.'))).toThrow();
    expect(() => ab.decrypt('garbage')).toThrow('unreadable secret envelope');
  });

  it('a key id and fingerprint are stable, and neither is the key', () => {
    const once = Keyring.fromSetting(A).newest;
    expect(Keyring.fromSetting(A).newest).toEqual(once);
    expect(once.id).toMatch(/^[\w-]{11}$/);
    expect(once.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(`${once.id}${once.fingerprint}`).not.toContain(Buffer.from(A, 'base64').toString('hex'));
  });

  it.each([
    ['not 32 bytes', 'c2hvcnQ=', 'RUNWAY_ENCRYPTION_KEY must be base64 of 32 random bytes'],
    ['an empty entry', `${A},`, 'RUNWAY_ENCRYPTION_KEY (key 2 of 2) is empty'],
    ['a bad second key', `${A},nope`, 'RUNWAY_ENCRYPTION_KEY (key 2 of 2) must be base64 of 32 random bytes'],
    ['the same key twice', `${A},${A}`, 'RUNWAY_ENCRYPTION_KEY lists the same key twice'],
  ])('refuses a setting with %s, saying which entry', (_label, setting, message) => {
    expect(() => Keyring.fromSetting(setting)).toThrow(message);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x', RUNWAY_ENCRYPTION_KEY: setting })).toThrow(
      `RUNWAY_ENCRYPTION_KEY: ${message}`,
    );
  });
});
