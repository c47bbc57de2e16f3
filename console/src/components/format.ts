/** How numbers read on the console's pages. */

/** 0..1 as a percentage: 0.8 -> "80%", 0.123 -> "12.3%"; "–" for null. */
export function percent(rate: number | null | undefined): string {
  if (rate === null || rate === undefined || !Number.isFinite(rate)) return '–';
  const value = rate * 100;
  return `${Number.isInteger(value) ? value : value.toFixed(1)}%`;
}

/** A signed difference of rates in percentage points: -0.8 -> "−80 pp". */
export function points(difference: number | null | undefined): string {
  if (difference === null || difference === undefined) return '–';
  const value = Math.round(difference * 1000) / 10;
  return `${value > 0 ? '+' : value < 0 ? '−' : '±'}${Math.abs(value)} pp`;
}

export function interval(range: { low: number; high: number } | null | undefined): string {
  return range ? `${percent(range.low)}–${percent(range.high)}` : '–';
}

/** Milliseconds, as ms below a second, else seconds. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : value.toLocaleString('en');
}

/** A small number with up to three decimals (precision, F1, p-values). */
export function ratio(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return value === 0 || value === 1 ? String(value) : value.toFixed(3);
}

export function pValue(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return value < 0.001 ? '< 0.001' : value.toFixed(3);
}

/** Any JSON value as indented text. */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}
