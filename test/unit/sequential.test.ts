import { describe, expect, it } from 'vitest';
import { seededRandom, simulate } from '../../bench/adaptiveSimulation.js';
import {
  adaptiveDesign,
  alphaSpent,
  decideLook,
  lookLevels,
  normalCdf,
  normalQuantile,
  plannedLooks,
  type SequentialDesign,
} from '../../domain/evals/compare/sequential.js';

const design = (over: Partial<SequentialDesign> = {}): SequentialDesign => ({ ...adaptiveDesign(5, 30), ...over });

describe('the normal distribution', () => {
  it('matches tabulated values of Phi and its quantile', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 12);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 10);
    expect(normalCdf(-1)).toBeCloseTo(0.158655253931457, 10);
    expect(normalCdf(-4)).toBeCloseTo(3.16712418331e-5, 12);
    expect(normalCdf(5)).toBeCloseTo(1 - 2.866515718791939e-7, 12);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 9);
    expect(normalQuantile(0.1)).toBeCloseTo(-1.281551565544601, 9);
  });
});

describe('the planned looks and their levels', () => {
  it('looks after the first round, then every round, the last one at maxIterations', () => {
    expect(plannedLooks(design())).toEqual([5, 10, 15, 20, 25, 30]);
    expect(plannedLooks(design({ firstRound: 3, roundSize: 4, maxIterations: 12 }))).toEqual([3, 7, 11, 12]);
    expect(plannedLooks(design({ firstRound: 10, maxIterations: 10 }))).toEqual([10]);
  });

  it("spends alpha as Lan-DeMets' O'Brien-Fleming function (0.0056 at t = 0.5 for alpha 0.05)", () => {
    expect(alphaSpent({ alpha: 0.05, spending: 'obrien-fleming' }, 0.5)).toBeCloseTo(0.005575, 5);
    expect(alphaSpent({ alpha: 0.05, spending: 'pocock' }, 0.5)).toBeCloseTo(0.05 * Math.log(1 + (Math.E - 1) / 2), 12);
    expect(alphaSpent({ alpha: 0.05, spending: 'obrien-fleming' }, 1)).toBe(0.05);
  });

  it('gives levels that are positive or zero and sum to alpha, for every spending function', () => {
    for (const spending of ['obrien-fleming', 'pocock', 'bonferroni'] as const) {
      const levels = lookLevels(design({ spending }));
      expect(levels).toHaveLength(6);
      for (const l of levels) expect(l).toBeGreaterThanOrEqual(0);
      expect(levels.reduce((a, b) => a + b, 0)).toBeCloseTo(0.05, 12);
    }
    expect(lookLevels(design({ spending: 'bonferroni' }))[0]).toBeCloseTo(0.05 / 6, 12);
  });

  it('refuses a design that cannot work', () => {
    expect(() => plannedLooks(design({ maxIterations: 4 }))).toThrow(/at least the first round/);
    expect(() => plannedLooks(design({ roundSize: 0 }))).toThrow(/positive integer/);
    expect(() => plannedLooks(design({ alpha: 0 }))).toThrow(/alpha/);
  });
});

describe('a look', () => {
  const base = { passed: 30, total: 30 };

  it('decides a clear regression, with the direction', () => {
    const d = decideLook(design(), 1, { passed: 0, total: 10 }, base);
    expect(d.decision).toBe('decided_regressed');
    const f = decideLook(design(), 1, { passed: 10, total: 10 }, { passed: 0, total: 30 });
    expect(f.decision).toBe('decided_fixed');
  });

  it('stops a case no continuation could decide as unchanged, and runs another round for an open one', () => {
    expect(decideLook(design(), 1, { passed: 10, total: 10 }, base).decision).toBe('decided_unchanged');
    const open = decideLook(design(), 0, { passed: 3, total: 5 }, base);
    expect(open).toMatchObject({ decision: 'continue', more: 5 });
  });

  it('does not decide at the first look what only the fixed-n level would (alpha is spent, not reused)', () => {
    // p = 0.0097 at 2/5 vs 30/30: significant at 0.05, not at the first look's O'Brien-Fleming level
    const d = decideLook(design(), 0, { passed: 2, total: 5 }, base);
    expect(d.pValue).toBeLessThan(0.05);
    expect(d.decision).toBe('continue');
  });

  it('ends undecided at the last look as budget', () => {
    expect(decideLook(design(), 5, { passed: 27, total: 30 }, base).decision).toBe('budget');
  });
});

describe('simulation: adaptive iterations vs a fixed-n run at maxIterations', () => {
  const alpha = 0.05;
  const d = design();
  // A share's upper and lower 99.9% bounds (normal approximation; the replications are many).
  const bounds = (share: number, n: number) => {
    const half = 3.29 * Math.sqrt((share * (1 - share)) / n);
    return { low: share - half, high: share + half };
  };

  it('keeps the false-decision rate under no change at or below alpha, where naive peeking exceeds it', () => {
    const replications = 4000;
    for (const [i, rate] of [0.3, 0.5, 0.7, 0.9].entries()) {
      const r = simulate(d, { base: rate, current: rate }, replications, seededRandom(1000 + i));
      expect(r.adaptiveDecided).toBeLessThanOrEqual(alpha);
      if (rate === 0.5) {
        // Fisher at 0.05 on every look: the same data, the naive procedure, clearly above alpha
        expect(bounds(r.naiveDecided, replications).low).toBeGreaterThan(alpha);
      }
      // and the adaptive run spends far fewer calls than the fixed one
      expect(r.adaptiveCalls).toBeLessThan(0.5 * r.fixedCalls);
    }
  });

  it('reaches the fixed-n decisions on real changes with fewer model calls', () => {
    for (const [i, scenario] of [
      { base: 1, current: 0.7 },
      { base: 0.9, current: 0.5 },
      { base: 0.5, current: 0.9 },
    ].entries()) {
      const r = simulate(adaptiveDesign(10, 50), scenario, 2000, seededRandom(2000 + i));
      expect(r.agreement).toBeGreaterThanOrEqual(0.95);
      expect(r.adaptiveDecided).toBeGreaterThanOrEqual(0.95);
      expect(r.adaptiveCalls).toBeLessThan(0.6 * r.fixedCalls);
    }
  });
});
