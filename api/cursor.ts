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

  decode<T>(scope: string, cursor: string): T {
    const [payload, signature] = cursor.split('.');
    if (!payload || !signature || signature.length !== 43) throw invalid();
    const expected = Buffer.from(this.#sign(payload));
    if (!timingSafeEqual(expected, Buffer.from(signature))) throw invalid();
    const [cursorScope, position] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string, T];
    if (cursorScope !== scope) throw invalid();
    return position;
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}

const invalid = () => validationError('cursor is invalid; pass nextCursor from the previous page unchanged', { reason: 'INVALID_CURSOR' });
