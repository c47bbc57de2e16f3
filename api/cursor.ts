import { createHmac, timingSafeEqual } from 'node:crypto';
import { validationError } from './errors.js';

/**
 * The one owner of pagination cursors: opaque to clients (base64url), tamper-evident (HMAC), and bound to
 * the list they came from so a cursor of one list is refused by another.
 */
export class CursorCodec {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = createHmac('sha256', 'runway-cursor').update(secret).digest();
  }

  encode(scope: string, position: unknown): string {
    const payload = Buffer.from(JSON.stringify([scope, position])).toString('base64url');
    return `${payload}.${this.#sign(payload)}`;
  }

  /** Anything but a cursor this codec encoded for this scope is a 400 INVALID_CURSOR, whatever its bytes. */
  decode<T>(scope: string, cursor: string): T {
    const parts = cursor.split('.');
    if (parts.length !== 2) throw invalid();
    const [payload, signature] = parts;
    const expected = Buffer.from(this.#sign(payload));
    // Compared as bytes: a signature of 43 characters may be more than 43 bytes (`é`), and timingSafeEqual
    // throws on buffers of unequal length.
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(expected, given)) throw invalid();
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!Array.isArray(decoded) || decoded.length !== 2 || decoded[0] !== scope) throw invalid();
    return decoded[1] as T;
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}

const invalid = () =>
  validationError('cursor is invalid; pass nextCursor from the previous page unchanged', { reason: 'INVALID_CURSOR' });
