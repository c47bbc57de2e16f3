/**
 * Retry-After (RFC 9110, section 10.2.3): delta-seconds or an HTTP date, as milliseconds from `now`; undefined when
 * the header is absent or unreadable. The one parser of the header, for a model provider's replies
 * (models/failures.ts), and for Runway's own 429s as the typed client (api/client.ts) and the console
 * (console/src/retryAfter.ts) read them. Pure, without imports: the console's bundle takes it as it is.
 */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
