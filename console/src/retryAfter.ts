import { retryAfterMs } from '../../domain/retryAfter.js';

/* Pure: no DOM (the unit tests read it in Node: test/unit/console-pure.test.ts). */

/** How long the console waits after a 429: the reply's Retry-After, at least 1 s and at most 2 minutes. */
export function retryAfterSeconds(header: string | null): number {
  const seconds = Math.ceil((retryAfterMs(header) ?? 1000) / 1000);
  return Math.min(120, Math.max(1, seconds));
}
