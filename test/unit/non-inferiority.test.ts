import { describe, expect, it } from 'vitest';
import { nonInferiority, nonInferiorityTest } from '../../domain/evals/compare/nonInferiority.js';
import { modelChoices } from '../../domain/evals/compare/modelChoices.js';
import { rateDifference } from '../../domain/evals/compare/statistics.js';

const counts = (passed: number, failed: number) => ({ passed, total: passed + failed });
const kase = (key: string, passed: number, total: number) => ({
  key,
  caseId: key,
  title: key,
  query: key,
  passed,
  total,
});

describe('non-inferiority of one difference', () => {
  // Newcombe (1998), table II: 56/70 - 48/80 = 0.2, 95% CI 0.0524 to 0.3339; reversed, -0.3339 to -0.0524.
  it('is decided by the 95% interval against -margin, on Newcombe published interval', () => {
    expect(nonInferiorityTest(counts(56, 14), counts(48, 32), 0.05).verdict).toBe('non_inferior');
    expect(nonInferiorityTest(counts(48, 32), counts(56, 14), 0.05).verdict).toBe('inferior'); // -0.0524 < -0.05
    expect(nonInferiorityTest(counts(48, 32), counts(56, 14), 0.06).verdict).toBe('inconclusive');
    expect(nonInferiorityTest(counts(48, 32), counts(56, 14), 0.34).verdict).toBe('non_inferior'); // -0.3339 > -0.34
  });

  it('says a small sample is inconclusive, and many equal iterations non-inferior', () => {
    expect(nonInferiorityTest(counts(5, 5), counts(5, 5), 0.05).verdict).toBe('inconclusive');
    expect(nonInferiorityTest(counts(200, 0), counts(200, 0), 0.05).verdict).toBe('non_inferior');
    expect(nonInferiorityTest(counts(0, 50), counts(50, 0), 0.05).verdict).toBe('inferior');
  });

  it('carries the difference and the same interval the comparison shows', () => {
    const test = nonInferiorityTest(counts(9, 1), counts(3, 7), 0.1);
    const d = rateDifference(counts(9, 1), counts(3, 7));
    expect(test).toEqual({ verdict: 'non_inferior', difference: d.value, differenceInterval: d.interval });
  });

  it('takes a margin strictly between 0 and 1', () => {
    for (const margin of [0, 1, -0.1, Number.NaN])
      expect(() => nonInferiorityTest(counts(1, 1), counts(1, 1), margin)).toThrow(
        'the margin must be between 0 and 1',
      );
  });
});

describe('non-inferiority per case and overall', () => {
  it('pools the matched cases for the overall verdict', () => {
    const matched = [
      { base: kase('a', 100, 100), current: kase('a', 99, 100) },
      { base: kase('b', 100, 100), current: kase('b', 100, 100) },
    ];
    // 99/100 against 100/100 alone: the interval reaches about -5.4 points
    expect(nonInferiority(matched, 0.05).cases[0].verdict).toBe('inconclusive');
    const result = nonInferiority(matched, 0.1);
    expect(result.margin).toBe(0.1);
    expect(result.cases.map((c) => [c.title, c.verdict])).toEqual([
      ['a', 'non_inferior'],
      ['b', 'non_inferior'],
    ]);
    expect(result.overall.difference).toBeCloseTo(-0.005, 10);
    expect(result.overall).toEqual(nonInferiorityTest(counts(199, 1), counts(200, 0), 0.1));
  });
});

describe('choosing a model', () => {
  const perf = (passed: number, total: number, tokens: number, costUsd: number | null = null) => ({
    total,
    passed,
    latencyMs: { p50: 10, p95: 20 },
    tokens: { input: tokens / 2, output: tokens / 2, total: tokens },
    costUsd,
  });
  const verdict = (v: 'non_inferior' | 'inferior' | 'inconclusive') => ({
    margin: 0.05,
    overall: { verdict: v, difference: 0, differenceInterval: { low: 0, high: 0 } },
    cases: [],
  });

  it('picks the cheapest of the base and the models non-inferior to it, never an inferior or inconclusive one', () => {
    const { choices, cheapestNonInferior } = modelChoices({ model: 'big', performance: perf(100, 100, 100_000) }, [
      { model: 'mini', performance: perf(99, 100, 20_000), nonInferiority: verdict('non_inferior') },
      { model: 'nano', performance: perf(60, 100, 5_000), nonInferiority: verdict('inferior') },
      { model: 'odd', performance: perf(9, 10, 1_000), nonInferiority: verdict('inconclusive') },
    ]);
    expect(cheapestNonInferior).toBe('mini');
    expect(choices.map((c) => [c.model, c.verdict, c.passRate])).toEqual([
      ['big', 'baseline', 1],
      ['mini', 'non_inferior', 0.99],
      ['nano', 'inferior', 0.6],
      ['odd', 'inconclusive', 0.9],
    ]);
  });

  it('compares tokens per iteration, not in total, whatever the order of the models', () => {
    const others = [
      { model: 'few-iterations', performance: perf(10, 10, 500), nonInferiority: verdict('non_inferior') },
      { model: 'frugal', performance: perf(100, 100, 1_000), nonInferiority: verdict('non_inferior') },
    ];
    const base = { model: 'big', performance: perf(100, 100, 100_000) };
    expect(modelChoices(base, others).cheapestNonInferior).toBe('frugal');
    expect(modelChoices(base, [...others].reverse()).cheapestNonInferior).toBe('frugal');
  });

  it('never picks a model without a finished iteration, and keeps the base on a tie', () => {
    const { choices, cheapestNonInferior } = modelChoices({ model: 'big', performance: perf(10, 10, 100) }, [
      { model: 'idle', performance: perf(0, 0, 0), nonInferiority: verdict('non_inferior') },
      { model: 'same', performance: perf(10, 10, 100), nonInferiority: verdict('non_inferior') },
    ]);
    expect(choices[1]).toMatchObject({ model: 'idle', passRate: 0, total: 0 });
    expect(cheapestNonInferior).toBe('big');
  });

  it('picks by cost per iteration when every candidate has a price, by tokens otherwise', () => {
    const base = { model: 'big', performance: perf(100, 100, 100_000, 5) };
    const others = [
      // fewer tokens, but a dearer price per token
      { model: 'dear', performance: perf(100, 100, 10_000, 4), nonInferiority: verdict('non_inferior') },
      { model: 'cheap', performance: perf(100, 100, 50_000, 0.5), nonInferiority: verdict('non_inferior') },
      // an inferior model without a price does not turn the choice to tokens
      { model: 'unpriced', performance: perf(10, 100, 10, null), nonInferiority: verdict('inferior') },
    ];
    expect(modelChoices(base, others)).toMatchObject({ cheapestNonInferior: 'cheap', cheapestBy: 'cost' });
    const unpricedCandidate = { ...others[2], nonInferiority: verdict('non_inferior') };
    expect(modelChoices(base, [...others.slice(0, 2), unpricedCandidate])).toMatchObject({
      cheapestNonInferior: 'unpriced',
      cheapestBy: 'tokens',
    });
    expect(modelChoices(base, others).choices[2].costUsd).toBe(0.5);
  });

  it('keeps the base model when nothing else qualifies', () => {
    const { cheapestNonInferior } = modelChoices({ model: 'big', performance: perf(10, 10, 1000) }, [
      { model: 'mini', performance: perf(2, 10, 10), nonInferiority: verdict('inferior') },
    ]);
    expect(cheapestNonInferior).toBe('big');
  });
});
