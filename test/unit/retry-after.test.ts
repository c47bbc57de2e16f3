import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../domain/retryAfter.js';

/** The one Retry-After parser of the server (providers' headers), the typed client and the console. */
describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('reads delta-seconds, whole or with a fraction, trimmed, as milliseconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7_000);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 3 ', now)).toBe(3_000);
    expect(parseRetryAfter('1.25', now)).toBe(1_250);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP date as the time until it, 0 once it is past', () => {
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
    expect(parseRetryAfter(new Date(now - 5_000).toUTCString(), now)).toBe(0);
  });

  it('reads nothing else', () => {
    for (const value of [null, undefined, '', '  ', 'soon', '3x', 'x3', '1e3'])
      expect(parseRetryAfter(value, now), String(value)).toBeUndefined();
  });
});
