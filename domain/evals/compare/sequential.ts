/**
 * Adaptive iterations (issue 31): the sequential test that decides, after each round of a case's iterations, whether
 * its comparison with a baseline run is decided or needs another round. Pure: no I/O.
 *
 * The design is fixed before the first round, from the first round's size, the size of every later round and the
 * most iterations a case may spend (`maxIterations`): the looks are at n_1 = firstRound, n_k = n_1 + (k - 1) *
 * roundSize, ..., up to maxIterations (the last look is at maxIterations exactly). The error rate alpha (the
 * probability of calling a case regressed or fixed when its pass rate did not change) is spent across those looks
 * by a Lan-DeMets spending function of the information fraction t_k = n_k / maxIterations:
 *
 * - O'Brien-Fleming shape (the default): alpha(t) = 2 (1 - Phi(z_{1 - alpha/2} / sqrt(t))); little at the early
 *   looks, nearly all of alpha at the last one, so a case that runs to the end is tested almost as a fixed-n run.
 * - Pocock shape: alpha(t) = alpha ln(1 + (e - 1) t); evenly spread, stops real changes sooner.
 * - Bonferroni: alpha / K at each of the K looks.
 *
 * Look k tests with Fisher's exact test (the test the compare endpoint runs) at the nominal level alpha(t_k) -
 * alpha(t_{k-1}). Each look's test keeps its level (Fisher's test is exact or conservative for any sample size),
 * and the levels sum to alpha, so by the union bound the probability of any false decision over all the looks is
 * at most alpha, whatever the dependence between looks. That is conservative next to the exact group-sequential
 * boundaries (which use the joint distribution of the looks), and it is valid with the discrete test as it is.
 *
 * Stopping as unchanged (futility) only ever removes chances to reject, so it cannot raise the false-decision rate.
 * The rule: project the case to maxIterations at either end of a Wilson interval of its pass rate so far
 * (`futilityZ`, 2 standard errors by default); when neither projection would be significant at the last look's
 * level, no plausible continuation would decide the case, and it stops as `decided_unchanged`. Its cost is power,
 * measured against a fixed-n run in test/unit/sequential.test.ts and bench/adaptive.ts.
 */
import { wilsonInterval } from '../statistics.js';
import { fisherExact, type PassCounts } from './statistics.js';

export type SpendingFunction = 'obrien-fleming' | 'pocock' | 'bonferroni';

export interface SequentialDesign {
  /** the probability of a false regressed-or-fixed decision per case, two-sided, over all looks (0.05) */
  alpha: number;
  /** iterations of a case in the first round */
  firstRound: number;
  /** iterations added to an undecided case in each later round */
  roundSize: number;
  /** the most iterations a case may spend: the last look */
  maxIterations: number;
  spending: SpendingFunction;
  /** the half-width, in standard errors, of the Wilson interval the futility rule projects from */
  futilityZ: number;
}

/** The most iterations per case an adaptive run may spend (the API's bound). */
export const MAX_ADAPTIVE_ITERATIONS_PER_CASE = 100;

export const DEFAULT_DESIGN = {
  alpha: 0.05,
  spending: 'obrien-fleming',
  futilityZ: 2,
} as const satisfies Partial<SequentialDesign>;

/** How a case's adaptive iterations ended (the summary's `stopReason`). */
export type StopReason = 'decided_regressed' | 'decided_fixed' | 'decided_unchanged' | 'budget';

export type LookDecision =
  | { decision: StopReason; pValue: number; level: number }
  /** undecided: run `more` iterations of the case and look again */
  | { decision: 'continue'; pValue: number; level: number; more: number };

function assertDesign(d: SequentialDesign): void {
  if (!(d.alpha > 0 && d.alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${d.alpha}`);
  for (const [name, v] of [
    ['firstRound', d.firstRound],
    ['roundSize', d.roundSize],
    ['maxIterations', d.maxIterations],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${v}`);
  }
  if (d.maxIterations < d.firstRound) {
    throw new RangeError(`maxIterations (${d.maxIterations}) must be at least the first round (${d.firstRound})`);
  }
  if (!(d.futilityZ > 0)) throw new RangeError(`futilityZ must be > 0, got ${d.futilityZ}`);
}

/** The cumulative iterations of a case at each planned look: firstRound, + roundSize, ..., maxIterations. */
export function plannedLooks(design: SequentialDesign): number[] {
  assertDesign(design);
  const looks = [design.firstRound];
  while (looks[looks.length - 1] < design.maxIterations) {
    looks.push(Math.min(design.maxIterations, looks[looks.length - 1] + design.roundSize));
  }
  return looks;
}

/** The standard normal CDF, through erfc (Abramowitz and Stegun 7.1.26 would give 1.5e-7; this series gives ~1e-12). */
export function normalCdf(x: number): number {
  // Phi(x) = erfc(-x / sqrt 2) / 2, erfc by the continued fraction for large |x| and the series for small.
  const z = Math.abs(x) / Math.SQRT2;
  let erfcZ: number;
  if (z < 3) {
    // erf z = 2/sqrt(pi) sum_{n>=0} (-1)^n z^(2n+1) / (n! (2n+1))
    let term = z;
    let sum = z;
    for (let n = 1; n < 200; n++) {
      term *= (-z * z) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    erfcZ = 1 - (2 / Math.sqrt(Math.PI)) * sum;
  } else {
    // erfc z = exp(-z^2)/sqrt(pi) * 1/(z + 1/2/(z + 1/(z + 3/2/(z + 2/(z + ...))))), evaluated from the tail
    let f = z;
    for (let k = 60; k >= 1; k--) f = z + k / 2 / f;
    erfcZ = Math.exp(-z * z) / Math.sqrt(Math.PI) / f;
  }
  return x >= 0 ? 1 - erfcZ / 2 : erfcZ / 2;
}

/** The standard normal quantile: Phi^-1(p), by bisection on normalCdf (to double precision). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`p must be in (0, 1), got ${p}`);
  let low = -40;
  let high = 40;
  for (let i = 0; i < 200 && high - low > 1e-15; i++) {
    const mid = (low + high) / 2;
    if (normalCdf(mid) < p) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** The alpha spent by information fraction t (0..1) under the design's spending function. */
export function alphaSpent(design: Pick<SequentialDesign, 'alpha' | 'spending'>, t: number, looks = 1): number {
  if (t <= 0) return 0;
  if (t >= 1) return design.alpha;
  switch (design.spending) {
    case 'obrien-fleming':
      return 2 * (1 - normalCdf(normalQuantile(1 - design.alpha / 2) / Math.sqrt(t)));
    case 'pocock':
      return design.alpha * Math.log(1 + (Math.E - 1) * t);
    case 'bonferroni':
      // alpha / K per look: spent in equal steps of the K looks, whatever their sizes
      return (design.alpha * Math.round(t * looks)) / looks;
  }
}

/** The nominal level of each planned look: the alpha spent between it and the look before; they sum to alpha. */
export function lookLevels(design: SequentialDesign): number[] {
  const looks = plannedLooks(design);
  const k = looks.length;
  const spent = looks.map((n, i) =>
    design.spending === 'bonferroni'
      ? (design.alpha * (i + 1)) / k
      : i === k - 1
        ? design.alpha
        : alphaSpent(design, n / design.maxIterations, k),
  );
  return spent.map((s, i) => s - (i === 0 ? 0 : spent[i - 1]));
}

const rate = (c: PassCounts) => (c.total === 0 ? 0 : c.passed / c.total);

/**
 * The decision at look `look` (0-based: the first round is look 0) for a case with `current` pass counts so far
 * against the baseline's `base`. `levels` are lookLevels(design) (pass them to spare recomputing them per case).
 */
export function decideLook(
  design: SequentialDesign,
  look: number,
  current: PassCounts,
  base: PassCounts,
  levels: number[] = lookLevels(design),
): LookDecision {
  const looks = plannedLooks(design);
  if (!Number.isInteger(look) || look < 0 || look >= looks.length) {
    throw new RangeError(`look must be an integer in 0..${looks.length - 1}, got ${look}`);
  }
  const level = levels[look];
  const pValue = fisherExact(current, base);
  if (pValue <= level) {
    return { decision: rate(current) < rate(base) ? 'decided_regressed' : 'decided_fixed', pValue, level };
  }
  if (look === looks.length - 1) return { decision: 'budget', pValue, level };
  // Futility: project the rest of the budget at both ends of the rate's interval; neither decides -> unchanged.
  const lastLevel = levels[levels.length - 1];
  const remaining = design.maxIterations - current.total;
  if (current.total > 0 && remaining >= 0) {
    const interval = wilsonInterval(current.passed, current.total, design.futilityZ);
    const decides = [interval.low, interval.high].some((r) => {
      const projected = { passed: current.passed + Math.round(r * remaining), total: design.maxIterations };
      return fisherExact(projected, base) <= lastLevel;
    });
    if (!decides) return { decision: 'decided_unchanged', pValue, level };
  }
  return { decision: 'continue', pValue, level, more: looks[look + 1] - looks[look] };
}

/** The design of an adaptive run whose cases start with `firstRound` iterations and may spend `maxIterations`. */
export function adaptiveDesign(firstRound: number, maxIterations: number): SequentialDesign {
  // Later rounds as large as the first (at least 5: a look costs a workflow round trip), so a case has at most
  // ~maxIterations / roundSize looks.
  const roundSize = Math.max(5, firstRound);
  return { ...DEFAULT_DESIGN, firstRound, roundSize, maxIterations };
}
