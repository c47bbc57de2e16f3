import { describe, expect, it } from 'vitest';
import type { CaseAggregate, SideAggregates, ToolAggregate } from '../../db/evalCompare.js';
import { compareSides } from '../../domain/evals/compare/compare.js';

const kase = (key: string, passed: number, total: number, extra: Partial<CaseAggregate> = {}): CaseAggregate => ({
  key,
  caseId: key.startsWith('title:') ? null : key,
  title: key,
  query: `q ${key}`,
  passed,
  total,
  ...extra,
});

function side(cases: CaseAggregate[], tools: ToolAggregate[] = []): SideAggregates {
  const total = cases.reduce((s, c) => s + c.total, 0);
  const passed = cases.reduce((s, c) => s + c.passed, 0);
  return {
    cases,
    tools,
    confusions: [],
    performance: {
      total,
      passed,
      latencyMs: { p50: 1, p95: 2 },
      tokens: { input: 1, output: 1, total: 2 },
      costUsd: null,
    },
  };
}

describe('compareSides', () => {
  it('classifies every case and orders regressions first', () => {
    const base = side([
      kase('a', 10, 10),
      kase('b', 3, 3),
      kase('gone', 2, 2),
      kase('same', 2, 2),
      kase('bad', 1, 4),
      kase('up', 0, 10),
    ]);
    const current = side([
      kase('same', 2, 2),
      kase('bad', 1, 4),
      kase('new', 1, 1),
      kase('up', 10, 10),
      kase('b', 2, 3),
      kase('a', 2, 10),
    ]);
    const result = compareSides(base, current);
    expect(result.cases.map((c) => [c.title, c.status])).toEqual([
      ['a', 'regressed'],
      ['up', 'fixed'],
      ['b', 'changed'],
      ['new', 'new_case'],
      ['gone', 'removed_case'],
      ['bad', 'unchanged_failed'],
      ['same', 'unchanged_passed'],
    ]);
    expect(result.suite.verdict).toBe('regressed');
    expect(result.suite.counts).toMatchObject({ regressed: 1, fixed: 1, changed: 1, new_case: 1, removed_case: 1 });
    const b = result.cases.find((c) => c.title === 'b')!;
    expect(b.significant).toBe(false);
    expect(b.difference).toBeCloseTo(-1 / 3, 10);
    expect(b.adjustedPValue).toBeGreaterThanOrEqual(b.pValue!);
  });

  it('matches a case without a common id by title + query (an ingested result)', () => {
    const base = side([kase('title:x', 5, 5, { title: 'x', query: 'same' })]);
    const current = side([kase('case_1', 5, 5, { title: 'x', query: 'same' })]);
    expect(compareSides(base, current).cases).toEqual([
      expect.objectContaining({ status: 'unchanged_passed', caseId: 'case_1' }),
    ]);
    const other = side([kase('case_2', 5, 5, { title: 'x', query: 'different' })]);
    expect(compareSides(base, other).cases.map((c) => c.status)).toEqual(['new_case', 'removed_case']);
  });

  it('says no_significant_change for noise and improved for a fix alone', () => {
    expect(compareSides(side([kase('a', 3, 3)]), side([kase('a', 2, 3)])).suite.verdict).toBe('no_significant_change');
    expect(compareSides(side([kase('a', 0, 10)]), side([kase('a', 10, 10)])).suite.verdict).toBe('improved');
  });

  it('computes precision, recall and F1 of tool selection, and the coverage from the calls', () => {
    const base = side(
      [kase('a', 1, 1)],
      [
        { toolName: 'echo', matched: 8, called: 10, expected: 8 },
        { toolName: 'never', matched: 0, called: 0, expected: 2 },
      ],
    );
    const current = side(
      [kase('a', 1, 1)],
      [
        { toolName: 'echo', matched: 4, called: 4, expected: 8 },
        { toolName: 'stray', matched: 0, called: 3, expected: 0 },
      ],
    );
    const { tools, coverage } = compareSides(base, current);
    const echo = tools.find((t) => t.toolName === 'echo')!;
    expect(echo.base).toEqual({ called: 10, expected: 8, precision: 0.8, recall: 1, f1: (2 * 0.8) / 1.8 });
    expect(echo.current).toMatchObject({ precision: 1, recall: 0.5 });
    expect(echo.f1Difference).toBeCloseTo(2 / 3 - (2 * 0.8) / 1.8, 10);
    expect(tools.find((t) => t.toolName === 'stray')!.current).toMatchObject({ precision: 0, recall: null, f1: null });
    expect(coverage).toEqual({ source: 'calls', expectedNeverCalled: ['never'], calledNeverExpected: ['stray'] });
  });
});
