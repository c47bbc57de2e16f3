import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets at rest (saved headers and env, OAuth tokens, provider and per-run model keys).
 * Envelope: `v1.<iv>.<tag>.<ciphertext>` in base64url, AES-256-GCM with a 32-byte key.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes (base64 of 32 random bytes)');
    this.#key = key;
  }

  static fromBase64(value: string): SecretBox {
    return new SecretBox(Buffer.from(value, 'base64'));
  }

  static generateKey(): string {
    return randomBytes(32).toString('base64');
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  decrypt(envelope: string): string {
    const [version, iv, tag, body] = envelope.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unreadable secret envelope');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  encryptJson(value: unknown): string {
    return this.encrypt(JSON.stringify(value));
  }

  decryptJson<T>(envelope: string | null | undefined, fallback: T): T {
    return envelope ? (JSON.parse(this.decrypt(envelope)) as T) : fallback;
  }
}
