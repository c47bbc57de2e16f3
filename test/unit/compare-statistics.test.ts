import { describe, expect, it } from 'vitest';
import {
  benjaminiHochberg,
  fisherExact,
  ITERATIONS_NEEDED_CAP,
  iterationsNeeded,
  logFactorial,
  rateDifference,
  sampleSizeTwoProportions,
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

describe('iterations needed for 80% power', () => {
  it("matches R's power.prop.test(p1 = .50, p2 = .75, power = .90): n = 76.7 per group", () => {
    expect(sampleSizeTwoProportions(0.5, 0.75, 1.959963984540054, 1.2815515655446004)).toBeCloseTo(76.7, 1);
  });

  it('matches the pooled-variance table value for 0.5 vs 0.75 at 80% power: 58 per group', () => {
    expect(Math.ceil(sampleSizeTwoProportions(0.5, 0.75)!)).toBe(58);
  });

  it('is null without a difference or a sample, and capped for tiny ones', () => {
    expect(iterationsNeeded(counts(3, 0), counts(3, 0))).toBeNull();
    expect(iterationsNeeded(counts(0, 0), counts(3, 0))).toBeNull();
    expect(iterationsNeeded(counts(9999, 1), counts(10000, 0))).toBe(ITERATIONS_NEEDED_CAP);
    expect(iterationsNeeded(counts(2, 1), counts(3, 0))).toBeGreaterThan(3);
  });
});
