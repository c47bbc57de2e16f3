/**
 * Sizes of JSON values, and cutting one down to a size: how the service bounds what a server (or a model) sends
 * before answering with it or storing it (limits.ts: serverReplyBytes, tracePartBytes). A size is the UTF-8 bytes
 * of the value's JSON, what a reply or a jsonb column holds. Each string is measured where it lies, once, so a
 * 10 MB result costs a few passes over its bytes, not one per level it is nested in.
 */

/** The UTF-8 bytes of `value` as JSON: 0 for what JSON leaves out (undefined), Infinity for what it cannot write. */
export function jsonBytes(value: unknown): number {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // nested past the stack, or a cycle: nothing that could be answered or stored whole
    return Infinity;
  }
  return text === undefined ? 0 : Buffer.byteLength(text);
}

/** What JSON writes as an escape (or, for a lone surrogate, may): strings without any are measured natively. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** jsonBytes of a string, without writing the JSON of one that needs no escapes (most text). */
function stringBytes(text: string): number {
  return ESCAPED.test(text) ? jsonBytes(text) : Buffer.byteLength(text) + 2;
}

/** Below this depth a value is measured whole, and left out rather than cut further when it does not fit. */
const MAX_DEPTH = 32;

/** `value` bounded to `limitBytes`: `value` itself when it fits, and the size it had. */
export interface Bounded<T> {
  value: T;
  originalBytes: number;
  cut: boolean;
}

/**
 * `value` cut so that its JSON holds at most `limitBytes` (when even an empty container does not fit, `{}`/`[]`/''
 * of the same kind). What fits stays whole; otherwise strings keep their beginning, arrays their first elements
 * (the one that no longer fits cut, the rest left out), objects their keys in order, the small values first so that
 * what names a thing (`type`, `uri`, `name`) stays while its large values are cut. Values JSON leaves out stay out.
 */
export function boundJson<T>(value: T, limitBytes: number): Bounded<T> {
  return measured(value).bound(limitBytes);
}

/** `value` measured once, to be bounded after (in a later turn of the event loop, say) without measuring again. */
export function measured<T>(value: T): { bytes: number; bound(limitBytes: number): Bounded<T> } {
  const sizes = new Sizes();
  const bytes = sizes.of(value, 0);
  return {
    bytes,
    bound(limitBytes) {
      if (bytes <= limitBytes) return { value, originalBytes: bytes, cut: false };
      const fitted = sizes.fit(value, bytes, limitBytes, 0)?.value ?? empty(value);
      return { value: fitted as T, originalBytes: bytes, cut: true };
    },
  };
}

function empty(value: unknown): unknown {
  if (Array.isArray(value)) return [];
  if (typeof value === 'string') return '';
  return typeof value === 'object' && value !== null ? {} : null;
}

interface Fitted {
  value: unknown;
  bytes: number;
}

/** The JSON sizes of one value's parts, each object and array measured once (strings where they lie). */
class Sizes {
  readonly #known = new Map<object, number>();
  /** long strings, measured once: a Map hashes a long string by its length, so looking one up is cheap */
  readonly #texts = new Map<string, number>();

  of(value: unknown, depth: number): number {
    if (typeof value === 'string') return value.length < 1024 ? stringBytes(value) : this.#text(value);
    if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return jsonBytes(value);
    const known = this.#known.get(value);
    if (known !== undefined) return known;
    let bytes: number;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') bytes = jsonBytes(value);
    else if (Array.isArray(value)) {
      // JSON writes undefined (and functions) in an array as null
      bytes = 1 + value.length + value.reduce<number>((sum, item) => sum + (this.of(item, depth + 1) || 4), 0);
      if (value.length === 0) bytes = 2;
    } else {
      const entries = Object.entries(value)
        .map(([key, item]) => [key, this.of(item, depth + 1)] as const)
        .filter(([, size]) => size > 0);
      bytes =
        1 + Math.max(1, entries.length) + entries.reduce((sum, [key, size]) => sum + jsonBytes(key) + 1 + size, 0);
    }
    this.#known.set(value, bytes);
    return bytes;
  }

  #text(text: string): number {
    let bytes = this.#texts.get(text);
    if (bytes === undefined) this.#texts.set(text, (bytes = stringBytes(text)));
    return bytes;
  }

  /** `value` (of `bytes`), cut to at most `room` bytes; undefined when not even its empty form fits. */
  fit(value: unknown, bytes: number, room: number, depth: number): Fitted | undefined {
    if (bytes <= room) return { value, bytes };
    if (typeof value === 'string') return room >= 2 ? cutString(value, room) : undefined;
    if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null || room < 2) return undefined;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
    return Array.isArray(value) ? this.#fitArray(value, room, depth) : this.#fitObject(value, room, depth);
  }

  #fitArray(items: unknown[], room: number, depth: number): Fitted {
    const kept: unknown[] = [];
    let used = 2;
    for (const item of items) {
      const comma = kept.length > 0 ? 1 : 0;
      const bytes = this.of(item, depth + 1) || 4;
      if (used + comma + bytes <= room) {
        kept.push(item);
        used += comma + bytes;
        continue;
      }
      const cut = this.fit(item, bytes, room - used - comma, depth + 1);
      if (cut) {
        kept.push(cut.value);
        used += comma + cut.bytes;
      }
      break;
    }
    return { value: kept, bytes: used };
  }

  #fitObject(object: object, room: number, depth: number): Fitted {
    const entries = Object.entries(object)
      .map(([key, value], index) => ({
        key,
        value,
        index,
        keyBytes: jsonBytes(key) + 1,
        bytes: this.of(value, depth + 1),
      }))
      .filter((entry) => entry.bytes > 0);
    const kept = new Map<number, unknown>();
    let used = 2;
    let cutOne = false;
    for (const entry of [...entries].sort((a, b) => a.bytes - b.bytes)) {
      const needed = (kept.size > 0 ? 1 : 0) + entry.keyBytes;
      if (used + needed + entry.bytes <= room) {
        kept.set(entry.index, entry.value);
        used += needed + entry.bytes;
        continue;
      }
      // The smallest value that does not fit is cut to what is left; larger ones after it are left out.
      if (cutOne) break;
      cutOne = true;
      const cut = this.fit(entry.value, entry.bytes, room - used - needed, depth + 1);
      if (!cut) break;
      kept.set(entry.index, cut.value);
      used += needed + cut.bytes;
    }
    const value = Object.fromEntries(
      entries.filter((entry) => kept.has(entry.index)).map((entry) => [entry.key, kept.get(entry.index)]),
    );
    return { value, bytes: used };
  }
}

/** The longest beginning of `text` whose JSON (quotes and escapes included) holds at most `room` bytes. */
function cutString(text: string, room: number): Fitted {
  let length = Math.min(text.length, room - 2);
  for (;;) {
    // never half of a surrogate pair
    const code = text.charCodeAt(length - 1);
    if (length > 0 && code >= 0xd800 && code <= 0xdbff) length--;
    const prefix = text.slice(0, length);
    const bytes = stringBytes(prefix);
    if (bytes <= room) return { value: prefix, bytes };
    // Escapes and multi-byte characters made it longer than its length: shrink by the ratio found, and by one more.
    length = Math.max(0, Math.floor((length * (room - 2)) / (bytes - 2)) - 1);
  }
}
