/**
 * How many iterations a comparison needs: the power of the test Runway runs on a case (Fisher's exact test,
 * two-sided, at 5%: statistics.ts), and the smallest number of iterations per side that gives it 80% power. Pure.
 *
 * - fisherPower(n, p1, p2): the probability, when the true pass rates are p1 and p2 and each side runs n times, that
 *   the outcome is one Fisher's test rejects: the sum over every table (x1, x2) of Binomial(x1; n, p1) *
 *   Binomial(x2; n, p2) over the tables whose p-value is <= 0.05. Exact, by enumeration: for each total of passes s
 *   the tables with that margin are ranked by their hypergeometric probability once, so a size costs O(n^2 log n)
 *   and its rejection region is kept for the next question.
 * - iterationsNeeded: the smallest n with fisherPower >= 80% at the observed rates, up to EXACT_UP_TO. The normal
 *   approximation it replaces promised more than the exact test delivers (1.0 vs 0.3: n = 6 has 42% power; 0.9 vs
 *   0.5: n = 20 has 74%). Beyond EXACT_UP_TO, where the exact and the continuity-corrected normal test agree closely,
 *   it answers the Casagrande-Pike-Smith continuity-corrected sample size (Fleiss, Statistical Methods for Rates and
 *   Proportions, 3rd ed., 4.2), which approximates Fisher's test from above.
 *
 * The power is that of one case's test at 5%. Significance is then decided after Benjamini-Hochberg across the
 * matched cases, which asks less of a case when others changed too and more when it changed alone (docs/COMPARING.md).
 */
import { assertCounts, logFactorial, type PassCounts } from './statistics.js';

/** z_{1 - 0.05/2} and z_{0.8}: the quantiles for a two-sided test at alpha 0.05 with 80% power. */
const Z_ALPHA = 1.959963984540054;
const Z_POWER = 0.8416212335729143;
const ALPHA = 0.05;
const TARGET_POWER = 0.8;

/** What iterationsNeeded answers at most; beyond it, the difference is too small to chase with more iterations. */
export const ITERATIONS_NEEDED_CAP = 10_000;
/** Up to this many iterations per side the answer comes from the exact test's power. */
export const EXACT_UP_TO = 200;

/** Rejection regions by n: region[x1 * (n + 1) + x2] is 1 when Fisher's test rejects x1/n against x2/n. */
const regions = new Map<number, Uint8Array>();

function rejectionRegion(n: number): Uint8Array {
  const cached = regions.get(n);
  // Stryker disable next-line ConditionalExpression: the cache only saves time; a region computed again is the same
  if (cached) return cached;
  const width = n + 1;
  const region = new Uint8Array(width * width);
  const tolerance = Math.log1p(1e-7);
  // s = 0 and s = 2n: one table, p = 1, nothing rejected.
  // Stryker disable next-line EqualityOperator: s = 2n has one table, whose p-value is 1: it rejects nothing either way
  for (let s = 1; s < 2 * n; s++) {
    const low = Math.max(0, s - n);
    const high = Math.min(n, s);
    const constant = 2 * logFactorial(n) + logFactorial(s) + logFactorial(2 * n - s) - logFactorial(2 * n);
    const logP: number[] = [];
    for (let x = low; x <= high; x++) {
      logP.push(constant - logFactorial(x) - logFactorial(n - x) - logFactorial(s - x) - logFactorial(n - s + x));
    }
    const sorted = [...logP].sort((a, b) => a - b);
    // cumulative[k]: the probability of the k least likely tables
    const cumulative = [0];
    for (const lp of sorted) cumulative.push(cumulative[cumulative.length - 1] + Math.exp(lp));
    logP.forEach((lp, i) => {
      // the tables no more likely than this one (R's tolerance), found by bisection in the sorted list
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        // Stryker disable next-line EqualityOperator: < and <= differ only for a log-probability exactly on lp + log1p(1e-7), inside the tie tolerance fisherExact grants too
        if (sorted[mid] <= lp + tolerance) lo = mid + 1;
        else hi = mid;
      }
      const x1 = low + i;
      // The same tables as fisherExact sums, in another order: the p-values agree to rounding (brute-force tested).
      // Stryker disable next-line EqualityOperator: < and <= differ only for a p-value of exactly 0.05
      if (cumulative[lo] <= ALPHA) region[x1 * width + (s - x1)] = 1;
    });
  }
  regions.set(n, region);
  return region;
}

function binomialPmf(n: number, p: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  if (p === 0 || p === 1) {
    pmf[p === 0 ? 0 : n] = 1;
    return pmf;
  }
  for (let k = 0; k <= n; k++) {
    pmf[k] = Math.exp(
      logFactorial(n) - logFactorial(k) - logFactorial(n - k) + k * Math.log(p) + (n - k) * Math.log1p(-p),
    );
  }
  return pmf;
}

function assertRate(p: number): void {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`rates must be in 0..1, got ${p}`);
}

/** The power of the two-sided Fisher test at 5% with n iterations on each side when the true rates are p1, p2. */
export function fisherPower(n: number, p1: number, p2: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n must be a positive integer, got ${n}`);
  assertRate(p1);
  assertRate(p2);
  const region = rejectionRegion(n);
  const b1 = binomialPmf(n, p1);
  const b2 = binomialPmf(n, p2);
  let power = 0;
  for (let x1 = 0; x1 <= n; x1++) {
    let row = 0;
    for (let x2 = 0; x2 <= n; x2++) if (region[x1 * (n + 1) + x2]) row += b2[x2];
    power += b1[x1] * row;
  }
  return power;
}

/**
 * The per-side sample size of the two-sided two-proportion z-test at alpha 0.05 with 80% power (pooled variance
 * under the null, no continuity correction: what R's power.prop.test solves):
 * n = (z_a * sqrt(2 * pbar * (1 - pbar)) + z_b * sqrt(p1 (1 - p1) + p2 (1 - p2)))^2 / (p1 - p2)^2.
 * Not rounded; null when p1 = p2 (no difference to detect).
 */
export function sampleSizeTwoProportions(p1: number, p2: number, zAlpha = Z_ALPHA, zPower = Z_POWER): number | null {
  assertRate(p1);
  assertRate(p2);
  const d = p1 - p2;
  if (d === 0) return null;
  const pbar = (p1 + p2) / 2;
  const root = zAlpha * Math.sqrt(2 * pbar * (1 - pbar)) + zPower * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return (root * root) / (d * d);
}

/** The Casagrande-Pike-Smith continuity correction of the z-test's n: n/4 * (1 + sqrt(1 + 4 / (n |d|)))^2. */
export function continuityCorrected(n: number, difference: number): number {
  const root = 1 + Math.sqrt(1 + 4 / (n * Math.abs(difference)));
  return (n / 4) * root * root;
}

const answers = new Map<string, number | null>();

/**
 * Iterations per case (on each side) with which Fisher's test would detect the observed difference of pass rates
 * with 80% power at 5%, two-sided; at least 2, at most ITERATIONS_NEEDED_CAP; null when the rates are equal or a
 * sample is empty.
 */
export function iterationsNeeded(current: PassCounts, base: PassCounts): number | null {
  assertCounts('current', current);
  assertCounts('base', base);
  if (current.total === 0 || base.total === 0) return null;
  const p1 = current.passed / current.total;
  const p2 = base.passed / base.total;
  // The same rates in either order, and the same rates from other counts, have one answer.
  const key = `${Math.min(p1, p2)}:${Math.max(p1, p2)}`;
  // Stryker disable next-line ConditionalExpression: the memo only saves time; an answer searched again is the same
  if (answers.has(key)) return answers.get(key)!;
  const answer = search(p1, p2);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: when the memo is emptied changes memory, not answers
  if (answers.size > 10_000) answers.clear();
  answers.set(key, answer);
  return answer;
}

function search(p1: number, p2: number): number | null {
  const approximate = sampleSizeTwoProportions(p1, p2);
  if (approximate === null) return null;
  const corrected = continuityCorrected(approximate, p1 - p2);
  if (corrected <= EXACT_UP_TO * 1.5) {
    for (let n = 2; n <= EXACT_UP_TO; n++) if (fisherPower(n, p1, p2) >= TARGET_POWER) return n;
  }
  return Math.min(ITERATIONS_NEEDED_CAP, Math.max(EXACT_UP_TO + 1, Math.ceil(corrected - 1e-9)));
}
