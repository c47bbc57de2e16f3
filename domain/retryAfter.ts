/*
 * Pure: no imports, no DOM, no Node. The one reading of Retry-After, shared by the server (a model provider's
 * headers: models/failures.ts), the typed client (api/client.ts) and the console (console/src/retryAfter.ts,
 * which bundles it).
 */

/**
 * A Retry-After value (RFC 9110, section 10.2.3) as milliseconds from `now`: delta-seconds (whole, or with a
 * fraction as some providers send them), or an HTTP date (0 once it is past). Undefined when absent, blank or
 * unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim();
  // Stryker disable next-line ConditionalExpression: an absent or blank value matches neither the seconds pattern nor Date.parse (NaN)
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
