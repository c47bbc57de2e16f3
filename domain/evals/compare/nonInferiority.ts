/**
 * Non-inferiority: is the current side (a cheaper model, a new server build) no worse than the base side by more
 * than a margin? Pure: no I/O.
 *
 * For a difference d = current - base pass rate with its 95% Newcombe interval [L, U] (statistics.ts):
 * - `non_inferior` when L > -margin: the current side is at most `margin` worse, at 97.5% one-sided confidence (the
 *   usual non-inferiority test: the lower bound of the two-sided 95% interval);
 * - `inferior` when U < -margin: it is worse by more than the margin, with the same confidence;
 * - `inconclusive` otherwise: the interval straddles -margin, and more iterations would tell.
 * Per matched case, and overall on the matched cases' iterations pooled. New and removed cases have no verdict.
 */
import type { CaseAggregate } from './aggregates.js';
import type { Interval } from '../statistics.js';
import { rateDifference, sumCounts, type PassCounts } from './statistics.js';

export type NonInferiorityVerdict = 'non_inferior' | 'inferior' | 'inconclusive';

export interface NonInferiorityTest {
  verdict: NonInferiorityVerdict;
  /** current - base pass rate */
  difference: number;
  /** 95% Newcombe interval of the difference */
  differenceInterval: Interval;
}

export interface NonInferiority {
  margin: number;
  overall: NonInferiorityTest;
  cases: ({ caseId: string | null; title: string } & NonInferiorityTest)[];
}

/** The verdict for one difference at the margin (a positive rate, e.g. 0.05 for five points). */
export function nonInferiorityTest(current: PassCounts, base: PassCounts, margin: number): NonInferiorityTest {
  if (!(margin > 0 && margin < 1)) throw new RangeError(`the margin must be between 0 and 1, got ${margin}`);
  const d = rateDifference(current, base);
  const verdict: NonInferiorityVerdict =
    // Stryker disable next-line EqualityOperator: a bound exactly on -margin is a tie of two real numbers; > or >=, < or <= only move that point
    d.interval.low > -margin ? 'non_inferior' : d.interval.high < -margin ? 'inferior' : 'inconclusive';
  return { verdict, difference: d.value, differenceInterval: d.interval };
}

/** Per matched case (in the order given) and overall, pooled over those cases. */
export function nonInferiority(
  matched: { base: CaseAggregate; current: CaseAggregate }[],
  margin: number,
): NonInferiority {
  return {
    margin,
    overall: nonInferiorityTest(
      sumCounts(matched.map((m) => m.current)),
      sumCounts(matched.map((m) => m.base)),
      margin,
    ),
    cases: matched.map((m) => ({
      caseId: m.current.caseId,
      title: m.current.title,
      ...nonInferiorityTest(m.current, m.base, margin),
    })),
  };
}
