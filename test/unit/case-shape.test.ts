import { describe, expect, it } from 'vitest';
import { caseShapeIssues, turnsExpectedToolCalls } from '../../domain/evals/caseShape.js';

const call = (toolName: string, args?: Record<string, unknown>) =>
  args ? { toolName, arguments: args } : { toolName };

const turns = [
  { prompt: 'first', expectedToolCalls: [call('search', { q: 'a' })] },
  { prompt: 'second', expectedToolCalls: [] },
  { prompt: 'third', expectedToolCalls: [call('fetch'), call('search', { q: 'b' })] },
];
const allCalls = [call('search', { q: 'a' }), call('fetch'), call('search', { q: 'b' })];

describe('turnsExpectedToolCalls', () => {
  it("is every turn's expected calls, in order, flattened one level", () => {
    expect(turnsExpectedToolCalls(turns)).toEqual(allCalls);
    expect(turnsExpectedToolCalls([])).toEqual([]);
    expect(turnsExpectedToolCalls([{ prompt: 'p', expectedToolCalls: [] }])).toEqual([]);
  });
});

describe('caseShapeIssues without turns', () => {
  it('has no issue for a plain case, with or without an output check', () => {
    expect(caseShapeIssues({ query: 'q', expectedToolCalls: [call('search')] })).toEqual([]);
    expect(caseShapeIssues({ query: 'q', expectedOutput: 'Paris', outputCheck: { mode: 'equals' } })).toEqual([]);
    expect(caseShapeIssues({ query: 'q', turns: null })).toEqual([]);
    expect(caseShapeIssues({})).toEqual([]);
  });

  it("reports the output check's problem at the case's own field", () => {
    expect(caseShapeIssues({ query: 'q', outputCheck: { mode: 'contains' } })).toEqual([
      { path: ['outputCheck'], message: 'an outputCheck needs an expectedOutput to check' },
    ]);
    expect(
      caseShapeIssues({ query: 'q', expectedOutput: '{', outputCheck: { mode: 'json-subset' } }, 'prompt'),
    ).toEqual([{ path: ['expectedOutput'], message: expect.stringMatching(/^json-subset check: /) as unknown }]);
  });

  it('refuses an empty expectedOutput, which every answer would pass, naming the case when it has a title', () => {
    for (const empty of ['', '  ', '\n\u00a0\t'])
      expect(caseShapeIssues({ title: 'Capital', query: 'q', expectedOutput: empty })).toEqual([
        {
          path: ['expectedOutput'],
          message: expect.stringMatching(/^case "Capital": an empty expectedOutput passes every answer/) as unknown,
        },
      ]);
    expect(caseShapeIssues({ turns: [{ prompt: 'p', expectedToolCalls: [], expectedOutput: '' }] })).toEqual([
      { path: ['turns', 0, 'expectedOutput'], message: expect.stringMatching(/^an empty expectedOutput/) as unknown },
    ]);
  });

  it('does not compare the query or the expected calls with anything', () => {
    expect(caseShapeIssues({ query: 'anything', expectedToolCalls: [call('x')], expectedOutput: 'y' })).toEqual([]);
  });
});

describe('caseShapeIssues with turns', () => {
  it('has no issue when the query is left out, null or the first prompt, and the calls are left out, empty or every turn’s', () => {
    for (const query of [undefined, null, 'first'])
      for (const expectedToolCalls of [undefined, null, [], allCalls])
        for (const expectedOutput of [undefined, null])
          for (const outputCheck of [undefined, null])
            expect(caseShapeIssues({ query, expectedToolCalls, expectedOutput, outputCheck, turns })).toEqual([]);
  });

  it("checks each turn's output check, at that turn's path", () => {
    const checked = [
      { prompt: 'first', expectedToolCalls: [], expectedOutput: 'ok', outputCheck: { mode: 'equals' as const } },
      { prompt: 'second', expectedToolCalls: [], outputCheck: { mode: 'contains' as const } },
      { prompt: 'third', expectedToolCalls: [], expectedOutput: '(', outputCheck: { mode: 'regex' as const } },
      { prompt: 'fourth', expectedToolCalls: [], expectedOutput: 'fine' },
    ];
    expect(caseShapeIssues({ turns: checked })).toEqual([
      { path: ['turns', 1, 'outputCheck'], message: 'an outputCheck needs an expectedOutput to check' },
      { path: ['turns', 2, 'expectedOutput'], message: expect.stringMatching(/^regex check: /) as unknown },
    ]);
  });

  it('refuses a query other than the first prompt, named as the request names it (query by default)', () => {
    expect(caseShapeIssues({ query: 'second', turns })).toEqual([
      { path: ['query'], message: "with turns, query is the first turn's prompt (or left out)" },
    ]);
    expect(caseShapeIssues({ query: '', turns }, 'prompt')).toEqual([
      { path: ['prompt'], message: "with turns, prompt is the first turn's prompt (or left out)" },
    ]);
  });

  it("refuses case-level expected calls that are not every turn's in order", () => {
    const issue = {
      path: ['expectedToolCalls'],
      message: "with turns, each turn lists its expectedToolCalls (the case's, when given, are every turn's in order)",
    };
    expect(caseShapeIssues({ expectedToolCalls: [call('search', { q: 'a' })], turns })).toEqual([issue]);
    expect(caseShapeIssues({ expectedToolCalls: [...allCalls].reverse(), turns })).toEqual([issue]);
    expect(
      caseShapeIssues({ expectedToolCalls: [call('other')], turns: [{ prompt: 'p', expectedToolCalls: [] }] }),
    ).toEqual([issue]);
  });

  it('refuses a case-level expected output or output check: each turn has its own', () => {
    expect(caseShapeIssues({ expectedOutput: '', turns })).toEqual([
      { path: ['expectedOutput'], message: 'with turns, each turn has its own expectedOutput' },
    ]);
    expect(caseShapeIssues({ outputCheck: { mode: 'equals' }, turns })).toEqual([
      { path: ['outputCheck'], message: 'with turns, each turn has its own outputCheck' },
    ]);
  });

  it('reports every issue at once, in order: the turns, the query, the calls, the output fields', () => {
    expect(
      caseShapeIssues(
        {
          query: 'not first',
          expectedToolCalls: [call('x')],
          expectedOutput: 'y',
          outputCheck: { mode: 'contains' },
          turns: [{ prompt: 'first', expectedToolCalls: [], outputCheck: { mode: 'equals' } }],
        },
        'prompt',
      ).map((i) => i.path),
    ).toEqual([['turns', 0, 'outputCheck'], ['prompt'], ['expectedToolCalls'], ['expectedOutput'], ['outputCheck']]);
  });
});
