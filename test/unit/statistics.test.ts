import { describe, expect, it } from 'vitest';
import {
  passAtK,
  passHatK,
  percentile,
  summarizeIterations,
  summarizeModels,
  wilsonInterval,
  type IterationOutcome,
} from '../../domain/evals/statistics.js';

/** Exact binomial coefficient for small inputs, to check the product forms against. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return Math.round(result);
}

describe('wilsonInterval', () => {
  it('matches known values for 8/10', () => {
    const { low, high } = wilsonInterval(8, 10);
    expect(low).toBeCloseTo(0.4902, 4);
    expect(high).toBeCloseTo(0.9433, 4);
  });
  it('is symmetric around 0.5 for 5/10', () => {
    const { low, high } = wilsonInterval(5, 10);
    expect(low).toBeCloseTo(0.2366, 4);
    expect(high).toBeCloseTo(0.7634, 4);
    expect(low + high).toBeCloseTo(1, 12);
  });
  it('pins the ends at exactly 0 and 1', () => {
    expect(wilsonInterval(0, 10).low).toBe(0);
    expect(wilsonInterval(0, 10).high).toBeCloseTo(0.2775, 4);
    expect(wilsonInterval(10, 10).high).toBe(1);
    expect(wilsonInterval(10, 10).low).toBeCloseTo(0.7225, 4);
  });
  it('matches a large-sample value (95/100)', () => {
    const { low, high } = wilsonInterval(95, 100);
    expect(low).toBeCloseTo(0.8882, 4);
    expect(high).toBeCloseTo(0.9785, 4);
  });
  it('widens with a larger z', () => {
    const narrow = wilsonInterval(8, 10, 1);
    const wide = wilsonInterval(8, 10, 2.576);
    expect(wide.low).toBeLessThan(narrow.low);
    expect(wide.high).toBeGreaterThan(narrow.high);
    expect(wide.low).toBeCloseTo(0.4008, 4);
    expect(wide.high).toBeCloseTo(0.9599, 4);
  });
  it('contains the point estimate and stays within [0, 1]', () => {
    for (let total = 1; total <= 30; total++) {
      for (let passed = 0; passed <= total; passed++) {
        const { low, high } = wilsonInterval(passed, total);
        expect(low).toBeGreaterThanOrEqual(0);
        expect(high).toBeLessThanOrEqual(1);
        expect(low).toBeLessThanOrEqual(passed / total + 1e-12);
        expect(high).toBeGreaterThanOrEqual(passed / total - 1e-12);
      }
    }
  });
  it('is exactly 0 or 1 at the ends for every sample size (no rounding residue)', () => {
    for (let total = 1; total <= 30; total++) {
      expect(wilsonInterval(0, total).low).toBe(0);
      expect(wilsonInterval(total, total).high).toBe(1);
    }
  });
  it('returns the whole range when nothing was observed', () => {
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });
  it('rejects invalid counts', () => {
    expect(() => wilsonInterval(11, 10)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 10)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 10)).toThrow(RangeError);
    expect(() => wilsonInterval(1, 10, 0)).toThrow(RangeError);
  });
  it('says which argument is wrong', () => {
    expect(() => wilsonInterval(11, 10)).toThrow('passed (11) must not exceed total (10)');
    expect(() => wilsonInterval(1.5, 10)).toThrow('passed must be a non-negative integer, got 1.5');
    expect(() => wilsonInterval(1, -10)).toThrow('total must be a non-negative integer, got -10');
    for (const z of [0, -1, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(() => wilsonInterval(1, 10, z)).toThrow(`z must be a positive finite number, got ${z}`);
    }
    expect(() => passAtK(10, 11, 1)).toThrow('c (11) must not exceed n (10)');
    expect(() => passAtK(10, 3, 0)).toThrow('k (0) must be between 1 and n (10)');
    expect(() => passAtK(10, 3, 11)).toThrow('k (11) must be between 1 and n (10)');
    expect(() => passHatK(-1, 0, 1)).toThrow('n must be a non-negative integer, got -1');
    expect(() => passHatK(3, 0.5, 1)).toThrow('c must be a non-negative integer, got 0.5');
    expect(() => passHatK(3, 1, 1.5)).toThrow('k must be a non-negative integer, got 1.5');
    expect(() => percentile([1], -1)).toThrow('p must be between 0 and 100, got -1');
    expect(() => summarizeIterations([], { k: 0 })).toThrow('k must be a positive integer, got 0');
  });
});

describe('passAtK', () => {
  it('equals the pass rate for k = 1', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passAtK(7, 7, 1)).toBe(1);
    expect(passAtK(7, 0, 1)).toBe(0);
  });
  it('matches known values', () => {
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12); // 1 - C(3,2)/C(5,2) = 1 - 3/10
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12); // 1 - C(7,5)/C(10,5)
  });
  it('is 1 when fewer than k attempts failed', () => {
    expect(passAtK(10, 3, 8)).toBe(1);
    expect(passAtK(10, 1, 10)).toBe(1);
  });
  it('is 0 when nothing passed', () => {
    expect(passAtK(10, 0, 5)).toBe(0);
  });
  it('agrees with the binomial definition for small n', () => {
    for (let n = 1; n <= 12; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          expect(passAtK(n, c, k)).toBeCloseTo(1 - choose(n - c, k) / choose(n, k), 10);
        }
      }
    }
  });
  it('stays finite and in range for large n', () => {
    const value = passAtK(1000, 10, 100);
    expect(value).toBeGreaterThan(0.6);
    expect(value).toBeLessThan(1);
  });
  it('rejects invalid arguments', () => {
    expect(() => passAtK(10, 11, 1)).toThrow(RangeError);
    expect(() => passAtK(10, 3, 0)).toThrow(RangeError);
    expect(() => passAtK(10, 3, 11)).toThrow(RangeError);
    expect(() => passAtK(10, -1, 1)).toThrow(RangeError);
    expect(() => passAtK(10, 3, 1.5)).toThrow(RangeError);
  });
});

describe('passHatK', () => {
  it('matches known values', () => {
    expect(passHatK(10, 10, 3)).toBe(1);
    expect(passHatK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passHatK(5, 3, 2)).toBeCloseTo(0.3, 12); // C(3,2)/C(5,2) = 3/10
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6, 12);
  });
  it('is 0 when fewer than k attempts passed', () => {
    expect(passHatK(10, 2, 3)).toBe(0);
    expect(passHatK(10, 0, 1)).toBe(0);
  });
  it('agrees with the binomial definition for small n', () => {
    for (let n = 1; n <= 12; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          expect(passHatK(n, c, k)).toBeCloseTo(choose(c, k) / choose(n, k), 10);
        }
      }
    }
  });
  it('never exceeds pass@k', () => {
    for (let c = 0; c <= 8; c++) {
      for (let k = 1; k <= 8; k++) expect(passHatK(8, c, k)).toBeLessThanOrEqual(passAtK(8, c, k) + 1e-12);
    }
  });
  it('rejects invalid arguments', () => {
    expect(() => passHatK(3, 4, 1)).toThrow(RangeError);
    expect(() => passHatK(3, 1, 4)).toThrow(RangeError);
  });
});

describe('percentile', () => {
  it('interpolates linearly between closest ranks', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([1, 2, 3, 4], 95)).toBeCloseTo(3.85, 12);
    expect(percentile([1, 2, 3, 4], 25)).toBeCloseTo(1.75, 12);
    expect(percentile([10, 20, 30], 50)).toBe(20);
  });
  it('returns the extremes at 0 and 100', () => {
    expect(percentile([5, 1, 9], 0)).toBe(1);
    expect(percentile([5, 1, 9], 100)).toBe(9);
  });
  it('does not depend on input order and does not mutate the input', () => {
    const values = [400, 100, 300, 200];
    expect(percentile(values, 50)).toBe(250);
    expect(values).toEqual([400, 100, 300, 200]);
  });
  it('handles a single value', () => {
    expect(percentile([42], 0)).toBe(42);
    expect(percentile([42], 95)).toBe(42);
  });
  it('returns null for no values and ignores non-finite ones', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([Number.NaN], 50)).toBeNull();
    expect(percentile([1, Number.NaN, 3], 50)).toBe(2);
  });
  it('rejects p outside 0..100', () => {
    expect(() => percentile([1], -1)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });
});

describe('summarizeIterations', () => {
  const it_ = (
    caseId: string,
    passed: boolean,
    durationMs: number | null = null,
    tokens: [number, number] = [0, 0],
  ): IterationOutcome => ({
    caseId,
    passed,
    durationMs,
    inputTokens: tokens[0],
    outputTokens: tokens[1],
    totalTokens: tokens[0] + tokens[1],
  });

  const iterations: IterationOutcome[] = [
    it_('a', true, 100, [10, 5]),
    it_('b', false, null, [20, 2]),
    it_('a', true, 300, [10, 5]),
    it_('b', false, 200, [20, 2]),
    it_('a', false, 400, [1, 1]),
  ];

  it('counts, rates and sums', () => {
    const stats = summarizeIterations(iterations);
    expect(stats.total).toBe(5);
    expect(stats.passed).toBe(2);
    expect(stats.failed).toBe(3);
    expect(stats.passRate).toBeCloseTo(0.4, 12);
    expect(stats.passRateInterval).toEqual(wilsonInterval(2, 5));
    expect(stats.tokens).toEqual({ input: 61, output: 15, total: 76 });
  });

  it('summarizes latency over the known durations', () => {
    const { latencyMs } = summarizeIterations(iterations);
    expect(latencyMs.p50).toBe(250);
    expect(latencyMs.p95).toBeCloseTo(385, 9);
    expect(latencyMs.mean).toBe(250);
  });

  it('defaults k to the fewest iterations of any case and averages over cases', () => {
    const stats = summarizeIterations(iterations);
    // a: n=3, c=2; b: n=2, c=0; k = 2
    expect(stats.passAtK?.k).toBe(2);
    expect(stats.passAtK?.value).toBeCloseTo((1 + 0) / 2, 12);
    expect(stats.passHatK?.k).toBe(2);
    expect(stats.passHatK?.value).toBeCloseTo((1 / 3 + 0) / 2, 12);
  });

  it('defaults k to the smallest case even when it is not the last one', () => {
    // c: n=2, c=1 (smallest, first); d: n=4, c=2; k = 2, not 4
    const stats = summarizeIterations([
      it_('c', true),
      it_('c', false),
      it_('d', true),
      it_('d', false),
      it_('d', true),
      it_('d', false),
    ]);
    expect(stats.passAtK?.k).toBe(2);
    expect(stats.cases.map((c) => c.passAtK)).toEqual([1, passAtK(4, 2, 2)]);
    expect(stats.passHatK).toEqual({ k: 2, value: (0 + passHatK(4, 2, 2)) / 2 });
  });

  it('reports per-case statistics in order of first appearance', () => {
    const stats = summarizeIterations(iterations);
    expect(stats.cases.map((c) => c.caseId)).toEqual(['a', 'b']);
    const [a, b] = stats.cases;
    expect(a).toMatchObject({ caseId: 'a', total: 3, passed: 2, passAtK: 1 });
    expect(a.passRate).toBeCloseTo(2 / 3, 12);
    expect(a.passHatK).toBeCloseTo(1 / 3, 12);
    expect(b).toEqual({ caseId: 'b', total: 2, passed: 0, passRate: 0, passAtK: 0, passHatK: 0, costUsd: null });
  });

  it('uses opts.k and leaves out cases with fewer iterations', () => {
    const stats = summarizeIterations(iterations, { k: 3 });
    expect(stats.passAtK).toEqual({ k: 3, value: 1 });
    expect(stats.passHatK).toEqual({ k: 3, value: 0 });
    expect(stats.cases[1].passAtK).toBeNull();
    expect(stats.cases[1].passHatK).toBeNull();
  });

  it('k = 1 gives the mean per-case pass rate', () => {
    const stats = summarizeIterations(iterations, { k: 1 });
    expect(stats.passAtK?.value).toBeCloseTo((2 / 3 + 0) / 2, 12);
    expect(stats.passHatK?.value).toBeCloseTo((2 / 3 + 0) / 2, 12);
  });

  it('returns null pass@k when no case has k iterations', () => {
    const stats = summarizeIterations(iterations, { k: 4 });
    expect(stats.passAtK).toBeNull();
    expect(stats.passHatK).toBeNull();
    expect(stats.cases.every((c) => c.passAtK === null && c.passHatK === null)).toBe(true);
  });

  it('counts the errored iterations apart from the failed ones (domain/evals/verdicts.ts): the three add up to total', () => {
    const stats = summarizeIterations([
      ...iterations,
      { ...it_('b', false), errored: true },
      { ...it_('a', true), errored: false },
    ]);
    expect(stats).toMatchObject({ total: 7, passed: 3, failed: 3, errored: 1 });
    expect(stats.passed + stats.failed + stats.errored).toBe(stats.total);
    expect(summarizeIterations(iterations).errored).toBe(0);
  });

  it('an errored iteration never passes, even when its row says passed (it could not be scored)', () => {
    const stats = summarizeIterations([{ ...it_('a', true), errored: true }]);
    expect(stats).toMatchObject({ total: 1, passed: 0, failed: 0, errored: 1, passRate: 0 });
    expect(stats.cases).toMatchObject([{ caseId: 'a', total: 1, passed: 0 }]);
  });

  it('handles a run with no iterations', () => {
    expect(summarizeIterations([])).toEqual({
      total: 0,
      passed: 0,
      failed: 0,
      errored: 0,
      passRate: 0,
      passRateInterval: { low: 0, high: 1 },
      passAtK: null,
      passHatK: null,
      tokens: { input: 0, output: 0, total: 0 },
      costUsd: 0,
      latencyMs: { p50: null, p95: null, mean: null },
      cases: [],
    });
  });

  it('leaves durations that are not finite out of the latency', () => {
    const stats = summarizeIterations([
      it_('a', true, 100),
      it_('a', true, Number.NaN),
      it_('a', true, Number.POSITIVE_INFINITY),
      it_('a', true, 300),
    ]);
    expect(stats.latencyMs).toEqual({ p50: 200, p95: 290, mean: 200 });
  });

  it('returns null latency when no iteration has a duration', () => {
    const stats = summarizeIterations([it_('a', true), it_('a', false)]);
    expect(stats.latencyMs).toEqual({ p50: null, p95: null, mean: null });
    expect(stats.passAtK).toEqual({ k: 2, value: 1 });
    expect(stats.passHatK).toEqual({ k: 2, value: 0 });
  });

  it('rejects a k that is not a positive integer', () => {
    expect(() => summarizeIterations(iterations, { k: 0 })).toThrow(RangeError);
    expect(() => summarizeIterations(iterations, { k: 1.5 })).toThrow(RangeError);
  });
});

describe('statistics of a run with several models', () => {
  const outcome = (
    caseId: string,
    model: string | null | undefined,
    provider: string | null | undefined,
    passed: boolean,
    durationMs: number | null,
    inputTokens: number,
    errored = false,
  ): IterationOutcome => ({
    caseId,
    model,
    provider,
    passed,
    errored,
    durationMs,
    inputTokens,
    outputTokens: 1,
    totalTokens: inputTokens + 1,
  });
  const outcomes = [
    outcome('c1', 'a', 'openai', true, 100, 10),
    outcome('c1', 'a', 'azure', true, 200, 20),
    outcome('c1', 'a', 'openai', false, 300, 10),
    outcome('c2', 'a', 'openai', true, 500, 10, true),
    outcome('c2', 'b', 'openai', false, null, Number.NaN),
    outcome('c2', 'b', 'openai', true, Number.NaN, 5),
    outcome('c3', 'a', undefined, true, 50, 1),
    outcome('c3', null, null, false, 70, 2),
  ];

  it('summarizes each model and provider apart, in order of first appearance', () => {
    expect(summarizeModels(outcomes)).toEqual([
      {
        model: 'a',
        provider: 'openai',
        total: 3,
        passed: 1, // the errored iteration never passes
        passRate: 1 / 3,
        wilson95: wilsonInterval(1, 3),
        tokens: { input: 30, output: 3, total: 33 },
        costUsd: null,
        latency: { p50: 300, p95: 480, mean: 300 },
      },
      {
        model: 'a',
        provider: 'azure',
        total: 1,
        passed: 1,
        passRate: 1,
        wilson95: wilsonInterval(1, 1),
        tokens: { input: 20, output: 1, total: 21 },
        costUsd: null,
        latency: { p50: 200, p95: 200, mean: 200 },
      },
      {
        model: 'b',
        provider: 'openai',
        total: 2,
        passed: 1,
        passRate: 0.5,
        wilson95: wilsonInterval(1, 2),
        // token counts that are not finite count as 0; no finite duration, no latency
        tokens: { input: 5, output: 2, total: 6 },
        costUsd: null,
        latency: { p50: null, p95: null, mean: null },
      },
      {
        model: 'a',
        provider: null,
        total: 1,
        passed: 1,
        passRate: 1,
        wilson95: wilsonInterval(1, 1),
        tokens: { input: 1, output: 1, total: 2 },
        costUsd: null,
        latency: { p50: 50, p95: 50, mean: 50 },
      },
      {
        model: null,
        provider: null,
        total: 1,
        passed: 0,
        passRate: 0,
        wilson95: wilsonInterval(0, 1),
        tokens: { input: 2, output: 1, total: 3 },
        costUsd: null,
        latency: { p50: 70, p95: 70, mean: 70 },
      },
    ]);
    expect(summarizeModels([])).toEqual([]);
  });

  it('gives one case entry per case, model and provider, a missing provider as null', () => {
    const { cases } = summarizeIterations(outcomes);
    expect(cases.map((c) => [c.caseId, c.model, c.provider, c.total, c.passed])).toEqual([
      ['c1', 'a', 'openai', 2, 1],
      ['c1', 'a', 'azure', 1, 1],
      ['c2', 'a', 'openai', 1, 0],
      ['c2', 'b', 'openai', 2, 1],
      ['c3', 'a', null, 1, 1],
      ['c3', null, null, 1, 0],
    ]);
  });

  it('leaves the model out of the case entries when the outcomes carry none', () => {
    const [entry] = summarizeIterations([outcome('c1', undefined, undefined, true, 10, 1)]).cases;
    expect('model' in entry).toBe(false);
    expect('provider' in entry).toBe(false);
  });
});
