/** How numbers and times read in the console, the same in every view. */

/** 0..1 -> "83%" (one decimal under 10% and over 90%, where it matters); null -> "–". */
export function percent(rate: number | null | undefined): string {
  if (rate === null || rate === undefined || !Number.isFinite(rate)) return '–';
  const value = rate * 100;
  const digits = value > 0 && value < 100 && (value < 10 || value > 90) && !Number.isInteger(value) ? 1 : 0;
  return `${value.toFixed(digits)}%`;
}

/** A 95% interval, "71–92%". */
export function interval(range: { low: number; high: number } | null | undefined): string {
  if (!range) return '–';
  return `${Math.round(range.low * 100)}–${Math.round(range.high * 100)}%`;
}

/** Milliseconds -> "850 ms", "12.4 s", "3 min 5 s", "2 h 4 min". */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ${Math.round(s % 60)} s`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Epoch milliseconds -> the reader's local date and time. */
export function when(epochMs: number | null | undefined): string {
  if (epochMs === null || epochMs === undefined) return '–';
  return dateTime.format(new Date(epochMs));
}

/** "every 15 min", "every 2 h", "every day". */
export function every(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? 'every day' : `every ${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? 'every hour' : `every ${minutes / 60} h`;
  return `every ${minutes} min`;
}

/**
 * USD -> "$1.23" from a dollar up, four significant digits below ("$0.0102"); null (no known price) -> "unknown";
 * undefined (not costed: a running run, or one that ended before costs were recorded) -> "–".
 */
export function usd(value: number | null | undefined): string {
  if (value === undefined || (value !== null && !Number.isFinite(value))) return '–';
  if (value === null) return 'unknown';
  if (value === 0) return '$0';
  return value >= 1 ? `$${value.toFixed(2)}` : `$${Number(value.toPrecision(4))}`;
}
