import { z } from 'zod';

/*
 * What the database's columns can hold, in one place: the zod schemas at the edges that write to them take their
 * bounds from here, so a value past them is a 400 that names the field, never a 500 from Postgres.
 */

/** Postgres `integer` (int4): run counts, iteration numbers, durations in ms, token counts. */
export const INT4_MIN = -(2 ** 31);
export const INT4_MAX = 2 ** 31 - 1;

/**
 * The instants a `timestamptz` column takes from us, as epoch milliseconds: years 1 to 9999. Postgres itself
 * reaches further, but a Date past 9999 is written by toISOString as `+010000-...`, which Postgres refuses, and
 * one before year 1 as `-000001-...`, likewise.
 */
export const EPOCH_MS_MIN = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
export const EPOCH_MS_MAX = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

interface Bounds {
  min?: number;
  max?: number;
}

function within<T extends z.ZodNumber | z.ZodCoercedNumber>(
  schema: T,
  { min, max }: Bounds,
  outer: Required<Bounds>,
  what: string,
): T {
  const lower = min ?? outer.min;
  const upper = max ?? outer.max;
  // A product rule wider than the column would let a valid-looking value fail in Postgres.
  if (lower < outer.min || upper > outer.max) throw new Error(`bounds ${lower}..${upper} do not fit ${what}`);
  return schema.min(lower).max(upper) as T;
}

const int4Range = { min: INT4_MIN, max: INT4_MAX };
const epochRange = { min: EPOCH_MS_MIN, max: EPOCH_MS_MAX };

/** A whole number for an integer column; the product's own bounds (e.g. runs 1..10) narrow it and must fit int4. */
export const int4 = (bounds: Bounds = {}) => within(z.number().int(), bounds, int4Range, 'an integer column');

/** The same, read from a query string. */
export const int4Query = (bounds: Bounds = {}) =>
  within(z.coerce.number().int(), bounds, int4Range, 'an integer column');

/** A non-negative amount (tokens, milliseconds) that may have a fraction: stored rounded in an integer column. */
export const int4Amount = () => z.number().min(0).max(INT4_MAX);

/** Epoch milliseconds a timestamptz column holds. */
export const epochMs = () => within(z.number().int(), {}, epochRange, 'a timestamptz column');

/** The same, read from a query string. */
export const epochMsQuery = () => within(z.coerce.number().int(), {}, epochRange, 'a timestamptz column');

/**
 * Text Postgres cannot store: NUL (text and jsonb refuse it) and a lone UTF-16 surrogate, half of a pair without
 * the other half (jsonb refuses its `\ud800` escape; text would silently get U+FFFD). A well-formed pair (an
 * emoji) is fine.
 */
export type UnstorableCharacter = 'NUL' | 'lone surrogate';

// String.prototype.isWellFormed: Node 20 has it, TypeScript's ES2023 library does not declare it yet.
type MaybeWellFormed = string & { isWellFormed(): boolean };

export function unstorableCharacter(text: string): UnstorableCharacter | undefined {
  if (text.includes('\0')) return 'NUL';
  return (text as MaybeWellFormed).isWellFormed() ? undefined : 'lone surrogate';
}

/** Text a tool wrote (a test report's captured output), made storable: each such character becomes U+FFFD. */
export const storableText = (text: string): string => text.replace(/\0|\p{Cs}/gu, '\uFFFD');
