import type { SequentialDesign, StopReason } from './compare/sequential.js';

/**
 * Adaptive iterations (issue 31): what a run asks (POST /eval-runs `adaptive`), and what it keeps while it runs.
 * The statistics are domain/evals/compare/sequential.ts; the rounds, domain/useCases/runs/adaptiveRound.ts.
 */

/** What POST /eval-runs asks: the baseline to compare with, and the most a case may spend. */
export interface AdaptiveRequest {
  /** a run id of the same suite, or "previous": the suite's last completed run */
  baseline: string;
  maxIterationsPerCase: number;
  stopWhen: 'decided';
  /** iterations of every case in the first round (default: DEFAULT_FIRST_ROUND, at most maxIterationsPerCase) */
  firstRound?: number;
}

/** Iterations of every case in the first round of an adaptive run that names none. */
export const DEFAULT_FIRST_ROUND = 5;

/** Why a case's adaptive iterations ended: the test's word, or the case has nothing to compare with. */
export type AdaptiveStopReason = StopReason | 'no_baseline';

/** One case of an adaptive run after its last look. */
export interface AdaptiveCase {
  caseId: string;
  title: string;
  /** iterations planned for the case so far */
  iterations: number;
  /** the look (0-based round) it was last decided or continued at */
  look: number;
  /** null: still open (another round is planned) */
  stopReason: AdaptiveStopReason | null;
  /** Fisher's p at the last look, and the level it was tested at (null for a case without a baseline) */
  pValue: number | null;
  level: number | null;
}

/** An adaptive run's settings (fixed when it is created) and its cases so far. */
export interface AdaptiveSettings {
  baselineRunId: string;
  maxIterationsPerCase: number;
  stopWhen: 'decided';
  design: SequentialDesign;
  cases?: AdaptiveCase[];
}

/** Why a case stopped, as a run's summary says (`undecided`: the run ended before the case was decided). */
export const ADAPTIVE_SUMMARY_STOP_REASONS = [
  'decided_regressed',
  'decided_fixed',
  'decided_unchanged',
  'budget',
  'no_baseline',
  'undecided',
] as const;

export interface AdaptiveSummary {
  baselineRunId: string;
  maxIterationsPerCase: number;
  alpha: number;
  cases: {
    caseId: string;
    title: string;
    iterations: number;
    stopReason: (typeof ADAPTIVE_SUMMARY_STOP_REASONS)[number];
    pValue: number | null;
    level: number | null;
  }[];
}

/** The summary's word on an adaptive run's cases, from what its looks recorded. */
export function summarizeAdaptive(settings: AdaptiveSettings): AdaptiveSummary {
  return {
    baselineRunId: settings.baselineRunId,
    maxIterationsPerCase: settings.maxIterationsPerCase,
    alpha: settings.design.alpha,
    cases: (settings.cases ?? []).map((c) => ({
      caseId: c.caseId,
      title: c.title,
      iterations: c.iterations,
      stopReason: c.stopReason ?? 'undecided',
      pValue: c.pValue,
      level: c.level,
    })),
  };
}
