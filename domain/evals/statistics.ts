import { sumCosts } from '../models/prices.js';

/**
 * Statistics over eval iterations. Pure: no I/O.
 *
 * - Pass-rate uncertainty uses the Wilson score interval (good behaviour near
 *   0 and 1 and for small samples, unlike the normal approximation).
 * - pass@k is the unbiased estimator from Chen et al. 2021 ("Evaluating Large
 *   Language Models Trained on Code"): the probability that at least one of k
 *   attempts drawn without replacement from the n recorded ones passed.
 * - pass^k ("pass hat k", from tau-bench) is the probability that all k drawn
 *   attempts passed: C(c, k) / C(n, k). It measures consistency.
 */

export interface Interval {
  low: number;
  high: number;
}

export interface KEstimate {
  k: number;
  value: number;
}

export interface IterationOutcome {
  caseId: string;
  passed: boolean;
  /**
   * the iteration could not be scored (a model, provider or server error: status `failed`); it is errored, never
   * passed or failed, whatever `passed` says (domain/evals/verdicts.ts)
   */
  errored?: boolean;
  durationMs: number | null;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** what the iteration cost in USD; null or absent: unknown (no known price, or recorded before costs were) */
  costUsd?: number | null;
  /** the model the iteration ran with: a case run with several models has statistics per model */
  model?: string | null;
  provider?: string | null;
}

export interface CaseStatistics {
  caseId: string;
  /** the model of these iterations, when the outcomes carry one */
  model?: string | null;
  provider?: string | null;
  total: number;
  passed: number;
  /** 0..1 */
  passRate: number;
  /** pass@k of this case for the run's k; null when k is null or exceeds this case's iterations. */
  passAtK: number | null;
  /** pass^k of this case for the run's k; null when k is null or exceeds this case's iterations. */
  passHatK: number | null;
  /** USD its iterations cost; null when any of them has an unknown cost */
  costUsd: number | null;
}

export interface RunStatistics {
  total: number;
  passed: number;
  /** the iterations that were scored and did not meet the expectations (domain/evals/verdicts.ts) */
  failed: number;
  /** the iterations that could not be scored (a model, provider or server error); passed + failed + errored = total */
  errored: number;
  /** 0..1; 0 when there are no iterations. */
  passRate: number;
  /** Wilson 95% interval of passRate; {0, 1} when there are no iterations. */
  passRateInterval: Interval;
  /** Mean over the cases with at least k iterations; null when there is none. */
  passAtK: KEstimate | null;
  passHatK: KEstimate | null;
  tokens: { input: number; output: number; total: number };
  /** USD the iterations cost; null when any of them has an unknown cost (0 when there are none) */
  costUsd: number | null;
  /** Over iterations with a finite durationMs; all null when there is none. */
  latencyMs: { p50: number | null; p95: number | null; mean: number | null };
  /** One entry per case, in order of first appearance. */
  cases: CaseStatistics[];
}

export interface SummarizeOptions {
  /** k for pass@k and pass^k; a positive integer. Default: the fewest iterations of any case. */
  k?: number;
}

function assertCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

function assertSample(n: number, c: number, k: number): void {
  assertCount('n', n);
  assertCount('c', c);
  assertCount('k', k);
  if (c > n) throw new RangeError(`c (${c}) must not exceed n (${n})`);
  if (k < 1 || k > n) throw new RangeError(`k (${k}) must be between 1 and n (${n})`);
}

/**
 * Wilson score interval for `passed` successes out of `total` trials, clamped
 * to [0, 1]. `z` defaults to 1.96 (95%). With `total` 0 nothing is known, so
 * the interval is the whole range {low: 0, high: 1}.
 * Throws RangeError unless 0 <= passed <= total are integers and z > 0.
 */
export function wilsonInterval(passed: number, total: number, z = 1.96): Interval {
  assertCount('passed', passed);
  assertCount('total', total);
  if (passed > total) throw new RangeError(`passed (${passed}) must not exceed total (${total})`);
  if (!(Number.isFinite(z) && z > 0)) throw new RangeError(`z must be a positive finite number, got ${z}`);
  // Stryker disable next-line ConditionalExpression: with total 0, passed is 0 too, and the ends below pin low to 0 and high to 1 anyway
  if (total === 0) return { low: 0, high: 1 };

  const p = passed / total;
  const z2 = z * z;
  const denominator = 1 + z2 / total;
  const center = (p + z2 / (2 * total)) / denominator;
  const halfWidth = (z * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total))) / denominator;
  return {
    low: passed === 0 ? 0 : Math.max(0, center - halfWidth),
    high: passed === total ? 1 : Math.min(1, center + halfWidth),
  };
}

/**
 * Unbiased pass@k estimator: 1 - C(n-c, k) / C(n, k), computed as the stable
 * product 1 - prod_{i=n-c+1..n} (1 - k/i). n = iterations of a case, c = the
 * passed ones. Throws RangeError unless n, c, k are integers with
 * 0 <= c <= n and 1 <= k <= n.
 */
export function passAtK(n: number, c: number, k: number): number {
  assertSample(n, c, k);
  // Stryker disable next-line ConditionalExpression,ArithmeticOperator: a shortcut: when n - c < k the product below has the factor 1 - k/k = 0, giving exactly 1 too
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/**
 * pass^k: C(c, k) / C(n, k), the probability that k attempts drawn without
 * replacement from the n recorded ones all passed, computed as the product
 * prod_{i=0..k-1} (c-i)/(n-i). Same argument rules as {@link passAtK}.
 */
export function passHatK(n: number, c: number, k: number): number {
  assertSample(n, c, k);
  if (c < k) return 0;
  let allPass = 1;
  for (let i = 0; i < k; i++) allPass *= (c - i) / (n - i);
  return allPass;
}

/**
 * The p-th percentile (p in 0..100) with linear interpolation between closest
 * ranks (rank = p/100 * (count-1), the default of NumPy and Excel's
 * PERCENTILE.INC). Non-finite values are ignored; null when none is left.
 * Throws RangeError when p is outside 0..100.
 */
export function percentile(values: number[], p: number): number | null {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`p must be between 0 and 100, got ${p}`);
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const rank = (p / 100) * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  // Stryker disable next-line ConditionalExpression: a shortcut: the interpolation adds (x - x) * 0 = 0 to the same value
  if (lower === upper) return sorted[lower];
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (rank - lower);
}

function finiteOrZero(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

/**
 * Aggregates iteration outcomes of a run. k for pass@k / pass^k is `opts.k`
 * (must be a positive integer, else RangeError) or, by default, the fewest
 * iterations any case has. The run-level values are the mean over the cases
 * that have at least k iterations; cases with fewer get null.
 */
export function summarizeIterations(iterations: IterationOutcome[], opts: SummarizeOptions = {}): RunStatistics {
  if (opts.k !== undefined && !(Number.isInteger(opts.k) && opts.k >= 1)) {
    throw new RangeError(`k must be a positive integer, got ${opts.k}`);
  }

  // One entry per case and model: a case compared across models is scored per model (pass@k of one model's runs).
  const byCase = new Map<
    string,
    {
      caseId: string;
      model?: string | null;
      provider?: string | null;
      total: number;
      passed: number;
      costs: (number | null | undefined)[];
    }
  >();
  let passed = 0;
  let errored = 0;
  const tokens = { input: 0, output: 0, total: 0 };
  const durations: number[] = [];
  for (const iteration of iterations) {
    const key =
      // Stryker disable next-line ConditionalExpression: a run's outcomes all carry a model or none does; without one, the case id and two separators group the same outcomes as the case id alone
      iteration.model === undefined
        ? iteration.caseId
        : // Stryker disable next-line StringLiteral: '' stands in for a null model or provider only inside this key; any other stand-in groups the same outcomes, as names are never empty (min 1 at the edge)
          `${iteration.caseId}\u0000${iteration.model ?? ''}\u0000${iteration.provider ?? ''}`;
    let entry = byCase.get(key);
    if (entry === undefined) {
      entry = { caseId: iteration.caseId, total: 0, passed: 0, costs: [] };
      // Stryker disable next-line ConditionalExpression: setting an undefined model changes nothing: the case reports a model only when it is not undefined
      if (iteration.model !== undefined) {
        entry.model = iteration.model;
        entry.provider = iteration.provider ?? null;
      }
      byCase.set(key, entry);
    }
    entry.total++;
    entry.costs.push(iteration.costUsd);
    if (iteration.errored) {
      errored++;
    } else if (iteration.passed) {
      entry.passed++;
      passed++;
    }
    tokens.input += finiteOrZero(iteration.inputTokens);
    tokens.output += finiteOrZero(iteration.outputTokens);
    tokens.total += finiteOrZero(iteration.totalTokens);
    // Stryker disable next-line ConditionalExpression: Number.isFinite never coerces, so it is false for null without the null check (there for the type)
    if (iteration.durationMs !== null && Number.isFinite(iteration.durationMs)) durations.push(iteration.durationMs);
  }

  const total = iterations.length;
  const caseEntries = [...byCase.values()];
  const fewest = caseEntries.reduce<number | null>(
    // Stryker disable next-line EqualityOperator: on a tie both sides are the same number
    (min, entry) => (min === null || entry.total < min ? entry.total : min),
    null,
  );
  const k = opts.k ?? fewest;

  const cases: CaseStatistics[] = caseEntries.map((entry) => {
    // Stryker disable next-line ConditionalExpression: k is null only when there is no case, and then nothing is mapped
    const usable = k !== null && entry.total >= k;
    return {
      caseId: entry.caseId,
      ...(entry.model !== undefined && { model: entry.model, provider: entry.provider }),
      total: entry.total,
      passed: entry.passed,
      passRate: entry.passed / entry.total,
      passAtK: usable ? passAtK(entry.total, entry.passed, k) : null,
      passHatK: usable ? passHatK(entry.total, entry.passed, k) : null,
      costUsd: sumCosts(entry.costs),
    };
  });

  const mean = (values: number[]): number | null =>
    values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
  const atK = cases.flatMap((entry) => (entry.passAtK === null ? [] : [entry.passAtK]));
  const hatK = cases.flatMap((entry) => (entry.passHatK === null ? [] : [entry.passHatK]));
  const meanAtK = mean(atK);
  const meanHatK = mean(hatK);

  return {
    total,
    passed,
    failed: total - passed - errored,
    errored,
    passRate: total === 0 ? 0 : passed / total,
    passRateInterval: wilsonInterval(passed, total),
    // Stryker disable next-line ConditionalExpression: a mean exists only when some case does, and then k is not null
    passAtK: k !== null && meanAtK !== null ? { k, value: meanAtK } : null,
    // Stryker disable next-line ConditionalExpression: a mean exists only when some case does, and then k is not null
    passHatK: k !== null && meanHatK !== null ? { k, value: meanHatK } : null,
    tokens,
    costUsd: sumCosts(iterations.map((iteration) => iteration.costUsd)),
    latencyMs: {
      p50: percentile(durations, 50),
      p95: percentile(durations, 95),
      mean: mean(durations),
    },
    cases,
  };
}

/** One model's share of a run (`summary.models`): how often it passed, with its Wilson interval, tokens and latency. */
export interface ModelStatistics {
  model: string | null;
  provider: string | null;
  total: number;
  passed: number;
  /** 0..1; 0 when it ran nothing */
  passRate: number;
  wilson95: Interval;
  tokens: { input: number; output: number; total: number };
  /** USD its iterations cost; null when any of them has an unknown cost */
  costUsd: number | null;
  /** milliseconds, over its iterations with a finite durationMs */
  latency: { p50: number | null; p95: number | null; mean: number | null };
}

/** The run's statistics per model (model and provider), in order of first appearance. */
export function summarizeModels(iterations: IterationOutcome[]): ModelStatistics[] {
  const byModel = new Map<string, { model: string | null; provider: string | null; outcomes: IterationOutcome[] }>();
  for (const iteration of iterations) {
    const model = iteration.model ?? null;
    const provider = iteration.provider ?? null;
    // Stryker disable next-line StringLiteral: '' stands in for a null model or provider only inside this key; any other stand-in groups the same outcomes, as names are never empty (min 1 at the edge)
    const key = `${model ?? ''}\u0000${provider ?? ''}`;
    let entry = byModel.get(key);
    if (entry === undefined) {
      entry = { model, provider, outcomes: [] };
      byModel.set(key, entry);
    }
    entry.outcomes.push(iteration);
  }
  return [...byModel.values()].map(({ model, provider, outcomes }) => {
    const passed = outcomes.filter((o) => o.passed && !o.errored).length;
    const durations = outcomes.flatMap((o) =>
      // Stryker disable next-line ConditionalExpression: Number.isFinite never coerces, so it is false for null without the null check (there for the type)
      o.durationMs !== null && Number.isFinite(o.durationMs) ? [o.durationMs] : [],
    );
    const sum = (pick: (o: IterationOutcome) => number) => outcomes.reduce((t, o) => t + finiteOrZero(pick(o)), 0);
    return {
      model,
      provider,
      total: outcomes.length,
      passed,
      // Stryker disable next-line ConditionalExpression: a model's entry exists only once it has an outcome, so the length is never 0 here
      passRate: outcomes.length === 0 ? 0 : passed / outcomes.length,
      wilson95: wilsonInterval(passed, outcomes.length),
      tokens: {
        input: sum((o) => o.inputTokens),
        output: sum((o) => o.outputTokens),
        total: sum((o) => o.totalTokens),
      },
      costUsd: sumCosts(outcomes.map((o) => o.costUsd)),
      latency: {
        p50: percentile(durations, 50),
        p95: percentile(durations, 95),
        mean: durations.length === 0 ? null : durations.reduce((t, d) => t + d, 0) / durations.length,
      },
    };
  });
}
