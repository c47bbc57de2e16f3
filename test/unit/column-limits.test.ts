import { describe, expect, it } from 'vitest';
import {
  EPOCH_MS_MAX,
  EPOCH_MS_MIN,
  epochMs,
  epochMsQuery,
  INT4_MAX,
  INT4_MIN,
  int4,
  int4Amount,
  int4Query,
  storableText,
  unstorableCharacter,
} from '../../domain/columnLimits.js';

const accepts = (schema: { safeParse(v: unknown): { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;

describe('column limits: what Postgres integer and timestamptz columns hold', () => {
  it('int4 takes exactly -2^31 .. 2^31-1, whole numbers only', () => {
    expect(INT4_MAX).toBe(2_147_483_647);
    expect(INT4_MIN).toBe(-2_147_483_648);
    const schema = int4();
    for (const ok of [0, INT4_MAX, INT4_MIN, -1]) expect(accepts(schema, ok)).toBe(true);
    for (const bad of [INT4_MAX + 1, INT4_MIN - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e12, 1.5, Infinity, NaN, '1'])
      expect(accepts(schema, bad)).toBe(false);
  });

  it('product bounds narrow int4, and bounds wider than the column are a programming error', () => {
    const runs = int4({ min: 1, max: 10 });
    expect([0, 1, 10, 11].map((v) => accepts(runs, v))).toEqual([false, true, true, false]);
    expect(() => int4({ max: 2 ** 31 })).toThrow(/do not fit an integer column/);
    expect(() => int4Query({ min: -(2 ** 40) })).toThrow(/do not fit/);
  });

  it('int4Query reads query strings: numbers in range, nothing else', () => {
    const limit = int4Query({ min: 1, max: 200 });
    expect(limit.parse('50')).toBe(50);
    for (const bad of ['0', '201', 'abc', '1e309', '2.5', '', '9007199254740993'])
      expect(accepts(limit, bad)).toBe(false);
  });

  it('int4Amount takes fractions, not negatives, and never rounds past the column', () => {
    const amount = int4Amount();
    expect(accepts(amount, 12.75)).toBe(true);
    expect(accepts(amount, INT4_MAX)).toBe(true);
    expect(Math.round(amount.parse(INT4_MAX - 0.4))).toBeLessThanOrEqual(INT4_MAX);
    for (const bad of [-1, INT4_MAX + 0.5, 1e12, Infinity]) expect(accepts(amount, bad)).toBe(false);
  });

  it('epoch ms spans years 1 to 9999, the instants toISOString writes in a form Postgres reads', () => {
    expect(new Date(EPOCH_MS_MIN).toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(new Date(EPOCH_MS_MAX).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    const schema = epochMs();
    for (const ok of [0, Date.now(), EPOCH_MS_MIN, EPOCH_MS_MAX]) expect(accepts(schema, ok)).toBe(true);
    for (const bad of [EPOCH_MS_MAX + 1, EPOCH_MS_MIN - 1, 9e15, 8.64e15, -8.64e15, 1.5])
      expect(accepts(schema, bad)).toBe(false);
    expect(epochMsQuery().parse('253402300799999')).toBe(EPOCH_MS_MAX);
    expect(accepts(epochMsQuery(), '9000000000000000')).toBe(false);
  });
});

describe('column limits: text Postgres can store', () => {
  it('names NUL and lone surrogates, and nothing in well-formed text', () => {
    expect(unstorableCharacter('a\u0000b')).toBe('NUL');
    expect(unstorableCharacter('\ud800')).toBe('lone surrogate');
    expect(unstorableCharacter('x\udfff')).toBe('lone surrogate');
    expect(unstorableCharacter('\ude00\ud83d')).toBe('lone surrogate');
    for (const ok of ['', 'plain', 'é日本語', '😀', '\ud83d\ude00', '\uFFFD', '\u0001'])
      expect(unstorableCharacter(ok)).toBeUndefined();
  });

  it('storableText replaces each such character with U+FFFD and keeps the rest', () => {
    expect(storableText('a\u0000b\ud800c😀\ude00')).toBe('a\uFFFDb\uFFFDc😀\uFFFD');
    expect(storableText('unchanged é')).toBe('unchanged é');
  });
});
