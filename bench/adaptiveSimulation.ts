/**
 * A simulation of adaptive iterations (domain/evals/compare/sequential.ts) against a fixed-n run at the same
 * maximum, on cases with known true pass rates: the false-decision rate, the decisions on real changes, and the
 * model calls spent. Pure and seeded (the same seed gives the same figures); test/unit/sequential.test.ts checks
 * it, bench/adaptive.ts reports it.
 */
import { fisherExact, type PassCounts } from '../domain/evals/compare/statistics.js';
import { decideLook, lookLevels, plannedLooks, type SequentialDesign } from '../domain/evals/compare/sequential.js';

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Verdict = 'regressed' | 'fixed' | 'unchanged';

export interface Scenario {
  /** the baseline's true pass rate */
  base: number;
  /** the current run's true pass rate */
  current: number;
}

export interface SimulationResult {
  replications: number;
  /** share of replications the adaptive procedure called regressed or fixed */
  adaptiveDecided: number;
  /** the same share for the fixed-n run (Fisher at alpha on maxIterations) */
  fixedDecided: number;
  /** the same share for naive peeking: Fisher at alpha at every look, no correction */
  naiveDecided: number;
  /** share of replications where adaptive and fixed-n reach the same verdict (regressed, fixed or not decided) */
  agreement: number;
  /** model calls per case: adaptive (mean) and fixed-n (maxIterations) */
  adaptiveCalls: number;
  fixedCalls: number;
}

const verdictOf = (p: number, alpha: number, current: PassCounts, base: PassCounts): Verdict =>
  p > alpha ? 'unchanged' : current.passed / current.total < base.passed / base.total ? 'regressed' : 'fixed';

/**
 * `replications` cases of one scenario. The baseline ran maxIterations iterations; the current run's outcomes are
 * one stream per case, so the adaptive run's iterations are the first ones of the fixed-n run's (paired).
 */
export function simulate(
  design: SequentialDesign,
  scenario: Scenario,
  replications: number,
  random: () => number,
): SimulationResult {
  const looks = plannedLooks(design);
  const levels = lookLevels(design);
  const n = design.maxIterations;
  let adaptiveDecided = 0;
  let fixedDecided = 0;
  let naiveDecided = 0;
  let agree = 0;
  let adaptiveCalls = 0;
  for (let r = 0; r < replications; r++) {
    let basePassed = 0;
    for (let i = 0; i < n; i++) if (random() < scenario.base) basePassed++;
    const base = { passed: basePassed, total: n };
    const outcomes = Array.from({ length: n }, () => random() < scenario.current);
    const prefix = (m: number) => ({ passed: outcomes.slice(0, m).filter(Boolean).length, total: m });
    // adaptive
    let adaptive: Verdict = 'unchanged';
    let spent = n;
    for (let k = 0; k < looks.length; k++) {
      const d = decideLook(design, k, prefix(looks[k]), base, levels);
      if (d.decision === 'continue') continue;
      spent = looks[k];
      if (d.decision === 'decided_regressed') adaptive = 'regressed';
      else if (d.decision === 'decided_fixed') adaptive = 'fixed';
      break;
    }
    adaptiveCalls += spent;
    // fixed-n
    const all = prefix(n);
    const fixed = verdictOf(fisherExact(all, base), design.alpha, all, base);
    // naive peeking at the same looks
    const naive = looks.some((m) => fisherExact(prefix(m), base) <= design.alpha);
    if (adaptive !== 'unchanged') adaptiveDecided++;
    if (fixed !== 'unchanged') fixedDecided++;
    if (naive) naiveDecided++;
    if (adaptive === fixed) agree++;
  }
  return {
    replications,
    adaptiveDecided: adaptiveDecided / replications,
    fixedDecided: fixedDecided / replications,
    naiveDecided: naiveDecided / replications,
    agreement: agree / replications,
    adaptiveCalls: adaptiveCalls / replications,
    fixedCalls: n,
  };
}
