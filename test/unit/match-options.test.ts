import { describe, expect, it } from 'vitest';
import { normalizeMatchOptions, toPublicMatchOptions } from '../../domain/evals/matchOptions.js';
import { scoreToolCalls } from '../../domain/evals/scoring.js';
import { matchOptionsSchema } from '../../api/schemas/evals.js';

const read = (input: unknown) => matchOptionsSchema.safeParse(input);

describe("match options: three vocabularies read into the scorer's form", () => {
  it.each([
    [
      'internal names pass through',
      { toolCallOrder: 'strict', maxExtraToolCalls: 2, argumentMatching: 'exact' },
      { toolCallOrder: 'strict', maxExtraToolCalls: 2, argumentMatching: 'exact' },
    ],
    ['any = ignore', { toolCallOrder: 'any' }, { toolCallOrder: 'ignore' }],
    ['in-order = superset', { toolCallOrder: 'in-order' }, { toolCallOrder: 'superset' }],
    ['exact = strict', { toolCallOrder: 'exact' }, { toolCallOrder: 'strict' }],
    ['extraToolCalls: a number', { extraToolCalls: 0 }, { maxExtraToolCalls: 0 }],
    ['extraToolCalls: unlimited = null', { extraToolCalls: 'unlimited' }, { maxExtraToolCalls: null }],
    ['allowExtraToolCalls: false = no extra calls', { allowExtraToolCalls: false }, { maxExtraToolCalls: 0 }],
    ['allowExtraToolCalls: true = any number', { allowExtraToolCalls: true }, { maxExtraToolCalls: null }],
    ['arguments = argumentMatching', { arguments: 'ignore' }, { argumentMatching: 'ignore' }],
    [
      'the public vocabulary whole',
      { toolCallOrder: 'in-order', extraToolCalls: 1, arguments: 'exact' },
      { toolCallOrder: 'superset', maxExtraToolCalls: 1, argumentMatching: 'exact' },
    ],
    [
      'two spellings that agree',
      {
        maxExtraToolCalls: 0,
        extraToolCalls: 0,
        allowExtraToolCalls: false,
        argumentMatching: 'partial',
        arguments: 'partial',
      },
      { maxExtraToolCalls: 0, argumentMatching: 'partial' },
    ],
    ["nothing given: nothing stored (the scorer's defaults apply)", {}, {}],
  ])('%s', (_name, input, expected) => {
    const parsed = read(input);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data).toEqual(expected);
  });

  it.each([
    ['maxExtraToolCalls and extraToolCalls', { maxExtraToolCalls: 2, extraToolCalls: 'unlimited' }, 'extraToolCalls'],
    [
      'allowExtraToolCalls: false and maxExtraToolCalls: 3',
      { allowExtraToolCalls: false, maxExtraToolCalls: 3 },
      'allowExtraToolCalls',
    ],
    [
      'extraToolCalls: 1 and allowExtraToolCalls: true',
      { extraToolCalls: 1, allowExtraToolCalls: true },
      'allowExtraToolCalls',
    ],
    ['argumentMatching and arguments', { argumentMatching: 'exact', arguments: 'partial' }, 'arguments'],
  ])('refuses spellings that disagree: %s', (_name, input, path) => {
    const parsed = read(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues).toEqual([
      expect.objectContaining({ path: [path], message: expect.stringContaining('disagree') }),
    ]);
  });

  it.each([
    ['an unknown key', { toolCallOrdr: 'strict' }],
    ['an unknown order', { toolCallOrder: 'sorted' }],
    ['a negative cap', { extraToolCalls: -1 }],
    ['a cap that is text', { extraToolCalls: 'none' }],
    ['an unknown argument mode', { arguments: 'fuzzy' }],
  ])('refuses %s', (_name, input) => {
    expect(read(input).success).toBe(false);
  });

  it('reads back into the public vocabulary unchanged', () => {
    for (const input of [
      { toolCallOrder: 'any', extraToolCalls: 'unlimited', arguments: 'partial' },
      { toolCallOrder: 'in-order', extraToolCalls: 0 },
      { toolCallOrder: 'exact', arguments: 'ignore' },
    ]) {
      expect(toPublicMatchOptions(read(input).data!)).toEqual(input);
    }
  });

  it('scores with what the public vocabulary says: in-order allows calls in between, extraToolCalls: 0 none', () => {
    const expected = [{ toolName: 'a' }, { toolName: 'c' }];
    const actual = [
      { toolName: 'a', arguments: {} },
      { toolName: 'b', arguments: {} },
      { toolName: 'c', arguments: {} },
    ];
    const score = (input: unknown) => scoreToolCalls({ expected, actual, matchOptions: read(input).data }).passed;
    expect(score({ toolCallOrder: 'in-order' })).toBe(true);
    expect(score({ toolCallOrder: 'exact' })).toBe(false);
    expect(score({ toolCallOrder: 'in-order', extraToolCalls: 0 })).toBe(false);
    expect(score({ toolCallOrder: 'in-order', allowExtraToolCalls: false })).toBe(false);
    expect(
      scoreToolCalls({
        expected,
        actual: [...actual].reverse(),
        matchOptions: read({ toolCallOrder: 'in-order' }).data,
      }).passed,
    ).toBe(false);
  });
});

describe('normalizeMatchOptions', () => {
  it('names the spellings that disagree and what each one means', () => {
    expect(
      normalizeMatchOptions({ maxExtraToolCalls: 1, extraToolCalls: 'unlimited', allowExtraToolCalls: false }),
    ).toEqual({
      options: { maxExtraToolCalls: 1 },
      conflicts: [
        {
          fields: ['maxExtraToolCalls', 'extraToolCalls', 'allowExtraToolCalls'],
          message:
            '`maxExtraToolCalls` (at most 1 extra call) and `extraToolCalls` (any number of extra calls) and `allowExtraToolCalls` (at most 0 extra calls) disagree: give one of them',
        },
      ],
    });
    expect(
      normalizeMatchOptions({ argumentMatching: 'exact', arguments: 'ignore', toolCallOrder: 'in-order' }),
    ).toEqual({
      options: { toolCallOrder: 'superset', argumentMatching: 'exact' },
      conflicts: [
        {
          fields: ['argumentMatching', 'arguments'],
          message: '`argumentMatching` (exact) and `arguments` (ignore) disagree: give one of them',
        },
      ],
    });
  });
  it('keeps an internal order name as it is', () => {
    expect(normalizeMatchOptions({ toolCallOrder: 'ignore' })).toEqual({
      options: { toolCallOrder: 'ignore' },
      conflicts: [],
    });
    expect(normalizeMatchOptions({})).toStrictEqual({ options: {}, conflicts: [] });
    expect(toPublicMatchOptions({})).toStrictEqual({});
  });
});
