import { describe, expect, it } from 'vitest';
import { costOf, DEFAULT_PRICES, priceLookup, sumCosts, type ModelPrice } from '../../domain/models/prices.js';
import { summarizeIterations, summarizeModels, type IterationOutcome } from '../../domain/evals/statistics.js';
import { estimateRun, HEURISTIC, type UsageHistory } from '../../domain/evals/estimate.js';
import type { PlannedModel, RunPreview } from '../../domain/evals/startEvalRun.js';
import { resolveBudget } from '../../domain/evals/runSettings.js';
import { BudgetTracker } from '../../workflows/budget.js';

// Issue 31, cost: the price arithmetic, the summary's costs, the money budget and the estimate before a run.

const price: ModelPrice = { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 };

describe('costOf', () => {
  it('prices input, output and cached input tokens per million', () => {
    // 1,000,000 input of which 400,000 cached, 250,000 output: 0.6 * 2 + 0.4 * 0.5 + 0.25 * 8
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 250_000, cachedInputTokens: 400_000 }, price)).toBe(3.4);
    expect(costOf({ inputTokens: 1200, outputTokens: 300 }, price)).toBe(0.0048);
    expect(costOf({ inputTokens: 0, outputTokens: 0 }, price)).toBe(0);
  });

  it('bills cached tokens as input when the model has no cached price, and never more cached than input', () => {
    const noCache = { inputPerMTok: 3, outputPerMTok: 15 };
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 500_000 }, noCache)).toBe(3);
    expect(costOf({ inputTokens: 100, outputTokens: 0, cachedInputTokens: 5_000 }, price)).toBe(0.00005);
  });

  it('is null (unknown) without a price, whatever the tokens: never 0', () => {
    expect(costOf({ inputTokens: 1000, outputTokens: 10 }, undefined)).toBeNull();
    expect(costOf({ inputTokens: 0, outputTokens: 0 }, undefined)).toBeNull();
  });

  it('leaves no float noise beyond a billionth of a dollar', () => {
    const cheap = { inputPerMTok: 0.1, outputPerMTok: 0.4 };
    // 3 * 0.1 + 7 * 0.4 = 3.1 per million, which plain floats spell 0.0000031000000000000004
    expect(costOf({ inputTokens: 3, outputTokens: 7 }, cheap)).toBe(0.0000031);
    expect(sumCosts([0.1, 0.2])).toBe(0.3);
  });
});

describe('sumCosts', () => {
  it('adds known costs; one unknown makes the sum unknown; nothing costs 0', () => {
    expect(sumCosts([0.5, 0.25, 0])).toBe(0.75);
    expect(sumCosts([0.5, null, 0.25])).toBeNull();
    expect(sumCosts([0.5, undefined])).toBeNull();
    expect(sumCosts([])).toBe(0);
  });
});

describe('priceLookup', () => {
  it("finds the shipped defaults by <provider>/<name>, and an organization's own price first", () => {
    const defaults = priceLookup();
    expect(defaults('openai', 'gpt-4.1-mini')).toEqual(DEFAULT_PRICES['openai/gpt-4.1-mini']);
    expect(defaults('anthropic', 'claude-sonnet-4-5')).toEqual(DEFAULT_PRICES['anthropic/claude-sonnet-4-5']);
    const own = { inputPerMTok: 1, outputPerMTok: 1 };
    const org = priceLookup({ 'openai/gpt-4.1-mini': own, 'openai/model-a': own });
    expect(org('openai', 'gpt-4.1-mini')).toBe(own);
    expect(org('openai', 'model-a')).toBe(own);
    expect(org('openai', 'gpt-4.1')).toEqual(DEFAULT_PRICES['openai/gpt-4.1']);
  });

  it('prices a dated id as its undated alias, and knows nothing of other models', () => {
    const lookup = priceLookup();
    expect(lookup('anthropic', 'claude-sonnet-4-5-20250929')).toEqual(DEFAULT_PRICES['anthropic/claude-sonnet-4-5']);
    expect(lookup('openai', 'model-a')).toBeUndefined();
    expect(lookup('ollama', 'llama3.2:3b')).toBeUndefined();
    // the provider is part of the key: the same name through OpenRouter is another price
    expect(lookup('openrouter', 'gpt-4.1-mini')).toBeUndefined();
    // no prototype key is a price
    expect(lookup('constructor', 'x')).toBeUndefined();
    expect(priceLookup({})('__proto__', '')).toBeUndefined();
  });

  it('every shipped default is a price: non-negative numbers, cached cheaper than input', () => {
    for (const [model, p] of Object.entries(DEFAULT_PRICES)) {
      expect(model).toMatch(/^(openai|anthropic|google)\/[a-z0-9.-]+$/);
      expect(p.inputPerMTok).toBeGreaterThan(0);
      expect(p.outputPerMTok).toBeGreaterThanOrEqual(p.inputPerMTok);
      expect(p.cachedInputPerMTok!).toBeLessThan(p.inputPerMTok);
    }
  });
});

const outcome = (caseId: string, model: string, costUsd: number | null | undefined): IterationOutcome => ({
  caseId,
  passed: true,
  durationMs: 10,
  inputTokens: 10,
  outputTokens: 5,
  totalTokens: 15,
  model,
  provider: 'openai',
  ...(costUsd !== undefined && { costUsd }),
});

describe("a run's summary: cost per case, per model and in all", () => {
  it('sums the iterations of each case and model, and the run', () => {
    const stats = summarizeIterations([
      outcome('a', 'm1', 0.001),
      outcome('a', 'm1', 0.002),
      outcome('a', 'm2', 0.01),
      outcome('b', 'm1', 0.004),
    ]);
    expect(stats.costUsd).toBe(0.017);
    expect(stats.cases.map((c) => [c.caseId, c.model, c.costUsd])).toEqual([
      ['a', 'm1', 0.003],
      ['a', 'm2', 0.01],
      ['b', 'm1', 0.004],
    ]);
  });

  it('an iteration of unknown cost makes its case, model and run unknown, not cheaper', () => {
    const outcomes = [outcome('a', 'm1', 0.001), outcome('a', 'm2', null), outcome('b', 'm1', 0.004)];
    const stats = summarizeIterations(outcomes);
    expect(stats.costUsd).toBeNull();
    expect(stats.cases.map((c) => c.costUsd)).toEqual([0.001, null, 0.004]);
    expect(summarizeModels(outcomes).map((m) => [m.model, m.costUsd])).toEqual([
      ['m1', 0.005],
      ['m2', null],
    ]);
    // outcomes recorded before costs were carry none: unknown
    expect(summarizeIterations([outcome('a', 'm1', undefined)]).costUsd).toBeNull();
  });
});

describe('a money budget', () => {
  it('keeps maxCostUsd when the run is created (no organization ceiling bounds money)', () => {
    const org = { maxTokens: 1000, maxIterations: null, maxConcurrency: null };
    expect(resolveBudget({ maxCostUsd: 2.5 }, null, org)).toEqual({ maxTokens: 1000, maxCostUsd: 2.5 });
    expect(resolveBudget(undefined, { maxCostUsd: 1 }, { ...org, maxTokens: null })).toEqual({ maxCostUsd: 1 });
  });

  it('hands out one iteration per lane until a batch is measured, then what the money left pays for', () => {
    const budget = new BudgetTracker({ maxCostUsd: 1 }, 2);
    expect(budget.allowance()).toBe(1);
    budget.handedOut(1);
    budget.spent(1, 100, 0.1);
    // 0.9 left at 0.1 an iteration, shared by two lanes
    expect(budget.allowance()).toBe(4);
    budget.spent(8, 800, 0.8);
    expect(budget.costUsd).toBeCloseTo(0.9, 12);
    expect(budget.allowance()).toBe(1);
    budget.spent(1, 100, 0.1);
    expect(budget.allowance()).toBe(0);
  });

  it('the tightest of tokens, iterations and money wins; a batch result without a cost spends none', () => {
    const budget = new BudgetTracker({ maxCostUsd: 10, maxTokens: 1000, maxIterations: 50 }, 1);
    budget.handedOut(1);
    budget.spent(1, 100, 0.5);
    // tokens pay for 9 more, money for 19, iterations 49
    expect(budget.allowance()).toBe(9);
    const old = new BudgetTracker({ maxCostUsd: 1 }, 1);
    old.spent(3, 300);
    expect(old.costUsd).toBe(0);
    expect(old.allowance()).toBe(1);
  });
});

const model = (name: string, p: ModelPrice | undefined): PlannedModel => ({
  model: name,
  provider: 'openai',
  priceKey: `openai/${name}`,
  price: p,
});

const preview = (cases: RunPreview['cases'], judgeModel: PlannedModel | null = null): RunPreview => ({
  suite: { id: 'sui_1', name: 'S' },
  cases,
  iterations: cases.reduce((t, c) => t + c.iterations * c.models.length, 0),
  budget: null,
  judgeModel,
});

describe('estimateRun', () => {
  const history: UsageHistory = {
    caseId: 'cas_a',
    model: 'm1',
    provider: 'openai',
    iterations: 12,
    input: { mean: 1000, p10: 500, p90: 2000 },
    output: { mean: 100, p10: 50, p90: 200 },
    cachedInputMean: 0,
  };

  it("prices a case and model from the suite's earlier iterations: mean expected, 10th to 90th percentile range", () => {
    const estimate = estimateRun(
      preview([
        {
          caseId: 'cas_a',
          title: 'a',
          iterations: 3,
          maxIterations: 3,
          turns: 1,
          judged: false,
          models: [model('m1', price)],
        },
      ]),
      [history],
    );
    // an iteration: 1000 * 2 + 100 * 8 per million = 0.0028; low 500/50: 0.0014; high 2000/200: 0.0056
    expect(estimate.entries).toEqual([
      {
        caseId: 'cas_a',
        title: 'a',
        model: 'm1',
        provider: 'openai',
        iterations: 3,
        maxIterations: 3,
        basis: 'history',
        historyIterations: 12,
        tokensPerIteration: { input: 1000, output: 100 },
        costUsd: { low: 0.0042, expected: 0.0084, high: 0.0168 },
      },
    ]);
    expect(estimate.costUsd).toEqual({ low: 0.0042, expected: 0.0084, high: 0.0168 });
    expect(estimate.tokens).toEqual({ input: 3000, output: 300, total: 3300 });
    expect(estimate.iterations).toBe(3);
    expect(estimate.unpricedModels).toEqual([]);
  });

  it("an adaptive run: low and expected over its first round, high over every case's maxIterationsPerCase", () => {
    const estimate = estimateRun(
      preview([
        {
          caseId: 'cas_a',
          title: 'a',
          iterations: 5,
          maxIterations: 20,
          turns: 1,
          judged: false,
          models: [model('m1', price)],
        },
      ]),
      [history],
    );
    // per iteration 0.0014 / 0.0028 / 0.0056: 5 x low, 5 x expected, 20 x high
    expect(estimate.entries[0]).toMatchObject({ iterations: 5, maxIterations: 20 });
    expect(estimate.costUsd).toEqual({ low: 0.007, expected: 0.014, high: 0.112 });
  });

  it('counts cached input at the cached price, in the share the history read from the cache', () => {
    const estimate = estimateRun(
      preview([
        {
          caseId: 'cas_a',
          title: 'a',
          iterations: 1,
          maxIterations: 1,
          turns: 1,
          judged: false,
          models: [model('m1', price)],
        },
      ]),
      [{ ...history, cachedInputMean: 500 }],
    );
    // expected: 500 * 2 + 500 * 0.5 + 100 * 8 = 2050 per million
    expect(estimate.costUsd!.expected).toBe(0.00205);
  });

  it('without history, the heuristic per user prompt, with the judge call of a judged case at the judge price', () => {
    const judge = model('judge', { inputPerMTok: 1, outputPerMTok: 1 });
    const estimate = estimateRun(
      preview(
        [
          {
            caseId: null,
            title: 'new',
            iterations: 2,
            maxIterations: 2,
            turns: 2,
            judged: true,
            models: [model('m1', price)],
          },
          // history of another model does not count for this one
          {
            caseId: 'cas_a',
            title: 'a',
            iterations: 1,
            maxIterations: 1,
            turns: 1,
            judged: false,
            models: [model('m2', price)],
          },
        ],
        judge,
      ),
      [history],
    );
    const [fresh, other] = estimate.entries;
    const agent = (HEURISTIC.inputPerTurn * 2 * 2 + HEURISTIC.outputPerTurn * 2 * 8) / 1e6;
    const judging = (HEURISTIC.judgeInputPerTurn * 2 + HEURISTIC.judgeOutputPerTurn * 2) / 1e6;
    expect(fresh).toMatchObject({ basis: 'heuristic', historyIterations: 0, iterations: 2 });
    expect(fresh.tokensPerIteration).toEqual({
      input: (HEURISTIC.inputPerTurn + HEURISTIC.judgeInputPerTurn) * 2,
      output: (HEURISTIC.outputPerTurn + HEURISTIC.judgeOutputPerTurn) * 2,
    });
    expect(fresh.costUsd!.expected).toBeCloseTo((agent + judging) * 2, 9);
    expect(fresh.costUsd!.low).toBeCloseTo((agent + judging) * 2 * HEURISTIC.low, 9);
    expect(fresh.costUsd!.high).toBeCloseTo((agent + judging) * 2 * HEURISTIC.high, 9);
    expect(other.basis).toBe('heuristic');
  });

  it('a model without a price leaves its entry and the total unknown, and is named', () => {
    const estimate = estimateRun(
      preview([
        {
          caseId: 'cas_a',
          title: 'a',
          iterations: 1,
          maxIterations: 1,
          turns: 1,
          judged: false,
          models: [model('m1', price), model('mystery', undefined)],
        },
      ]),
      [history],
    );
    expect(estimate.entries.map((e) => e.costUsd === null)).toEqual([false, true]);
    expect(estimate.costUsd).toBeNull();
    expect(estimate.unpricedModels).toEqual(['openai/mystery']);
    // the tokens are still estimated
    expect(estimate.tokens.total).toBeGreaterThan(0);
  });
});
