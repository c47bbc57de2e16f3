import { describe, expect, it } from 'vitest';
import {
  benjaminiHochberg,
  fisherExact,
  logFactorial,
  rateDifference,
  significantAtFdr,
} from '../../domain/evals/compare/statistics.js';

const counts = (passed: number, failed: number) => ({ passed, total: passed + failed });

describe("Fisher's exact test (two-sided)", () => {
  it("gives Fisher's lady-tasting-tea table [[3,1],[1,3]] p = 0.4857", () => {
    expect(fisherExact(counts(3, 1), counts(1, 3))).toBeCloseTo(0.4857, 4);
  });

  it('gives the textbook table [[1,9],[11,3]] p = 0.002759 (Wikipedia, "Fisher\'s exact test")', () => {
    expect(fisherExact(counts(1, 9), counts(11, 3))).toBeCloseTo(0.002759, 6);
  });

  it('is symmetric in the samples and 1 when nothing can differ', () => {
    expect(fisherExact(counts(10, 0), counts(2, 8))).toBeCloseTo(fisherExact(counts(2, 8), counts(10, 0)), 12);
    expect(fisherExact(counts(3, 0), counts(3, 0))).toBe(1);
    expect(fisherExact(counts(0, 0), counts(3, 1))).toBe(1);
    expect(fisherExact(counts(2, 2), counts(2, 2))).toBe(1);
  });

  it('calls 10/10 -> 2/10 significant and 3/3 -> 2/3 not', () => {
    // 10/10 vs 2/10: P = 2 * C(12,10)C(8,0)/C(20,10) = 2 * 66/184756
    expect(fisherExact(counts(10, 0), counts(2, 8))).toBeCloseTo((2 * 66) / 184756, 10);
    expect(fisherExact(counts(3, 0), counts(2, 1))).toBe(1);
  });

  it('stays finite and exact enough for large counts', () => {
    const p = fisherExact(counts(900, 100), counts(850, 150));
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.01);
    expect(logFactorial(5)).toBeCloseTo(Math.log(120), 12);
  });

  it('refuses counts that are not a sample', () => {
    expect(() => fisherExact({ passed: 4, total: 3 }, counts(1, 1))).toThrow(RangeError);
    expect(() => fisherExact({ passed: 1.5, total: 3 }, counts(1, 1))).toThrow(RangeError);
  });
});

describe('Benjamini-Hochberg', () => {
  // Benjamini & Hochberg (1995), section 4: fifteen p-values; at q = 0.05 the procedure rejects the four smallest.
  const pValues = [
    0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719, 0.6528, 0.759, 1,
  ];

  it("rejects the four smallest of the paper's fifteen", () => {
    expect(significantAtFdr(pValues).filter(Boolean)).toHaveLength(4);
    expect(significantAtFdr(pValues).slice(0, 4)).toEqual([true, true, true, true]);
  });

  it("adjusts like R's p.adjust(method = 'BH'), in the input's order", () => {
    const adjusted = benjaminiHochberg([0.04, 0.01, 0.03, 0.02]);
    // sorted 0.01, 0.02, 0.03, 0.04 -> 0.04, 0.04, 0.04, 0.04
    expect(adjusted).toEqual([0.04, 0.04, 0.04, 0.04]);
    expect(benjaminiHochberg([0.5, 0.001])).toEqual([0.5, 0.002]);
    expect(benjaminiHochberg([])).toEqual([]);
    expect(() => benjaminiHochberg([1.5])).toThrow(RangeError);
  });
});

describe("Newcombe's hybrid score interval for a difference of proportions", () => {
  it('reproduces Newcombe (1998), table II: 56/70 - 48/80 = 0.2, 95% CI 0.0524 to 0.3339 (method 10)', () => {
    const d = rateDifference(counts(56, 14), counts(48, 32));
    expect(d.value).toBeCloseTo(0.2, 10);
    expect(d.interval.low).toBeCloseTo(0.0524, 4);
    expect(d.interval.high).toBeCloseTo(0.3339, 4);
  });

  it('reproduces Newcombe (1998), table II: 9/10 - 3/10 = 0.6, 95% CI 0.1705 to 0.8090', () => {
    const d = rateDifference(counts(9, 1), counts(3, 7));
    expect(d.interval.low).toBeCloseTo(0.1705, 4);
    expect(d.interval.high).toBeCloseTo(0.809, 4);
  });

  it('stays within [-1, 1] at the extremes', () => {
    const d = rateDifference(counts(0, 10), counts(10, 0));
    expect(d.value).toBe(-1);
    expect(d.interval.low).toBeGreaterThanOrEqual(-1);
    expect(d.interval.high).toBeLessThan(0);
  });
});

describe('the edges of the comparison statistics', () => {
  it('refuses a sample that is not one, naming the sample and the counts', () => {
    expect(() => fisherExact({ passed: 4, total: 3 }, counts(1, 1))).toThrow(
      'a must have integer counts with 0 <= passed <= total, got 4/3',
    );
    expect(() => fisherExact(counts(1, 1), { passed: 1.5, total: 3 })).toThrow('b must have integer counts');
    expect(() => fisherExact(counts(1, 1), { passed: 1, total: 2.5 })).toThrow('got 1/2.5');
    expect(() => fisherExact(counts(1, 1), { passed: -1, total: 3 })).toThrow('got -1/3');
    expect(() => rateDifference({ passed: 2, total: 1 }, counts(1, 1))).toThrow('current must have integer counts');
    expect(() => rateDifference(counts(1, 1), { passed: 2, total: 1 })).toThrow('base must have integer counts');
  });

  it('takes ln(n!) of non-negative integers only', () => {
    expect(logFactorial(0)).toBe(0);
    expect(() => logFactorial(-1)).toThrow('n must be a non-negative integer, got -1');
    expect(() => logFactorial(2.5)).toThrow('n must be a non-negative integer, got 2.5');
  });

  // With one table possible the p-value is 1 by definition; summed through log-factorials in the hundreds of
  // thousands, that one table's probability comes out as 0.9999999981 or so, under the 1 - 1e-9 that rounding is
  // forgiven. Each of the four ways to have a single table is checked on its own.
  it('is exactly 1 when only one table has the margins, however large the other sample', () => {
    expect(fisherExact(counts(0, 0), counts(290_000, 290_000))).toBe(1);
    expect(fisherExact(counts(290_000, 290_000), counts(0, 0))).toBe(1);
    expect(fisherExact(counts(0, 130_000), counts(0, 260_000))).toBe(1);
    expect(fisherExact(counts(130_000, 0), counts(260_000, 0))).toBe(1);
  });

  it('refuses p-values outside 0..1 and keeps 0 and 1', () => {
    expect(() => benjaminiHochberg([0.5, -0.01])).toThrow('p-values must be between 0 and 1, got -0.01');
    expect(() => benjaminiHochberg([Number.NaN])).toThrow(RangeError);
    expect(benjaminiHochberg([0, 1])).toEqual([0, 1]);
  });

  it('counts an adjusted p-value equal to the rate as significant', () => {
    expect(significantAtFdr([0.05])).toEqual([true]);
    expect(significantAtFdr([0.04, 0.01, 0.03, 0.02], 0.04)).toEqual([true, true, true, true]);
    expect(significantAtFdr([0.04, 0.01, 0.03, 0.02], 0.039)).toEqual([false, false, false, false]);
  });

  it('gives an empty sample the rate 0 and the Wilson interval [0, 1]', () => {
    // 3/4 has the Wilson interval 0.30064 to 0.95441; with p = 0 and [0, 1] on the empty side, method 10 gives
    // L = -0.75 - hypot(0, 0.95441 - 0.75) and U = -0.75 + hypot(1, 0.75 - 0.30064).
    const d = rateDifference(counts(0, 0), counts(3, 1));
    expect(d.value).toBe(-0.75);
    expect(d.interval.low).toBeCloseTo(-0.954413, 6);
    expect(d.interval.high).toBeCloseTo(0.346322, 6);
    const mirrored = rateDifference(counts(3, 1), counts(0, 0));
    expect(mirrored.value).toBe(0.75);
    expect(mirrored.interval.low).toBeCloseTo(-0.346322, 6);
    expect(mirrored.interval.high).toBeCloseTo(0.954413, 6);
  });
});
