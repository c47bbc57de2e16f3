import { describe, expect, it } from 'vitest';
import { fisherExact } from '../../domain/evals/compare/statistics.js';
import {
  continuityCorrected,
  fisherPower,
  ITERATIONS_NEEDED_CAP,
  iterationsNeeded,
  sampleSizeTwoProportions,
} from '../../domain/evals/compare/power.js';

const counts = (passed: number, failed: number) => ({ passed, total: passed + failed });

/** ln C(n, k) by summing logs: independent of the module's log-factorial cache. */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}
const binomial = (n: number, k: number, p: number) =>
  p === 0
    ? k === 0
      ? 1
      : 0
    : p === 1
      ? k === n
        ? 1
        : 0
      : Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p));

/**
 * The power of the two-sided Fisher test at 5% with n iterations on each side, by brute force: every one of the
 * (n+1)^2 outcomes, its probability under the true rates, and whether fisherExact itself rejects it.
 */
function bruteForcePower(n: number, p1: number, p2: number): number {
  let power = 0;
  for (let x1 = 0; x1 <= n; x1++) {
    for (let x2 = 0; x2 <= n; x2++) {
      if (fisherExact({ passed: x1, total: n }, { passed: x2, total: n }) <= 0.05) {
        power += binomial(n, x1, p1) * binomial(n, x2, p2);
      }
    }
  }
  return power;
}

/** (rates, n) -> power, computed with SciPy 1.x (scipy.stats.fisher_exact, scipy.stats.binom) by test/fixtures/fisher_power.py. */
const scipyReference: [number, number, number, number][] = [
  [1.0, 0.0, 2, 0],
  [1.0, 0.3, 6, 0.420175],
  [0.9, 0.5, 20, 0.742389],
  [0.8, 0.6, 82, 0.75932],
  [0.5, 0.3, 93, 0.751072],
];

describe('the power of the exact test Runway runs', () => {
  it('agrees with a brute-force enumeration through fisherExact at every size up to 25', () => {
    for (let n = 1; n <= 25; n++) {
      expect(fisherPower(n, 0.9, 0.4)).toBeCloseTo(bruteForcePower(n, 0.9, 0.4), 10);
      expect(fisherPower(n, 0.5, 0.5)).toBeCloseTo(bruteForcePower(n, 0.5, 0.5), 10);
    }
    // one iteration a side never rejects
    expect(fisherPower(1, 1, 0)).toBe(0);
  });

  it('agrees with a brute-force enumeration through fisherExact', () => {
    for (const [p1, p2, n] of [
      [1, 0, 2],
      [1, 0, 4],
      [1, 0.3, 6],
      [0.9, 0.5, 20],
      [0.7, 0.2, 17],
      [0.55, 0.45, 30],
    ]) {
      expect(fisherPower(n, p1, p2)).toBeCloseTo(bruteForcePower(n, p1, p2), 10);
    }
  });

  it('agrees with SciPy at the sizes the normal approximation used to recommend', () => {
    for (const [p1, p2, n, power] of scipyReference) expect(fisherPower(n, p1, p2)).toBeCloseTo(power, 5);
  });
});

/** The smallest n with 80% exact power, from the same SciPy script (searched upwards from the normal approximation). */
const scipyIterationsNeeded: [number, number, number, number][] = [
  [1.0, 0.0, 4, 1],
  [1.0, 0.3, 8, 0.805896],
  [0.9, 0.5, 23, 0.811422],
  [0.8, 0.6, 90, 0.80168],
  [0.5, 0.3, 102, 0.806148],
];

describe('iterations needed for 80% power', () => {
  // The finding: at the normal-approximation n, Fisher's power was 0% for 1.0 vs 0.0 (n = 2), 42% for 1.0 vs 0.3
  // (n = 6) and 74-76% for 0.9 vs 0.5, 0.8 vs 0.6 and 0.5 vs 0.3. The recommended n must deliver 80% for the exact
  // test, and be the smallest that does.
  const pairs: [number, number][] = [
    [1, 0],
    [1, 0.3],
    [0.9, 0.5],
    [0.8, 0.6],
    [0.5, 0.3],
  ];
  for (const [p1, p2] of pairs) {
    it(`delivers 80% power for ${p1} vs ${p2}, and no smaller n does`, () => {
      const base = counts(Math.round(p2 * 10), 10 - Math.round(p2 * 10));
      const current = counts(Math.round(p1 * 10), 10 - Math.round(p1 * 10));
      const n = iterationsNeeded(current, base)!;
      expect(bruteForcePower(n, p1, p2)).toBeGreaterThanOrEqual(0.8);
      expect(bruteForcePower(n - 1, p1, p2)).toBeLessThan(0.8);
    });
  }

  it('answers what SciPy finds', () => {
    for (const [p1, p2, n, power] of scipyIterationsNeeded) {
      expect(iterationsNeeded(counts(p1 * 10, 10 - p1 * 10), counts(p2 * 10, 10 - p2 * 10))).toBe(n);
      expect(fisherPower(n, p1, p2)).toBeCloseTo(power, 5);
    }
  });

  it('searches up to 200 exactly, and answers from the corrected approximation beyond', () => {
    // 0.7 vs 0.55: 174 exactly (the corrected approximation says 176)
    const n = iterationsNeeded(counts(70, 30), counts(55, 45))!;
    expect(n).toBe(174);
    expect(fisherPower(174, 0.7, 0.55)).toBeGreaterThanOrEqual(0.8);
    expect(fisherPower(173, 0.7, 0.55)).toBeLessThan(0.8);
    // 0.9 vs 0.8 needs more than 200: ceil(218.5)
    expect(iterationsNeeded(counts(90, 10), counts(80, 20))).toBe(219);
  }, 60_000);

  it('answers the same either way round', () => {
    expect(iterationsNeeded(counts(3, 7), counts(9, 1))).toBe(iterationsNeeded(counts(9, 1), counts(3, 7)));
  });

  it('is null without a difference or a sample, and capped for tiny ones', () => {
    expect(iterationsNeeded(counts(3, 0), counts(3, 0))).toBeNull();
    expect(iterationsNeeded(counts(0, 0), counts(3, 0))).toBeNull();
    expect(iterationsNeeded(counts(3, 1), counts(0, 0))).toBeNull();
    expect(iterationsNeeded(counts(9999, 1), counts(10000, 0))).toBe(ITERATIONS_NEEDED_CAP);
  });

  it('refuses counts that are not a sample', () => {
    expect(() => iterationsNeeded({ passed: 2, total: 1 }, counts(1, 1))).toThrow('current must have integer counts');
    expect(() => iterationsNeeded(counts(1, 1), { passed: 2, total: 1 })).toThrow('base must have integer counts');
  });
});

describe('the normal approximations beyond the exact range', () => {
  it("matches R's power.prop.test(p1 = .50, p2 = .75, power = .90): n = 76.7 per group", () => {
    expect(sampleSizeTwoProportions(0.5, 0.75, 1.959963984540054, 1.2815515655446004)).toBeCloseTo(76.7, 1);
  });

  it('matches the pooled-variance table value for 0.5 vs 0.75 at 80% power: 58 per group', () => {
    expect(Math.ceil(sampleSizeTwoProportions(0.5, 0.75)!)).toBe(58);
  });

  it('corrects for continuity as Fleiss tabulates: 0.5 vs 0.75, 58 -> 65.6', () => {
    // n' = n/4 (1 + sqrt(1 + 4/(n d)))^2 with n = 57.66, d = 0.25
    expect(continuityCorrected(sampleSizeTwoProportions(0.5, 0.75)!, 0.25)).toBeCloseTo(65.5, 0);
  });

  it('answers beyond the exact range from the corrected approximation', () => {
    const n = iterationsNeeded(counts(95, 5), counts(90, 10))!;
    expect(n).toBeGreaterThan(200);
    expect(n).toBe(Math.ceil(continuityCorrected(sampleSizeTwoProportions(0.95, 0.9)!, 0.05)));
  });

  it('takes rates in 0..1 only, the ends included', () => {
    expect(sampleSizeTwoProportions(0, 0.5)).toBeCloseTo(10.511, 3);
    expect(sampleSizeTwoProportions(1, 0.5)).toBeCloseTo(10.511, 3);
    expect(() => sampleSizeTwoProportions(-0.1, 0.5)).toThrow('rates must be in 0..1, got -0.1');
    expect(() => sampleSizeTwoProportions(0.5, 1.1)).toThrow('rates must be in 0..1, got 1.1');
    expect(() => sampleSizeTwoProportions(Number.NaN, 0.5)).toThrow(RangeError);
  });

  it('takes a positive whole number of iterations', () => {
    expect(() => fisherPower(0, 0.5, 0.5)).toThrow('n must be a positive integer, got 0');
    expect(() => fisherPower(2.5, 0.5, 0.5)).toThrow(RangeError);
    expect(() => fisherPower(3, 1.5, 0.5)).toThrow('rates must be in 0..1, got 1.5');
  });
});
