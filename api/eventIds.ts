import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';

/** 16 bytes in base64url, unpadded. */
const SEALED = /^[A-Za-z0-9_-]{22}$/;

/**
 * The `id:` of a run's iteration events, and the Last-Event-ID a reconnect sends back: the iteration's stream
 * position, sealed. Positions come from one counter for the whole installation (migration 054), so in clear the gaps
 * between one tenant's ids would count every other tenant's iterations. Sealed, an id is one AES-256 block of the
 * position and a tag of its run: it says nothing of the position, is refused on any other run, and cannot be made up.
 * The same position gives the same id, so a late iteration sent with the highest position sent repeats its id.
 */
export class EventIdCodec {
  readonly #cipherKey: Buffer;
  readonly #tagKey: Buffer;

  constructor(secret: string) {
    this.#cipherKey = createHmac('sha256', 'runway-event-id-cipher').update(secret).digest();
    this.#tagKey = createHmac('sha256', 'runway-event-id-tag').update(secret).digest();
  }

  encode(runId: string, position: number): string {
    const block = Buffer.alloc(16);
    block.writeBigUInt64BE(BigInt(position), 0);
    this.#tag(runId).copy(block, 8);
    // One block, each plaintext distinct: ECB is the block cipher itself, a pseudorandom permutation.
    const cipher = createCipheriv('aes-256-ecb', this.#cipherKey, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url');
  }

  /** The position an id of this run carries; undefined for anything else. */
  decode(runId: string, id: string): number | undefined {
    if (!SEALED.test(id)) return undefined;
    const decipher = createDecipheriv('aes-256-ecb', this.#cipherKey, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(Buffer.from(id, 'base64url')), decipher.final()]);
    if (!timingSafeEqual(block.subarray(8), this.#tag(runId))) return undefined;
    const position = block.readBigUInt64BE(0);
    return position <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(position) : undefined;
  }

  #tag(runId: string): Buffer {
    return createHmac('sha256', this.#tagKey).update(runId).digest().subarray(0, 8);
  }
}
