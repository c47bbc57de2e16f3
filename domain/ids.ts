import { randomBytes } from 'node:crypto';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Random base62 text of the given length (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += alphabet[byte % 62];
    }
  }
  return out;
}

/** Ids carry a short prefix naming what they identify, e.g. `prj_3kT...`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(20)}`;
}
