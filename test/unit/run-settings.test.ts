import { describe, expect, it } from 'vitest';
import { noOrganizationLimits } from '../../db/organizationLimits.js';
import { caseModels, resolveBudget, resolveConcurrency, runConcurrency } from '../../domain/evals/runSettings.js';
import { summarizeIterations, summarizeModels, wilsonInterval } from '../../domain/evals/statistics.js';
import { OperationFailure } from '../../domain/failures.js';
import { BatchScheduler } from '../../workflows/batching.js';
import { BudgetTracker } from '../../workflows/budget.js';

// Issue 16 parts 3, 4, 6: which models a case runs with, budgets, concurrency and organization ceilings (pure rules).

const org = (limits: Partial<typeof noOrganizationLimits>) => ({ ...noOrganizationLimits, ...limits });

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(OperationFailure);
    return { code: (error as OperationFailure).code, details: (error as OperationFailure).details };
  }
  throw new Error('expected a refusal');
};

describe('caseModels', () => {
  const suite = { defaultModel: 'suite-model', defaultModels: null };
  it("takes the case's models, else its model, else the suite's list, else the suite's model", () => {
    expect(
      caseModels({ model: 'a', provider: 'openai', models: [{ model: 'a' }, { model: 'b', provider: 'x' }] }, suite),
    ).toEqual([
      { model: 'a', provider: null },
      { model: 'b', provider: 'x' },
    ]);
    expect(caseModels({ model: 'a', provider: 'openai', models: null }, suite)).toEqual([
      { model: 'a', provider: 'openai' },
    ]);
    expect(
      caseModels(
        { model: null, provider: 'openai', models: null },
        { defaultModel: 'm1', defaultModels: [{ model: 'm1' }, { model: 'm2', provider: 'anthropic' }] },
      ),
    ).toEqual([
      { model: 'm1', provider: 'openai' },
      { model: 'm2', provider: 'anthropic' },
    ]);
    expect(caseModels({ model: null, provider: 'openai' }, suite)).toEqual([
      { model: 'suite-model', provider: 'openai' },
    ]);
    expect(caseModels({ model: null, provider: null }, undefined)).toEqual([{ model: null, provider: null }]);
  });
});

describe('resolveBudget', () => {
  it('is null when nothing bounds the run', () => {
    expect(resolveBudget(undefined, null, noOrganizationLimits)).toBeNull();
  });
  it("takes the request's budget over the suite's default", () => {
    expect(resolveBudget({ maxTokens: 10 }, { maxIterations: 3 }, noOrganizationLimits)).toEqual({ maxTokens: 10 });
    expect(resolveBudget(undefined, { maxIterations: 3 }, noOrganizationLimits)).toEqual({ maxIterations: 3 });
  });
  it("refuses a requested bound above the organization's ceiling with ABOVE_ORGANIZATION_LIMIT", () => {
    expect(refusal(() => resolveBudget({ maxTokens: 1001 }, null, org({ maxTokens: 1000 })))).toEqual({
      code: 'VALIDATION_ERROR',
      details: { reason: 'ABOVE_ORGANIZATION_LIMIT', field: 'budget.maxTokens', requested: 1001, limit: 1000 },
    });
    expect(refusal(() => resolveBudget({ maxIterations: 6 }, null, org({ maxIterations: 5 }))).details).toMatchObject({
      field: 'budget.maxIterations',
    });
    expect(resolveBudget({ maxTokens: 1000 }, null, org({ maxTokens: 1000 }))).toEqual({ maxTokens: 1000 });
  });
  it("clamps the suite's default to the ceiling, and gives a run that asks nothing the ceiling as its budget", () => {
    expect(resolveBudget(undefined, { maxIterations: 50 }, org({ maxIterations: 5 }))).toEqual({ maxIterations: 5 });
    expect(resolveBudget(undefined, null, org({ maxTokens: 700, maxIterations: 9 }))).toEqual({
      maxTokens: 700,
      maxIterations: 9,
    });
    expect(resolveBudget({ maxTokens: 10 }, null, org({ maxIterations: 9 }))).toEqual({
      maxTokens: 10,
      maxIterations: 9,
    });
  });
});

describe('concurrency', () => {
  it('refuses a requested concurrency above the ceiling; none requested is null', () => {
    expect(refusal(() => resolveConcurrency(5, org({ maxConcurrency: 4 }))).details).toEqual({
      reason: 'ABOVE_ORGANIZATION_LIMIT',
      field: 'concurrency',
      requested: 5,
      limit: 4,
    });
    expect(resolveConcurrency(4, org({ maxConcurrency: 4 }))).toBe(4);
    expect(resolveConcurrency(undefined, org({ maxConcurrency: 4 }))).toBeNull();
  });
  it("plans with the run's concurrency, else the default, never above the ceiling", () => {
    expect(runConcurrency({ concurrency: 3 }, 8, noOrganizationLimits)).toBe(3);
    expect(runConcurrency({ concurrency: null }, 8, noOrganizationLimits)).toBe(8);
    expect(runConcurrency({ concurrency: null }, 8, org({ maxConcurrency: 2 }))).toBe(2);
  });
});

describe('BudgetTracker', () => {
  it('hands out at most maxIterations, then nothing', () => {
    const scheduler = new BatchScheduler(
      Array.from({ length: 10 }, (_, i) => `i${i}`),
      { lanes: 1, initialSize: 4, targetMs: 5000, minMs: 500, maxSize: 100 },
    );
    const budget = new BudgetTracker({ maxIterations: 6 }, 1);
    const sizes: number[] = [];
    for (let batch = scheduler.take(budget.allowance()); batch; batch = scheduler.take(budget.allowance())) {
      budget.handedOut(batch.length);
      sizes.push(batch.length);
    }
    expect(sizes).toEqual([4, 2]);
    expect(scheduler.remaining).toBe(4);
  });
  it('with a token budget: one iteration per lane until measured, then what the tokens left pay for, then 0', () => {
    const budget = new BudgetTracker({ maxTokens: 1000 }, 2);
    expect(budget.allowance()).toBe(1);
    budget.spent(1, 100);
    // 900 left at 100 per iteration, shared by 2 lanes
    expect(budget.allowance()).toBe(4);
    budget.spent(4, 400);
    expect(budget.allowance()).toBe(2);
    budget.spent(5, 500);
    expect(budget.tokens).toBe(1000);
    expect(budget.allowance()).toBe(0);
  });
  it('is unbounded without a budget', () => {
    expect(new BudgetTracker({}, 4).allowance()).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('statistics per model', () => {
  const outcome = (caseId: string, model: string, passed: boolean, tokens: number, durationMs: number) => ({
    caseId,
    model,
    provider: 'openai',
    passed,
    durationMs,
    inputTokens: tokens - 1,
    outputTokens: 1,
    totalTokens: tokens,
  });
  const outcomes = [
    outcome('c1', 'a', true, 10, 100),
    outcome('c1', 'b', false, 20, 300),
    outcome('c1', 'a', true, 10, 200),
    outcome('c1', 'b', true, 20, 500),
    outcome('c2', 'a', false, 10, 300),
    outcome('c2', 'b', true, 20, 700),
  ];
  it('summarizes each model: passes, Wilson interval, tokens and latency', () => {
    expect(summarizeModels(outcomes)).toEqual([
      {
        model: 'a',
        provider: 'openai',
        total: 3,
        passed: 2,
        passRate: 2 / 3,
        wilson95: wilsonInterval(2, 3),
        tokens: { input: 27, output: 3, total: 30 },
        costUsd: null,
        latency: { p50: 200, p95: 290, mean: 200 },
      },
      {
        model: 'b',
        provider: 'openai',
        total: 3,
        passed: 2,
        passRate: 2 / 3,
        wilson95: wilsonInterval(2, 3),
        tokens: { input: 57, output: 3, total: 60 },
        costUsd: null,
        latency: { p50: 500, p95: 680, mean: 500 },
      },
    ]);
  });
  it('gives per-case statistics per case and model, k over one model of one case', () => {
    const stats = summarizeIterations(outcomes);
    expect(stats.cases.map((c) => [c.caseId, c.model, c.total, c.passed])).toEqual([
      ['c1', 'a', 2, 2],
      ['c1', 'b', 2, 1],
      ['c2', 'a', 1, 0],
      ['c2', 'b', 1, 1],
    ]);
    expect(stats.passAtK?.k).toBe(1);
  });
});
