/** Figures of the run, trace, compare and servers views that the shared format (../format) has no word for. */

/** A signed difference of rates in percentage points: -0.8 -> "−80 pp". */
export function points(difference: number | null | undefined): string {
  if (difference === null || difference === undefined) return '–';
  const value = Math.round(difference * 1000) / 10;
  return `${value > 0 ? '+' : value < 0 ? '−' : '±'}${Math.abs(value)} pp`;
}

export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : value.toLocaleString('en');
}

/** A ratio with up to three decimals (precision, recall, F1). */
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
