import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MATCH_OPTIONS,
  argumentPlaceholder,
  compareArguments,
  deepEqual,
  resolveMatchOptions,
  scoreToolCalls,
  type ActualToolCall,
  type ExpectedToolCall,
  type MatchOptions,
} from '../../domain/evals/scoring.js';

const call = (toolName: string, args: Record<string, unknown> = {}, isError?: boolean): ActualToolCall =>
  isError === undefined ? { toolName, arguments: args } : { toolName, arguments: args, isError };
const exp = (toolName: string, args?: Record<string, unknown>): ExpectedToolCall =>
  args === undefined ? { toolName } : { toolName, arguments: args };
const score = (
  expected: ExpectedToolCall[],
  actual: ActualToolCall[],
  matchOptions?: Partial<MatchOptions>,
  extra: { isNegativeTest?: boolean; failOnToolError?: boolean; iterationError?: string | null } = {},
) => scoreToolCalls({ expected, actual, matchOptions, ...extra });

describe('deepEqual', () => {
  it('ignores object key order and compares nested values', () => {
    expect(deepEqual({ a: 1, b: { c: [1, 2], d: 'x' } }, { b: { d: 'x', c: [1, 2] }, a: 1 })).toBe(true);
  });
  it('keeps array order significant', () => {
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual([1, 2], [1, 2, 3])).toBe(false);
  });
  it('compares numbers by value and distinguishes types', () => {
    expect(deepEqual(1, 1.0)).toBe(true);
    expect(deepEqual(0, -0)).toBe(true);
    expect(deepEqual(Number.NaN, Number.NaN)).toBe(true);
    expect(deepEqual(1, '1')).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual(null, undefined)).toBe(false);
  });
  it('treats keys holding undefined as absent', () => {
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1, c: 2 })).toBe(false);
  });
  it('tells NaN from any other number', () => {
    expect(deepEqual(Number.NaN, 1)).toBe(false);
    expect(deepEqual(1, Number.NaN)).toBe(false);
  });
  it('never equates a string or an array with a plain object that looks like it', () => {
    expect(deepEqual('x', { 0: 'x' })).toBe(false);
    expect(deepEqual({ 0: 'x' }, 'x')).toBe(false);
    expect(deepEqual(['x'], { 0: 'x', length: 1 })).toBe(false);
    expect(deepEqual({ 0: 'x', length: 1 }, ['x'])).toBe(false);
  });
  it('compares dates by time', () => {
    expect(deepEqual(new Date(5), new Date(5))).toBe(true);
    expect(deepEqual(new Date(5), new Date(6))).toBe(false);
    expect(deepEqual(new Date(5), {})).toBe(false);
  });
});

describe('resolveMatchOptions', () => {
  it('defaults to ignore order, unlimited extras, partial arguments', () => {
    expect(resolveMatchOptions()).toEqual({
      toolCallOrder: 'ignore',
      maxExtraToolCalls: null,
      argumentMatching: 'partial',
    });
    expect(resolveMatchOptions({})).toEqual(DEFAULT_MATCH_OPTIONS);
  });
  it('treats keys given as undefined as defaults and keeps explicit values', () => {
    expect(resolveMatchOptions({ toolCallOrder: undefined, maxExtraToolCalls: undefined })).toEqual(
      DEFAULT_MATCH_OPTIONS,
    );
    expect(resolveMatchOptions({ maxExtraToolCalls: 0, argumentMatching: 'exact' })).toEqual({
      toolCallOrder: 'ignore',
      maxExtraToolCalls: 0,
      argumentMatching: 'exact',
    });
  });
});

describe('argumentPlaceholder', () => {
  it('recognises the placeholder names trimmed and case-insensitively', () => {
    expect(argumentPlaceholder('string')).toBe('string');
    expect(argumentPlaceholder('  NUMBER ')).toBe('number');
    expect(argumentPlaceholder('Any')).toBe('any');
    expect(argumentPlaceholder('null')).toBe('null');
    expect(argumentPlaceholder('integer')).toBeNull();
    expect(argumentPlaceholder('a string')).toBeNull();
    expect(argumentPlaceholder(null)).toBeNull();
    expect(argumentPlaceholder(42)).toBeNull();
  });
});

describe('compareArguments — partial', () => {
  it('compares only the expected keys', () => {
    expect(compareArguments({ q: 'cats' }, { q: 'cats', limit: 10 }, 'partial')).toEqual([]);
    expect(compareArguments({}, { q: 'cats' }, 'partial')).toEqual([]);
  });
  it('lists the expected keys that differ or are missing', () => {
    expect(compareArguments({ q: 'cats', limit: 5, lang: 'en' }, { q: 'dogs', limit: 5 }, 'partial')).toEqual([
      'q',
      'lang',
    ]);
  });
  it('compares values deeply regardless of key order', () => {
    expect(
      compareArguments(
        { filter: { tags: ['a', 'b'], owner: { id: 1 } } },
        { filter: { owner: { id: 1 }, tags: ['a', 'b'] } },
        'partial',
      ),
    ).toEqual([]);
    expect(compareArguments({ filter: { tags: ['a', 'b'] } }, { filter: { tags: ['b', 'a'] } }, 'partial')).toEqual([
      'filter',
    ]);
    // nested values are compared whole: an extra nested key is a mismatch
    expect(compareArguments({ filter: { a: 1 } }, { filter: { a: 1, b: 2 } }, 'partial')).toEqual(['filter']);
  });
  it('does not match nested arguments when only some of their keys match', () => {
    expect(compareArguments({ filter: { a: 1, b: 2 } }, { filter: { a: 1, b: 3 } }, 'partial')).toEqual(['filter']);
    expect(compareArguments({ filter: { a: 1, b: 2 } }, { filter: { a: 0, b: 2 } }, 'partial')).toEqual(['filter']);
  });
  it('reports null where an object was expected as a mismatch, without throwing', () => {
    expect(compareArguments({ filter: { a: 1 } }, { filter: null }, 'partial')).toEqual(['filter']);
    expect(compareArguments({ filter: null }, { filter: { a: 1 } }, 'partial')).toEqual(['filter']);
    expect(compareArguments({ filter: { a: 1 } }, { filter: null }, 'exact')).toEqual(['filter']);
    // a model may send no arguments object at all
    expect(compareArguments({ q: 'cats' }, null as unknown as Record<string, unknown>, 'partial')).toEqual(['q']);
  });
  it('accepts any arguments when the expected call has none', () => {
    expect(compareArguments(undefined, { whatever: true }, 'partial')).toEqual([]);
    expect(compareArguments(undefined, { whatever: true }, 'exact')).toEqual([]);
  });

  const placeholderCases: [string, unknown, boolean][] = [
    ['string', 'hello', true],
    ['string', '', true],
    ['string', 5, false],
    ['number', 5, true],
    ['number', 0.5, true],
    ['number', '5', false],
    ['number', Number.NaN, false],
    ['number', Number.POSITIVE_INFINITY, false],
    ['boolean', false, true],
    ['boolean', 'false', false],
    ['object', { a: 1 }, true],
    ['object', {}, true],
    ['object', null, false],
    ['object', [1], false],
    ['object', 'text', false],
    ['object', '', false],
    ['object', 1, false],
    ['array', [], true],
    ['array', [1, 2], true],
    ['array', { 0: 1 }, false],
    ['null', null, true],
    ['null', 'null', false],
    ['null', 0, false],
    ['any', null, true],
    ['any', 0, true],
    ['any', '', true],
    ['any', [], true],
  ];
  it.each(placeholderCases)('placeholder %s against %j -> %s', (placeholder, value, ok) => {
    expect(compareArguments({ x: placeholder }, { x: value }, 'partial')).toEqual(ok ? [] : ['x']);
  });

  it('trims and ignores case in placeholders', () => {
    expect(compareArguments({ x: ' String ' }, { x: 'a' }, 'partial')).toEqual([]);
    expect(compareArguments({ x: 'ARRAY' }, { x: [] }, 'partial')).toEqual([]);
  });
  it('requires the key to be present for every placeholder, "any" included', () => {
    for (const placeholder of ['any', 'string', 'number', 'boolean', 'object', 'array', 'null']) {
      expect(compareArguments({ x: placeholder }, {}, 'partial')).toEqual(['x']);
      expect(compareArguments({ x: placeholder }, { x: undefined }, 'partial')).toEqual(['x']);
    }
  });
  it('only applies placeholders to top-level values', () => {
    expect(compareArguments({ filter: { q: 'string' } }, { filter: { q: 'cats' } }, 'partial')).toEqual(['filter']);
    expect(compareArguments({ filter: { q: 'string' } }, { filter: { q: 'string' } }, 'partial')).toEqual([]);
  });
  it('mixes placeholders and literals', () => {
    expect(compareArguments({ q: 'string', limit: 10 }, { q: 'cats', limit: 10 }, 'partial')).toEqual([]);
    expect(compareArguments({ q: 'string', limit: 10 }, { q: 3, limit: 11 }, 'partial')).toEqual(['q', 'limit']);
  });
});

describe('compareArguments — exact and ignore', () => {
  it('exact requires whole-object equality regardless of key order', () => {
    expect(compareArguments({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, 'exact')).toEqual([]);
  });
  it('exact lists the union of differing keys', () => {
    expect(compareArguments({ a: 1, b: 2, c: 3 }, { a: 1, b: 20, d: 4 }, 'exact')).toEqual(['b', 'c', 'd']);
  });
  it('exact with {} requires no arguments', () => {
    expect(compareArguments({}, {}, 'exact')).toEqual([]);
    expect(compareArguments({}, { a: 1 }, 'exact')).toEqual(['a']);
  });
  it('exact does not interpret placeholders', () => {
    expect(compareArguments({ q: 'string' }, { q: 'cats' }, 'exact')).toEqual(['q']);
    expect(compareArguments({ q: 'string' }, { q: 'string' }, 'exact')).toEqual([]);
  });
  it('ignore never reports a mismatch', () => {
    expect(compareArguments({ a: 1 }, { b: 2 }, 'ignore')).toEqual([]);
  });
});

describe('scoreToolCalls — argument modes', () => {
  it('partial: passes with extra actual arguments', () => {
    const result = score([exp('search', { q: 'cats' })], [call('search', { q: 'cats', limit: 10 })]);
    expect(result).toEqual({
      passed: true,
      missing: [],
      unexpected: [],
      argumentMismatches: [],
      toolErrors: [],
      reasons: [],
    });
  });
  it('partial: a differing value is an argument mismatch naming the key', () => {
    const expected = exp('search', { q: 'cats', limit: 10 });
    const actual = call('search', { q: 'dogs', limit: 10 });
    const result = score([expected], [actual]);
    expect(result.passed).toBe(false);
    expect(result.missing).toEqual([]);
    expect(result.unexpected).toEqual([]);
    expect(result.argumentMismatches).toEqual([{ expected, actual, mismatchedArguments: ['q'] }]);
    expect(result.reasons).toHaveLength(1);
    expect(result.reasons[0]).toContain('search');
    expect(result.reasons[0]).toContain('q (expected "cats", got "dogs")');
  });
  it('partial: placeholders pass and fail through scoring', () => {
    expect(
      score([exp('search', { q: 'string', limit: 'number' })], [call('search', { q: 'x', limit: 3 })]).passed,
    ).toBe(true);
    const failed = score([exp('search', { q: 'string', limit: 'number' })], [call('search', { q: 'x' })]);
    expect(failed.passed).toBe(false);
    expect(failed.argumentMismatches[0].mismatchedArguments).toEqual(['limit']);
    expect(failed.reasons[0]).toContain('limit (expected <number>, got nothing)');
  });
  it('exact: an extra actual argument fails', () => {
    const result = score([exp('search', { q: 'cats' })], [call('search', { q: 'cats', limit: 10 })], {
      argumentMatching: 'exact',
    });
    expect(result.passed).toBe(false);
    expect(result.argumentMismatches[0].mismatchedArguments).toEqual(['limit']);
  });
  it('exact: identical arguments in another key order pass', () => {
    const result = score([exp('search', { q: 'cats', limit: 10 })], [call('search', { limit: 10, q: 'cats' })], {
      argumentMatching: 'exact',
    });
    expect(result.passed).toBe(true);
  });
  it('ignore: only names matter', () => {
    const result = score([exp('search', { q: 'cats' })], [call('search', { totally: 'different' })], {
      argumentMatching: 'ignore',
    });
    expect(result.passed).toBe(true);
    expect(result.argumentMismatches).toEqual([]);
  });
  it('an expected call without arguments matches any arguments', () => {
    expect(score([exp('search')], [call('search', { q: 'x' })], { argumentMatching: 'exact' }).passed).toBe(true);
  });
});

describe('scoreToolCalls — order: ignore', () => {
  it('passes with the calls in any order', () => {
    const result = score([exp('a'), exp('b'), exp('c')], [call('c'), call('a'), call('b')]);
    expect(result.passed).toBe(true);
  });
  it('pairs each expected call with the first unused compatible call', () => {
    const first = call('search', { q: 'cats' });
    const second = call('search', { q: 'cats' });
    const result = score([exp('search', { q: 'cats' })], [first, second]);
    expect(result.passed).toBe(true);
    expect(result.unexpected).toHaveLength(1);
    expect(result.unexpected[0]).toBe(second);
  });
  it('matches repeated tool names by arguments, not position', () => {
    const result = score(
      [exp('search', { q: 'dogs' }), exp('search', { q: 'cats' })],
      [call('search', { q: 'cats' }), call('search', { q: 'dogs' })],
    );
    expect(result.passed).toBe(true);
    expect(result.unexpected).toEqual([]);
  });
  it('does not let a loose expectation steal the only call a stricter one can match', () => {
    const result = score(
      [exp('search', { q: 'string' }), exp('search', { q: 'cats' })],
      [call('search', { q: 'cats' }), call('search', { q: 'dogs' })],
    );
    expect(result.passed).toBe(true);
    expect(result.argumentMismatches).toEqual([]);
  });
  it('reports a mismatch against the first unused same-name call when none is compatible', () => {
    const wrong1 = call('search', { q: 'birds' });
    const wrong2 = call('search', { q: 'fish' });
    const expected = exp('search', { q: 'cats' });
    const result = score([expected], [call('other'), wrong1, wrong2]);
    expect(result.passed).toBe(false);
    expect(result.missing).toEqual([]);
    expect(result.argumentMismatches).toEqual([{ expected, actual: wrong1, mismatchedArguments: ['q'] }]);
    expect(result.unexpected.map((c) => c.arguments)).toEqual([{}, { q: 'fish' }]);
  });
  it('compatible pairings are made before mismatch pairings', () => {
    // "dogs" has no compatible call; the only call is compatible with "cats", so "dogs" is missing.
    const dogs = exp('search', { q: 'dogs' });
    const result = score([dogs, exp('search', { q: 'cats' })], [call('search', { q: 'cats' })]);
    expect(result.missing).toEqual([dogs]);
    expect(result.argumentMismatches).toEqual([]);
    expect(result.reasons[0]).toContain('every call was matched to another expectation');
  });
  it('keeps the greedy pairing when it works, leaving the later call unexpected', () => {
    // the loose expectation takes call #1 and "any arguments" takes call #2; re-routing would leave call #2 over instead
    const calls = [call('search', { q: 'x' }), call('search', { q: 5 }), call('search', { q: 'z' })];
    const result = score([exp('search', { q: 'string' }), exp('search')], calls);
    expect(result.passed).toBe(true);
    expect(result.unexpected).toEqual([calls[2]]);
  });
  it('a tool that was never called is missing', () => {
    const result = score([exp('a'), exp('b')], [call('a')]);
    expect(result.passed).toBe(false);
    expect(result.missing).toEqual([exp('b')]);
    expect(result.reasons).toEqual(['Missing tool call "b" (expected #2): the tool was never called']);
  });
  it('does not pair two expectations with one call: [x, a, a] against the calls [x, a] fails', () => {
    const result = score([exp('x'), exp('a'), exp('a')], [call('x'), call('a')]);
    expect(result.passed).toBe(false);
    expect(result.missing).toEqual([exp('a')]);
    expect(result.argumentMismatches).toEqual([]);
    expect(result.reasons).toEqual([
      'Missing tool call "a" (expected #3): "a" was called 1 time(s), but every call was matched to another expectation',
    ]);
  });
  it('expecting a tool twice needs two calls', () => {
    const result = score([exp('a'), exp('a')], [call('a')]);
    expect(result.passed).toBe(false);
    expect(result.missing).toEqual([exp('a')]);
  });
  it('extra calls are unexpected but allowed by default', () => {
    const result = score([exp('a')], [call('x'), call('a'), call('y')]);
    expect(result.passed).toBe(true);
    expect(result.unexpected.map((c) => c.toolName)).toEqual(['x', 'y']);
  });
});

describe('scoreToolCalls — order: strict', () => {
  const strict = { toolCallOrder: 'strict' } as const;
  it('passes when position i matches position i', () => {
    expect(score([exp('a'), exp('b')], [call('a'), call('b')], strict).passed).toBe(true);
  });
  it('fails on swapped calls: both expected missing, both actual unexpected', () => {
    const result = score([exp('a'), exp('b')], [call('b'), call('a')], strict);
    expect(result.passed).toBe(false);
    expect(result.missing.map((c) => c.toolName)).toEqual(['a', 'b']);
    expect(result.unexpected.map((c) => c.toolName)).toEqual(['b', 'a']);
    expect(result.reasons[0]).toBe('Missing tool call "a" at position 1: "b" was called there instead');
  });
  it('the same calls pass with order ignore', () => {
    expect(score([exp('a'), exp('b')], [call('b'), call('a')]).passed).toBe(true);
  });
  it('reports a mismatch at the same position with the same name', () => {
    const expected = exp('b', { n: 1 });
    const actual = call('b', { n: 2 });
    const result = score([exp('a'), expected], [call('a'), actual], strict);
    expect(result.argumentMismatches).toEqual([{ expected, actual, mismatchedArguments: ['n'] }]);
    expect(result.missing).toEqual([]);
  });
  it('does not look at other positions for a compatible call', () => {
    const result = score([exp('a', { n: 1 })], [call('a', { n: 2 }), call('a', { n: 1 })], strict);
    expect(result.passed).toBe(false);
    expect(result.argumentMismatches).toHaveLength(1);
    expect(result.unexpected).toEqual([call('a', { n: 1 })]);
  });
  it('too few calls leaves the rest missing', () => {
    const result = score([exp('a'), exp('b')], [call('a')], strict);
    expect(result.missing).toEqual([exp('b')]);
    expect(result.reasons[0]).toContain('only 1 tool call(s) were made');
  });
  it('trailing calls are extras, subject to the cap', () => {
    expect(score([exp('a')], [call('a'), call('z')], strict).passed).toBe(true);
    const capped = score([exp('a')], [call('a'), call('z')], { ...strict, maxExtraToolCalls: 0 });
    expect(capped.passed).toBe(false);
    expect(capped.unexpected).toEqual([call('z')]);
  });
});

describe('scoreToolCalls — order: superset', () => {
  const superset = { toolCallOrder: 'superset' } as const;
  it('passes when expected calls are an ordered subsequence with extras in between', () => {
    const result = score([exp('a'), exp('c')], [call('x'), call('a'), call('b'), call('c'), call('y')], superset);
    expect(result.passed).toBe(true);
    expect(result.unexpected.map((c) => c.toolName)).toEqual(['x', 'b', 'y']);
  });
  it('the same interleaving fails in strict mode', () => {
    expect(
      score([exp('a'), exp('c')], [call('x'), call('a'), call('b'), call('c')], { toolCallOrder: 'strict' }).passed,
    ).toBe(false);
  });
  it('fails when the order is wrong', () => {
    const result = score([exp('a'), exp('b')], [call('b'), call('a')], superset);
    expect(result.passed).toBe(false);
    expect(result.missing).toEqual([exp('b')]);
    expect(result.unexpected).toEqual([call('b')]);
    expect(result.reasons[0]).toContain('not in the expected order');
  });
  it('skips incompatible same-name calls to find a compatible one later', () => {
    const result = score(
      [exp('search', { q: 'cats' }), exp('open')],
      [call('search', { q: 'dogs' }), call('search', { q: 'cats' }), call('open')],
      superset,
    );
    expect(result.passed).toBe(true);
    expect(result.unexpected).toEqual([call('search', { q: 'dogs' })]);
  });
  it('reports a mismatch with a same-name call in the right place', () => {
    const expected = exp('search', { q: 'cats' });
    const result = score(
      [exp('open'), expected, exp('close')],
      [call('open'), call('search', { q: 'dogs' }), call('close')],
      superset,
    );
    expect(result.passed).toBe(false);
    expect(result.argumentMismatches).toEqual([
      { expected, actual: call('search', { q: 'dogs' }), mismatchedArguments: ['q'] },
    ]);
    expect(result.missing).toEqual([]);
    expect(result.unexpected).toEqual([]);
  });
  it('does not pair a mismatch out of order', () => {
    const expected = exp('search', { q: 'cats' });
    const result = score([exp('open'), expected], [call('search', { q: 'dogs' }), call('open')], superset);
    expect(result.missing).toEqual([expected]);
    expect(result.argumentMismatches).toEqual([]);
    expect(result.unexpected).toEqual([call('search', { q: 'dogs' })]);
  });
  it('pairs a mismatch with the first same-name call when nothing comes before it', () => {
    const result = score([exp('search', { q: 'cats' })], [call('search', { q: 'dogs' })], superset);
    expect(result.missing).toEqual([]);
    expect(result.argumentMismatches).toHaveLength(1);
  });
  it("does not pair a mismatch with a call after the next expectation's match", () => {
    const expected = exp('search', { q: 'cats' });
    const result = score([expected, exp('open')], [call('open'), call('search', { q: 'dogs' })], superset);
    expect(result.missing).toEqual([expected]);
    expect(result.argumentMismatches).toEqual([]);
    expect(result.unexpected).toEqual([call('search', { q: 'dogs' })]);
    expect(result.reasons).toEqual([
      'Missing tool call "search" (expected #1): "search" was called, but not in the expected order',
    ]);
  });
  it('pairs two mismatches in a row, each with its own same-name call', () => {
    const search = exp('search', { q: 'cats' });
    const open = exp('open', { id: 1 });
    const result = score([search, open], [call('search', { q: 'dogs' }), call('open', { id: 2 })], superset);
    expect(result.missing).toEqual([]);
    expect(result.argumentMismatches).toEqual([
      { expected: search, actual: call('search', { q: 'dogs' }), mismatchedArguments: ['q'] },
      { expected: open, actual: call('open', { id: 2 }), mismatchedArguments: ['id'] },
    ]);
  });
  it('handles repeated tools in sequence', () => {
    expect(score([exp('a'), exp('a')], [call('a'), call('b'), call('a')], superset).passed).toBe(true);
    expect(score([exp('a'), exp('a')], [call('a'), call('b')], superset).passed).toBe(false);
  });
});

describe('scoreToolCalls — reasons', () => {
  it('names both positions of an argument mismatch and every differing key', () => {
    const result = score(
      [exp('open'), exp('search', { q: 'cats', limit: 'number' })],
      [call('search', { q: 'dogs' }), call('open')],
    );
    expect(result.reasons).toEqual([
      'Arguments of "search" (expected #2, call #1) do not match: q (expected "cats", got "dogs"), limit (expected <number>, got nothing)',
    ]);
  });
  it('keeps a value of exactly 80 characters whole', () => {
    const result = score([exp('search', { q: 'x'.repeat(78) })], [call('search', { q: 'y' })]);
    expect(result.reasons[0]).toContain(`q (expected "${'x'.repeat(78)}", got "y")`);
  });
  it('shortens a long value to 80 characters', () => {
    const result = score([exp('search', { q: 'x'.repeat(100) })], [call('search', { q: 'y' })]);
    expect(result.reasons).toEqual([
      `Arguments of "search" (expected #1, call #1) do not match: q (expected "${'x'.repeat(76)}..., got "y")`,
    ]);
  });
  it('describes values JSON cannot write, and arguments that are not an object', () => {
    const big = score([exp('search', { q: 'cats' })], [call('search', { q: 10n })]);
    expect(big.reasons).toEqual([
      'Arguments of "search" (expected #1, call #1) do not match: q (expected "cats", got 10)',
    ]);
    const none = score(
      [exp('search', { q: 'cats' })],
      [{ toolName: 'search', arguments: null as unknown as Record<string, unknown> }],
    );
    expect(none.reasons).toEqual([
      'Arguments of "search" (expected #1, call #1) do not match: q (expected "cats", got nothing)',
    ]);
  });
  it('reads placeholder names literally in exact mode', () => {
    const result = score([exp('search', { q: 'string' })], [call('search', { q: 'x' })], { argumentMatching: 'exact' });
    expect(result.reasons).toEqual([
      'Arguments of "search" (expected #1, call #1) do not match: q (expected "string", got "x")',
    ]);
  });
  it('says why a call is missing in each order mode', () => {
    expect(score([exp('a'), exp('b')], [call('a')], { toolCallOrder: 'strict' }).reasons).toEqual([
      'Missing tool call "b" at position 2: only 1 tool call(s) were made',
    ]);
    expect(score([exp('a'), exp('z')], [call('a')], { toolCallOrder: 'superset' }).reasons).toEqual([
      'Missing tool call "z" (expected #2): the tool was never called',
    ]);
    expect(score([exp('a'), exp('b')], [call('b'), call('a')], { toolCallOrder: 'superset' }).reasons).toEqual([
      'Missing tool call "b" (expected #2): "b" was called, but not in the expected order',
    ]);
    expect(score([exp('search', { q: 'cats' })], [], { toolCallOrder: 'superset' }).reasons).toEqual([
      'Missing tool call "search" (expected #1): the tool was never called',
    ]);
  });
});

describe('scoreToolCalls — maxExtraToolCalls', () => {
  it('null means unlimited', () => {
    const actual = Array.from({ length: 20 }, (_, i) => call(`extra${i}`));
    expect(score([exp('a')], [call('a'), ...actual], { maxExtraToolCalls: null }).passed).toBe(true);
  });
  it('passes within the cap and fails above it', () => {
    const actual = [call('a'), call('x'), call('y')];
    expect(score([exp('a')], actual, { maxExtraToolCalls: 2 }).passed).toBe(true);
    const result = score([exp('a')], actual, { maxExtraToolCalls: 1 });
    expect(result.passed).toBe(false);
    expect(result.reasons).toEqual(['2 unexpected tool call(s) exceed the limit of 1: x, y']);
  });
  it('0 allows no extra call', () => {
    expect(score([exp('a')], [call('a')], { maxExtraToolCalls: 0 }).passed).toBe(true);
    expect(score([exp('a')], [call('a'), call('a')], { maxExtraToolCalls: 0 }).passed).toBe(false);
  });
  it('mismatched pairs are not extras', () => {
    const result = score([exp('a', { n: 1 })], [call('a', { n: 2 })], { maxExtraToolCalls: 0 });
    expect(result.unexpected).toEqual([]);
    expect(result.reasons).toHaveLength(1);
  });
});

describe('scoreToolCalls — negative tests', () => {
  it('passes when no tool was called', () => {
    const result = score([], [], undefined, { isNegativeTest: true });
    expect(result.passed).toBe(true);
    expect(result.reasons).toEqual([]);
  });
  it('fails when any tool was called, with every call unexpected', () => {
    const actual = [call('a'), call('b')];
    const result = score([], actual, undefined, { isNegativeTest: true });
    expect(result.passed).toBe(false);
    expect(result.unexpected).toEqual(actual);
    expect(result.missing).toEqual([]);
    expect(result.reasons).toEqual(['Negative test expected no tool calls, but 2 were made: a, b']);
  });
  it('ignores the expected list and the extras cap', () => {
    const result = score([exp('a')], [call('a')], { maxExtraToolCalls: null }, { isNegativeTest: true });
    expect(result.passed).toBe(false);
    expect(result.missing).toEqual([]);
    expect(result.unexpected).toEqual([call('a')]);
    expect(score([exp('a')], [], undefined, { isNegativeTest: true }).passed).toBe(true);
  });
  it('still fails on an iteration error', () => {
    const result = score([], [], undefined, { isNegativeTest: true, iterationError: 'model timed out' });
    expect(result.passed).toBe(false);
    expect(result.reasons).toEqual(['Iteration error: model timed out']);
  });
});

describe('scoreToolCalls — empty expectations and no calls', () => {
  it('an empty expected list passes with any calls when uncapped', () => {
    const result = score([], [call('a'), call('b')]);
    expect(result.passed).toBe(true);
    expect(result.unexpected).toHaveLength(2);
  });
  it('an empty expected list passes with no calls', () => {
    expect(score([], []).passed).toBe(true);
  });
  it('an empty expected list fails when the extras cap is exceeded', () => {
    expect(score([], [call('a')], { maxExtraToolCalls: 1 }).passed).toBe(true);
    expect(score([], [call('a'), call('b')], { maxExtraToolCalls: 1 }).passed).toBe(false);
  });
  it('a non-empty expected list with no calls fails with everything missing', () => {
    for (const toolCallOrder of ['ignore', 'strict', 'superset'] as const) {
      const result = score([exp('a'), exp('b', { q: 'x' })], [], { toolCallOrder });
      expect(result.passed).toBe(false);
      expect(result.missing).toEqual([exp('a'), exp('b', { q: 'x' })]);
      expect(result.reasons).toHaveLength(2);
    }
  });
});

describe('scoreToolCalls — tool errors and iteration errors', () => {
  it('a tool error result fails the iteration by default and is listed', () => {
    const failing = call('a', {}, true);
    const result = score([exp('a')], [failing]);
    expect(result.passed).toBe(false);
    expect(result.toolErrors).toEqual([failing]);
    expect(result.reasons).toEqual(['Tool call "a" (call #1) returned an error']);
  });
  it('an error from an unexpected extra call also counts', () => {
    const result = score([exp('a')], [call('a'), call('b', {}, true)]);
    expect(result.passed).toBe(false);
    expect(result.reasons).toEqual(['Tool call "b" (call #2) returned an error']);
  });
  it('isError false is not an error', () => {
    expect(score([exp('a')], [call('a', {}, false)]).toolErrors).toEqual([]);
  });
  it('failOnToolError false passes despite tool errors but still lists them', () => {
    const failing = call('a', {}, true);
    const result = score([exp('a')], [failing], undefined, { failOnToolError: false });
    expect(result.passed).toBe(true);
    expect(result.toolErrors).toEqual([failing]);
    expect(result.reasons).toEqual([]);
  });
  it('failOnToolError false does not excuse other failures', () => {
    const result = score([exp('a'), exp('b')], [call('a', {}, true)], undefined, { failOnToolError: false });
    expect(result.passed).toBe(false);
    expect(result.missing).toEqual([exp('b')]);
  });
  it('an iteration error fails an otherwise passing iteration', () => {
    const result = score([exp('a')], [call('a')], undefined, { iterationError: 'step limit reached' });
    expect(result.passed).toBe(false);
    expect(result.reasons).toEqual(['Iteration error: step limit reached']);
  });
  it('a blank or null iteration error is empty', () => {
    expect(score([exp('a')], [call('a')], undefined, { iterationError: '' }).passed).toBe(true);
    expect(score([exp('a')], [call('a')], undefined, { iterationError: '   ' }).passed).toBe(true);
    expect(score([exp('a')], [call('a')], undefined, { iterationError: null }).passed).toBe(true);
  });
  it('failOnToolError false also ignores the iteration error', () => {
    expect(score([exp('a')], [call('a')], undefined, { iterationError: 'boom', failOnToolError: false }).passed).toBe(
      true,
    );
  });
  it('collects every reason when several rules fail', () => {
    const result = score(
      [exp('a', { n: 1 }), exp('b')],
      [call('a', { n: 2 }, true), call('x'), call('y')],
      { maxExtraToolCalls: 1 },
      { iterationError: 'boom' },
    );
    expect(result.passed).toBe(false);
    expect(result.reasons).toHaveLength(5);
    expect(result.missing).toEqual([exp('b')]);
    expect(result.argumentMismatches).toHaveLength(1);
    expect(result.unexpected.map((c) => c.toolName)).toEqual(['x', 'y']);
    expect(result.toolErrors).toHaveLength(1);
  });
});
