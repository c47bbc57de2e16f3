/**
 * What a run will cost before it starts (POST /eval-runs with dryRun): each case and model's iterations times the
 * tokens an iteration spends there, at the organization's prices. Pure.
 *
 * The tokens come from the suite's earlier runs when they ran that case with that model (`history`: the mean, and
 * the 10th and 90th percentiles of an iteration's input and output tokens), else from the heuristic below.
 */
import { costOf, sumCosts, DEFAULT_PRICES_AS_OF } from '../models/prices.js';
import type { PlannedModel, RunPreview } from './startEvalRun.js';

/** What one case spent per iteration with one model, over the suite's recent runs (db/evalIterations.ts). */
export interface UsageHistory {
  caseId: string;
  model: string | null;
  provider: string | null;
  /** finished iterations measured */
  iterations: number;
  input: TokenSpread;
  output: TokenSpread;
  /** mean input tokens per iteration read from the prompt cache */
  cachedInputMean: number;
}

export interface TokenSpread {
  mean: number;
  p10: number;
  p90: number;
}

/** USD a run may cost: the expected figure and a range around it. */
export interface CostRange {
  low: number;
  expected: number;
  high: number;
}

/**
 * Without history: an iteration's input tokens are about HEURISTIC.inputPerTurn per user prompt (the system prompt,
 * the tools' schemas and a tool call's result, sent again on each step), its output about HEURISTIC.outputPerTurn;
 * a judged turn adds one judge call. The range is `low`..`high` times the expected figure: tool schemas and answers
 * vary by far more than sampling does.
 */
export const HEURISTIC = {
  inputPerTurn: 2_000,
  outputPerTurn: 300,
  judgeInputPerTurn: 800,
  judgeOutputPerTurn: 100,
  low: 0.25,
  high: 4,
} as const;

export const HEURISTIC_DESCRIPTION =
  `without earlier runs of a case with a model, an iteration is taken to spend ${HEURISTIC.inputPerTurn} input and ` +
  `${HEURISTIC.outputPerTurn} output tokens per user prompt (plus ${HEURISTIC.judgeInputPerTurn} input and ` +
  `${HEURISTIC.judgeOutputPerTurn} output tokens of a judge call per judged prompt), and the range is ` +
  `${HEURISTIC.low}x to ${HEURISTIC.high}x that; with earlier runs (the suite's last runs' finished iterations of ` +
  `the case and model), the mean tokens per iteration, and the 10th to 90th percentile for the range`;

export interface EstimatedEntry {
  caseId: string | null;
  title: string;
  model: string | null;
  provider: string | null;
  iterations: number;
  /** the most iterations it may spend (an adaptive run's maxIterationsPerCase), which the cost's `high` counts */
  maxIterations: number;
  basis: 'history' | 'heuristic';
  /** the earlier iterations the history measured (0 for the heuristic) */
  historyIterations: number;
  /** expected tokens per iteration */
  tokensPerIteration: { input: number; output: number };
  /** null: the model (or the judge) has no known price */
  costUsd: CostRange | null;
}

export interface RunEstimate {
  iterations: number;
  entries: EstimatedEntry[];
  /** expected tokens of the whole run */
  tokens: { input: number; output: number; total: number };
  /** null when any model the run uses has no known price */
  costUsd: CostRange | null;
  /** the price keys without a known price */
  unpricedModels: string[];
  pricesAsOf: string;
}

const historyKey = (caseId: string, model: string | null, provider: string | null) =>
  `${caseId}\u0000${model ?? ''}\u0000${provider ?? ''}`;

/**
 * A per-iteration range over a case's iterations: low and expected over the iterations it will run, high over the
 * most it may run (an adaptive run's maxIterationsPerCase: its rounds stop early only when the case is decided).
 */
const scale = (range: CostRange | null, c: { iterations: number; maxIterations: number }): CostRange | null =>
  range && {
    low: range.low * c.iterations,
    expected: range.expected * c.iterations,
    high: range.high * c.maxIterations,
  };

const round = (range: CostRange | null): CostRange | null =>
  range && { low: sumCosts([range.low])!, expected: sumCosts([range.expected])!, high: sumCosts([range.high])! };

/** The run's expected cost per case and model, and in all. */
export function estimateRun(preview: RunPreview, history: UsageHistory[]): RunEstimate {
  const byKey = new Map(history.map((h) => [historyKey(h.caseId, h.model, h.provider), h]));
  const unpriced = new Set<string>();
  const priced = (m: PlannedModel) => {
    if (!m.price) unpriced.add(m.priceKey ?? m.model ?? '(none)');
    return m.price;
  };
  const entries: EstimatedEntry[] = preview.cases.flatMap((c) =>
    c.models.map((m): EstimatedEntry => {
      const past = c.caseId === null ? undefined : byKey.get(historyKey(c.caseId, m.model, m.provider));
      const price = priced(m);
      if (past) {
        // The earlier iterations' tokens include their judge calls, priced here at the model's price.
        const cachedShare = past.input.mean > 0 ? Math.min(1, past.cachedInputMean / past.input.mean) : 0;
        const at = (input: number, output: number) =>
          costOf({ inputTokens: input, outputTokens: output, cachedInputTokens: input * cachedShare }, price);
        const [low, expected, high] = [
          at(past.input.p10, past.output.p10),
          at(past.input.mean, past.output.mean),
          at(past.input.p90, past.output.p90),
        ];
        return {
          caseId: c.caseId,
          title: c.title,
          model: m.model,
          provider: m.provider,
          iterations: c.iterations,
          maxIterations: c.maxIterations,
          basis: 'history',
          historyIterations: past.iterations,
          tokensPerIteration: { input: past.input.mean, output: past.output.mean },
          costUsd: round(scale(low === null || expected === null || high === null ? null : { low, expected, high }, c)),
        };
      }
      const judge = c.judged ? (preview.judgeModel ?? m) : undefined;
      const judgePrice = judge && priced(judge);
      const agent = costOf(
        { inputTokens: HEURISTIC.inputPerTurn * c.turns, outputTokens: HEURISTIC.outputPerTurn * c.turns },
        price,
      );
      const judging = judge
        ? costOf(
            {
              inputTokens: HEURISTIC.judgeInputPerTurn * c.turns,
              outputTokens: HEURISTIC.judgeOutputPerTurn * c.turns,
            },
            judgePrice,
          )
        : 0;
      const perIteration = sumCosts([agent, judging]);
      const tokens = (agentPerTurn: number, judgePerTurn: number) =>
        (agentPerTurn + (judge ? judgePerTurn : 0)) * c.turns;
      return {
        caseId: c.caseId,
        title: c.title,
        model: m.model,
        provider: m.provider,
        iterations: c.iterations,
        maxIterations: c.maxIterations,
        basis: 'heuristic',
        historyIterations: 0,
        tokensPerIteration: {
          input: tokens(HEURISTIC.inputPerTurn, HEURISTIC.judgeInputPerTurn),
          output: tokens(HEURISTIC.outputPerTurn, HEURISTIC.judgeOutputPerTurn),
        },
        costUsd: round(
          perIteration === null
            ? null
            : scale(
                {
                  low: perIteration * HEURISTIC.low,
                  expected: perIteration,
                  high: perIteration * HEURISTIC.high,
                },
                c,
              ),
        ),
      };
    }),
  );
  const sum = (pick: (e: EstimatedEntry) => number) => entries.reduce((t, e) => t + pick(e), 0);
  const input = Math.round(sum((e) => e.tokensPerIteration.input * e.iterations));
  const output = Math.round(sum((e) => e.tokensPerIteration.output * e.iterations));
  const costs = entries.map((e) => e.costUsd);
  const known = costs.every((c) => c !== null);
  return {
    iterations: preview.iterations,
    entries,
    tokens: { input, output, total: input + output },
    costUsd: known
      ? round({
          low: sum((e) => e.costUsd!.low),
          expected: sum((e) => e.costUsd!.expected),
          high: sum((e) => e.costUsd!.high),
        })
      : null,
    unpricedModels: [...unpriced].sort(),
    pricesAsOf: DEFAULT_PRICES_AS_OF,
  };
}
