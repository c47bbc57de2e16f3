/**
 * Picking a model (compare by=model with a margin): every model of the run with what it costs and how it did, and
 * the cheapest of those that are not worse than the base model by more than the margin. Pure: no I/O.
 *
 * "Cheapest" is by cost per iteration (USD, at the organization's prices) when every candidate's cost is known, else by
 * tokens per iteration (`cheapestBy` says which). The base model is always a candidate (it is what the others are
 * measured against); a model whose verdict is inferior or inconclusive is not.
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
  /** what its iterations cost, in USD; null when a price is unknown */
  costUsd: number | null;
  verdict: 'baseline' | NonInferiorityVerdict;
}

type Candidate = { model: string | null; performance: PerformanceAggregate };

export function modelChoices(
  base: Candidate,
  others: (Candidate & { nonInferiority: NonInferiority })[],
): { choices: ModelChoice[]; cheapestNonInferior: string | null; cheapestBy: 'cost' | 'tokens' } {
  const choice = (c: Candidate, verdict: ModelChoice['verdict']): ModelChoice => ({
    model: c.model,
    passed: c.performance.passed,
    total: c.performance.total,
    passRate: c.performance.total === 0 ? 0 : c.performance.passed / c.performance.total,
    latencyMs: c.performance.latencyMs,
    tokens: c.performance.tokens,
    costUsd: c.performance.costUsd,
    verdict,
  });
  const choices = [choice(base, 'baseline'), ...others.map((o) => choice(o, o.nonInferiority.overall.verdict))];
  const candidates = choices.filter((c) => c.verdict === 'baseline' || c.verdict === 'non_inferior');
  const cheapestBy = candidates.every((c) => c.costUsd !== null) ? 'cost' : 'tokens';
  const spent = (c: ModelChoice) => (cheapestBy === 'cost' ? c.costUsd! : c.tokens.total);
  const perIteration = (c: ModelChoice) => (c.total === 0 ? Number.POSITIVE_INFINITY : spent(c) / c.total);
  // The base model is always a candidate, so there is one; on a tie the earlier (the base first) stays.
  const cheapest = candidates.reduce((best, c) => (perIteration(c) < perIteration(best) ? c : best));
  return { choices, cheapestNonInferior: cheapest.model, cheapestBy };
}
