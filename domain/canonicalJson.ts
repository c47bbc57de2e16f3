/**
 * JSON in canonical form: object keys sorted by UTF-16 code units, no whitespace, scalars as JSON.stringify writes
 * them. For JSON values this is RFC 8785 (JCS), so equal values always give the same text, whatever the key order
 * they arrived in, and anyone can recompute it. Keys whose value is undefined are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
