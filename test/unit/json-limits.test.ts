import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors.js';
import { inspectJson, MAX_JSON_DEPTH, MAX_JSON_VALUES, refuseUnfitJson } from '../../api/jsonLimits.js';

/** `depth` arrays nested in one another around `inner`, built without recursion. */
function nested(depth: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function refusal(value: unknown, where: 'body' | 'query' | 'path' = 'body'): ApiError {
  try {
    refuseUnfitJson(value, where);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('inspectJson: the one bounded walk over a request', () => {
  it('takes 64 nested containers and refuses the 65th, arrays and objects alike', () => {
    expect(inspectJson(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(inspectJson(nested(MAX_JSON_DEPTH + 1))).toEqual({ kind: 'depth', path: Array(MAX_JSON_DEPTH).fill(0) });
    let objects: unknown = 'leaf';
    for (let i = 0; i < MAX_JSON_DEPTH + 1; i++) objects = { a: objects };
    expect(inspectJson(objects)).toMatchObject({ kind: 'depth' });
  });

  it('walks 100,000 levels without recursion and stops at the bound', () => {
    expect(inspectJson({ deep: nested(100_000) })).toMatchObject({ kind: 'depth' });
    expect(inspectJson(nested(100_000), { maxDepth: 200_000 })).toBeUndefined();
  });

  it('counts every value and refuses more than the bound, however flat', () => {
    expect(inspectJson({ list: Array(MAX_JSON_VALUES - 2).fill(0) })).toBeUndefined();
    expect(inspectJson({ list: Array(MAX_JSON_VALUES - 1).fill(0) })).toEqual({ kind: 'values' });
    expect(
      inspectJson(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i])), { maxValues: 10 }),
    ).toEqual({ kind: 'values' });
  });

  it('finds NUL and lone surrogates in strings and keys, with their path; well-formed text passes', () => {
    expect(inspectJson({ a: [{ b: 'x\u0000' }] })).toEqual({
      kind: 'character',
      character: 'NUL',
      path: ['a', 0, 'b'],
      inKey: false,
    });
    expect(inspectJson({ a: { ['k\ud800']: 1 } })).toEqual({
      kind: 'character',
      character: 'lone surrogate',
      path: ['a'],
      inKey: true,
    });
    expect(inspectJson({ a: 'end \ud83d' })).toMatchObject({ character: 'lone surrogate', path: ['a'] });
    expect(inspectJson({ a: '\ude00 start' })).toMatchObject({ character: 'lone surrogate' });
    expect(inspectJson({ 'clé 😀': ['日本語', 'é', '\ud83d\ude00', 'Z\u0301'] })).toBeUndefined();
  });

  it("stops at the first problem it meets: a container's own text before what is nested in it", () => {
    expect(inspectJson({ first: nested(100), second: 'a\u0000' })).toMatchObject({
      kind: 'character',
      path: ['second'],
    });
    expect(inspectJson({ first: nested(100), second: nested(100, 'a\u0000') })).toMatchObject({
      kind: 'depth',
      path: expect.arrayContaining(['first']),
    });
    expect(inspectJson('top \ud800')).toEqual({
      kind: 'character',
      character: 'lone surrogate',
      path: [],
      inKey: false,
    });
  });

  it("passes numbers, booleans and null of any size through: bounding them is the schemas' work", () => {
    expect(inspectJson({ n: 1e308, m: -(2 ** 63), b: false, z: null })).toBeUndefined();
  });
});

describe('refuseUnfitJson: a 400 that says where', () => {
  it('names the field and the bound of a deep body, keeping the path short', () => {
    const error = refusal({ config: { caps: nested(1000) } });
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe('body.config.caps.0.0: nested deeper than 64 levels, the most this service takes');
    expect(error.details).toEqual({ reason: 'BODY_TOO_DEEP', limit: 64, path: 'body.config.caps.0.0' });
  });

  it('names the character and its place, in a body, a query or a path', () => {
    expect(refusal({ results: [{ metadata: { note: '\ud800' } }] }).message).toMatch(
      /^body\.results\.0\.metadata\.note: contains a lone surrogate/,
    );
    expect(refusal({ cursor: 'a\u0000' }, 'query').details).toEqual({
      reason: 'UNSTORABLE_CHARACTER',
      character: 'NUL',
      path: 'query.cursor',
    });
    expect(refusal({ projectId: '\u0000' }, 'path').message).toMatch(/^path\.projectId: contains a NUL character/);
    expect(refusal({ parameters: { '\udc00': 1 } }).message).toMatch(
      /^body\.parameters: a key contains a lone surrogate/,
    );
  });

  it('gives the value bound', () => {
    expect(refusal({ list: Array(MAX_JSON_VALUES).fill(0) }).details).toEqual({
      reason: 'BODY_TOO_MANY_VALUES',
      limit: MAX_JSON_VALUES,
      path: 'body',
    });
  });
});
