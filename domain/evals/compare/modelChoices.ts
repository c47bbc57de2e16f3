/**
 * Picking a model (compare by=model with a margin): every model of the run with what it costs and how it did, and
 * the cheapest of those that are not worse than the base model by more than the margin. Pure: no I/O.
 *
 * "Cheapest" is by tokens per iteration: the one price every provider shares. The base model is always a candidate
 * (it is what the others are measured against); a model whose verdict is inferior or inconclusive is not.
 */
import type { PerformanceAggregate } from './aggregates.js';
import type { NonInferiority, NonInferiorityVerdict } from './nonInferiority.js';

export interface ModelChoice {
  model: string | null;
  passed: number;
  total: number;
  passRate: number;
  latencyMs: PerformanceAggregate['latencyMs'];
  tokens: PerformanceAggregate['tokens'];
  verdict: 'baseline' | NonInferiorityVerdict;
}

type Candidate = { model: string | null; performance: PerformanceAggregate };

export function modelChoices(
  base: Candidate,
  others: (Candidate & { nonInferiority: NonInferiority })[],
): { choices: ModelChoice[]; cheapestNonInferior: string | null } {
  const choice = (c: Candidate, verdict: ModelChoice['verdict']): ModelChoice => ({
    model: c.model,
    passed: c.performance.passed,
    total: c.performance.total,
    passRate: c.performance.total === 0 ? 0 : c.performance.passed / c.performance.total,
    latencyMs: c.performance.latencyMs,
    tokens: c.performance.tokens,
    verdict,
  });
  const choices = [choice(base, 'baseline'), ...others.map((o) => choice(o, o.nonInferiority.overall.verdict))];
  const perIteration = (c: ModelChoice) => (c.total === 0 ? Number.POSITIVE_INFINITY : c.tokens.total / c.total);
  // The base model is always a candidate, so there is one; on a tie the earlier (the base first) stays.
  const cheapest = choices
    .filter((c) => c.verdict === 'baseline' || c.verdict === 'non_inferior')
    .reduce((best, c) => (perIteration(c) < perIteration(best) ? c : best));
  return { choices, cheapestNonInferior: cheapest.model };
}
