/** A plain text table: a header row, a rule, then rows, columns padded to their widest cell. */
export function formatTable(
  headers: string[],
  rows: (string | number)[][],
  options: { align?: ('left' | 'right')[]; maxWidth?: number } = {},
): string {
  const cells = rows.map((row) =>
    row.map((cell) => truncate(String(cell).replace(/\s+/g, ' '), options.maxWidth ?? 60)),
  );
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (options.align?.[i] === 'right' ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export const percent = (rate: number | null | undefined) =>
  rate === null || rate === undefined ? '-' : `${(rate * 100).toFixed(1)}%`;

/** `1 case`, `2 cases`: a count with its noun. */
export const counted = (n: number, singular: string, plural = `${singular}s`) => `${n} ${n === 1 ? singular : plural}`;

/** USD as a person reads it: cents for amounts from a dollar up, four significant digits below; `unknown` for null. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) return 'unknown';
  if (value === 0) return '$0';
  return value >= 1 ? `$${value.toFixed(2)}` : `$${Number(value.toPrecision(4))}`;
}
