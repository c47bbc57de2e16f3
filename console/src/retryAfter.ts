/* Pure: no DOM, no imports (the unit tests read it in Node: test/unit/console-pure.test.ts). */

/** Retry-After: delta-seconds or an HTTP date; at least 1 s, at most 2 minutes. */
export function retryAfterSeconds(header: string | null): number {
  let seconds = Number(header);
  if (header && !Number.isFinite(seconds)) seconds = (Date.parse(header) - Date.now()) / 1000;
  if (!Number.isFinite(seconds)) seconds = 1;
  return Math.min(120, Math.max(1, Math.ceil(seconds)));
}
