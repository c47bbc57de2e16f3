/**
 * Secrets at rest (saved headers and env, OAuth tokens, provider and per-run model keys, host header values): what
 * the domain and the stores need to seal and open them. Implemented by the keyring (db/keyring.ts), which the
 * composition roots build once from RUNWAY_ENCRYPTION_KEY.
 */
export interface SecretBox {
  /** Seals text with the newest key. */
  encrypt(plain: string): string;
  /** Opens what any key of the ring sealed. */
  decrypt(envelope: string): string;
  /** Seals a value as JSON. */
  encryptJson(value: unknown): string;
  /** Opens a sealed JSON value; `fallback` when there is none. */
  decryptJson<T>(envelope: string | null | undefined, fallback: T): T;
}
