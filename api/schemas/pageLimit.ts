import { z } from 'zod';

/**
 * The page size of a GET list, from its query string, clamped rather than refused (contract-notes, Corrections):
 * the real product answers `limit=0` or `limit=1000` with its smallest or largest page, and clients built on it
 * send such values. A value that is no number at all (`abc`, empty, the parameter repeated) gives the default; a
 * fraction is cut to its whole part. The document shows what the value ends up as: an integer in `1..max`.
 */
export function clampedLimit({ max, fallback }: { max: number; fallback: number }) {
  const clamp = (raw: unknown): number | undefined => {
    if (raw === undefined) return undefined; // the default
    const number =
      typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
    if (Number.isNaN(number)) return fallback;
    return Math.min(max, Math.max(1, Math.trunc(number)));
  };
  return z.preprocess(clamp, z.number().int().min(1).max(max).default(fallback)).meta({
    description: `page size, 1 to ${max} (default ${fallback}); a value out of range is clamped, one that is not a number gives the default`,
  });
}
