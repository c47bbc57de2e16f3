/* Pure: no DOM (the unit tests read it in Node: test/unit/console-pure.test.ts). */
// The one Retry-After parser of the server, the client and the console: a pure module without imports, bundled as is.
import { parseRetryAfter } from '../../domain/retryAfter.js';

/** Retry-After (delta-seconds or an HTTP date) in whole seconds, at least 1 s and at most 2 minutes; 1 s if unread. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number {
  const ms = parseRetryAfter(header, now) ?? 1000;
  return Math.min(120, Math.max(1, Math.ceil(ms / 1000)));
}
