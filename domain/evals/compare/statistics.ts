/**
 * The statistics of a comparison between two samples of pass/fail outcomes. Pure: no I/O.
 *
 * - Fisher's exact test, two-sided, on the 2x2 table of passed/failed counts. The two-sided p-value is the sum of
 *   the probabilities of every table with the same margins that is no more likely than the observed one (the
 *   definition R's fisher.test uses, with the same relative tolerance of 1e-7 for ties). Probabilities come from
 *   the hypergeometric distribution through log-factorials, so counts in the thousands stay exact enough.
 * - Benjamini-Hochberg: adjusted p-values (step-up, monotone), and a case is significant when its adjusted value
 *   is at most the false-discovery rate (5% by default).
 * - The difference of two proportions (current - base) with Newcombe's hybrid score interval (method 10 of
 *   Newcombe 1998, "Interval estimation for the difference between independent proportions"), built from the two
 *   Wilson intervals: it stays inside [-1, 1] and behaves at 0/n and n/n, where the Wald interval does not.
 * How many iterations a comparison needs (the power of this Fisher test) is power.ts's.
 */
import { wilsonInterval, type Interval } from '../statistics.js';

/** One sample of pass/fail outcomes: how many passed out of how many. */
export interface PassCounts {
  passed: number;
  total: number;
}

/** Many samples' counts added up: the pooled sample. */
export function sumCounts(samples: readonly PassCounts[]): PassCounts {
  let passed = 0;
  let total = 0;
  for (const s of samples) {
    passed += s.passed;
    total += s.total;
  }
  return { passed, total };
}

const logFactorialCache: number[] = [0];

/** ln(n!) for a non-negative integer n, by summing logs (cached); exact to double precision. */
export function logFactorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
  for (let i = logFactorialCache.length; i <= n; i++) logFactorialCache[i] = logFactorialCache[i - 1] + Math.log(i);
  return logFactorialCache[n];
}

export function assertCounts(name: string, c: PassCounts): void {
  if (!Number.isInteger(c.passed) || !Number.isInteger(c.total) || c.passed < 0 || c.passed > c.total) {
    throw new RangeError(`${name} must have integer counts with 0 <= passed <= total, got ${c.passed}/${c.total}`);
  }
}

/**
 * Fisher's exact test, two-sided, for the table [[a.passed, a.failed], [b.passed, b.failed]]. 1 when either sample
 * is empty or every outcome is the same (nothing can differ).
 */
export function fisherExact(a: PassCounts, b: PassCounts): number {
  assertCounts('a', a);
  assertCounts('b', b);
  const n1 = a.total;
  const n2 = b.total;
  const passed = a.passed + b.passed;
  const n = n1 + n2;
  if (n1 === 0 || n2 === 0 || passed === 0 || passed === n) return 1;
  // P(X = x) for X the passed count of sample a, hypergeometric with margins n1, n2, passed.
  const constant =
    logFactorial(n1) + logFactorial(n2) + logFactorial(passed) + logFactorial(n - passed) - logFactorial(n);
  const logP = (x: number) =>
    constant - logFactorial(x) - logFactorial(n1 - x) - logFactorial(passed - x) - logFactorial(n2 - passed + x);
  const low = Math.max(0, passed - n2);
  const high = Math.min(n1, passed);
  const observed = logP(a.passed);
  // R's fisher.test: tables with d <= d_observed * (1 + 1e-7) count as at most as likely.
  const threshold = observed + Math.log1p(1e-7);
  let p = 0;
  for (let x = low; x <= high; x++) {
    const lp = logP(x);
    // Stryker disable next-line EqualityOperator: < and <= differ only for a log-probability exactly on the threshold, observed + log1p(1e-7), which sits inside the tie tolerance the test already grants
    if (lp <= threshold) p += Math.exp(lp);
  }
  // Rounding in the sum leaves 0.99999999999998 where every table counts: that is 1.
  // Stryker disable next-line EqualityOperator: > and >= differ only for a sum that is exactly the double 1 - 1e-9, and then 1 and that sum are the same p-value to within 1e-9
  return p > 1 - 1e-9 ? 1 : p;
}

/**
 * Benjamini-Hochberg adjusted p-values, in the input's order: q_(i) = min_{j >= i} p_(j) * m / j, capped at 1.
 * A hypothesis is rejected at false-discovery rate `rate` when its adjusted value is <= rate.
 */
export function benjaminiHochberg(pValues: number[]): number[] {
  for (const p of pValues) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`p-values must be between 0 and 1, got ${p}`);
  }
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  // Stryker disable next-line ArrayDeclaration: every index 0..m-1 is written below, so a preallocated and a growing array end up the same
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const { p, i } = order[rank - 1];
    running = Math.min(running, (p * m) / rank);
    adjusted[i] = running;
  }
  return adjusted;
}

/** Which hypotheses BH rejects at the false-discovery rate (default 0.05), in the input's order. */
export function significantAtFdr(pValues: number[], rate = 0.05): boolean[] {
  return benjaminiHochberg(pValues).map((q) => q <= rate);
}

export interface Difference {
  /** current rate - base rate, in -1..1 */
  value: number;
  /** Newcombe hybrid score 95% interval */
  interval: Interval;
}

/**
 * current - base pass rate with Newcombe's hybrid score interval (method 10):
 * L = d - sqrt((p1 - l1)^2 + (u2 - p2)^2), U = d + sqrt((u1 - p1)^2 + (p2 - l2)^2), where (l, u) are the Wilson
 * intervals of p1 = current and p2 = base. An empty sample has the rate 0 and the Wilson interval [0, 1].
 */
export function rateDifference(current: PassCounts, base: PassCounts, z = 1.959963984540054): Difference {
  assertCounts('current', current);
  assertCounts('base', base);
  const p1 = current.total === 0 ? 0 : current.passed / current.total;
  const p2 = base.total === 0 ? 0 : base.passed / base.total;
  const w1 = wilsonInterval(current.passed, current.total, z);
  const w2 = wilsonInterval(base.passed, base.total, z);
  const d = p1 - p2;
  return {
    value: d,
    interval: {
      low: Math.max(-1, d - Math.hypot(p1 - w1.low, w2.high - p2)),
      high: Math.min(1, d + Math.hypot(w1.high - p1, p2 - w2.low)),
    },
  };
}
