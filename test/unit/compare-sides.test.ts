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

  // The suite verdict follows from the cases' verdicts: a CI gate must be explainable by the cases it names.
  it('does not call a suite regressed when no case is: one case of 100 going 10/10 -> 3/10 (q = 0.31)', () => {
    const steady = Array.from({ length: 99 }, (_, i) => kase(`c${i}`, 10, 10));
    const base = side([...steady, kase('drifts', 10, 10)]);
    const current = side([...steady, kase('drifts', 3, 10)]);
    const { suite, cases } = compareSides(base, current);
    expect(cases[0]).toMatchObject({ title: 'drifts', status: 'changed', significant: false });
    expect(cases[0].adjustedPValue).toBeCloseTo(0.31, 2);
    expect(suite.verdict).toBe('no_significant_change');
    // the pooled test is still reported, named as such, and says what it saw
    expect(suite.pooled.pValue).toBeLessThan(0.05);
    expect(suite.pooled.decides).toBe(false);
    expect(suite.verdictReason).toMatch(/no case changed significantly/);
  });

  it('never calls a suite regressed for a new case alone, however badly it does', () => {
    const base = side([kase('a', 10, 10), kase('b', 10, 10)]);
    const current = side([kase('a', 10, 10), kase('b', 10, 10), kase('fresh', 0, 10)]);
    const { suite } = compareSides(base, current);
    expect(suite.counts.new_case).toBe(1);
    expect(suite.verdict).toBe('no_significant_change');
    expect(suite.verdictReason).toBe('no case changed significantly; 1 new and 0 removed case reported, not judged');
    // the pooled figures count matched cases only
    expect(suite.pooled.current).toEqual({ passed: 20, total: 20, passRate: 1 });
    expect(suite.pooled.pValue).toBe(1);
  });

  it('reports a renamed ingested case as new plus removed, and not as a regression', () => {
    const base = side([kase('title:old name', 10, 10, { title: 'old name' }), kase('k', 5, 5)]);
    const current = side([kase('title:new name', 0, 10, { title: 'new name' }), kase('k', 5, 5)]);
    const { suite } = compareSides(base, current);
    expect(suite.counts).toMatchObject({ new_case: 1, removed_case: 1, regressed: 0 });
    expect(suite.verdict).toBe('no_significant_change');
    expect(suite.verdictReason).toMatch(/1 new and 1 removed case/);
  });

  it('names the cases a regressed verdict rests on', () => {
    const base = side([kase('a', 10, 10), kase('b', 10, 10)]);
    const current = side([kase('a', 0, 10), kase('b', 10, 10)]);
    const { suite } = compareSides(base, current);
    expect(suite.verdict).toBe('regressed');
    expect(suite.verdictReason).toMatch(/^1 of 2 matched cases regressed significantly/);
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
