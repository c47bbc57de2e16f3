import {
  summarizeIterations,
  summarizeModels,
  type IterationOutcome,
  type ModelStatistics,
  type RunStatistics,
} from './statistics.js';
import type { AdaptiveSummary } from './adaptive.js';

/** The run's statistics, with one entry per model that ran (`models`) and, for a run cut short, why. */
export type RunSummary = RunStatistics & {
  models: ModelStatistics[];
  stoppedBy?: 'budget';
  /** an adaptive run's cases: the iterations each spent and why it stopped */
  adaptive?: AdaptiveSummary;
};

/**
 * The run summary (pass rate plus statistics) and its result, the same for executed and ingested runs.
 * `result` is passed when passRate*100 >= minimumPassRate; a run with nothing finished has no result.
 */
export function summarizeRun(
  outcomes: IterationOutcome[],
  passCriteria: { minimumPassRate: number },
): { summary: RunSummary; result: 'passed' | 'failed' | null } {
  const summary: RunSummary = { ...summarizeIterations(outcomes), models: summarizeModels(outcomes) };
  if (summary.total === 0) return { summary, result: null };
  return { summary, result: summary.passRate * 100 >= passCriteria.minimumPassRate ? 'passed' : 'failed' };
}
