import type { Case } from './case.js';

/** Where an iteration stands: planned (pending), running, or finished: completed, failed (errored) or cancelled. */
export type IterationStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

/** One execution of a case (for one of its models) in a run, or one reported by ingest. */
export interface Iteration {
  id: string;
  runId: string;
  /** null for an ingested iteration reported without a case */
  caseId: string | null;
  title: string;
  query: string;
  iterationNumber: number;
  /** the model's position in its case's models (0 for a case with one model) */
  modelIndex: number;
  status: IterationStatus;
  /** a completed iteration's verdict (domain/evals/verdicts.ts) */
  result: 'passed' | 'failed' | null;
  model: string | null;
  provider: string | null;
  startedAt: Date | null;
  durationMs: number | null;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** of the input tokens, those read from the provider's prompt cache */
  cachedInputTokens: number;
  /** what the iteration cost in USD at its organization's prices when it finished; null: unknown (no known price) */
  costUsd: number | null;
  expectedToolCalls: unknown[];
  actualToolCalls: unknown[];
  error: string | null;
  errorDetails: unknown;
  metadata: Record<string, unknown> | null;
  isNegativeTest: boolean;
  externalIterationId: string | null;
  /** its order in the run */
  seq: number;
  /** where the iteration stands in its run's events stream: set when its status became final */
  streamPosition: number | null;
  /** when retention deleted its trace (migration 068); null: never */
  traceExpiredAt: Date | null;
}

/**
 * An iteration about to run, with what its case adds (advanced config, match options, elicitation, the output check
 * and the turns of a conversation; null without a case), read from the case as the batch runs. The iteration keeps
 * the query and expected tool calls it was planned with.
 */
export interface BatchIteration extends Iteration {
  advancedConfig: Case['advancedConfig'];
  matchOptions: Case['matchOptions'];
  elicitation: Case['elicitation'];
  expectedOutput: Case['expectedOutput'];
  outputCheck: Case['outputCheck'];
  turns: Case['turns'];
}

/** An iteration a run plans (domain/evals/plan.ts): written once as pending, in plan order. */
export interface PlannedIteration {
  caseId: string;
  title: string;
  query: string;
  iterationNumber: number;
  /** the model's position in its case's models (0 for a case with one model) */
  modelIndex?: number;
  model: string | null;
  provider: string | null;
  expectedToolCalls: unknown[];
  isNegativeTest: boolean;
}

/**
 * What an executed iteration stores (domain/evals/executeIteration.ts): its result, usage, tool calls and trace. Not
 * the statistics' IterationOutcome (domain/evals/statistics.ts), which is the few numbers a summary counts.
 */
export interface IterationCompletion {
  status: 'completed' | 'failed';
  result: 'passed' | 'failed';
  model: string | null;
  provider: string | null;
  durationMs: number;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number; cachedInputTokens?: number };
  /** USD at the organization's prices (domain/models/prices.ts), the judge's tokens at the judge's; null: unknown */
  costUsd: number | null;
  actualToolCalls: unknown[];
  error: string | null;
  errorDetails?: unknown;
  trace: object;
  /**
   * a re-graded iteration (domain/evals/regrade.ts): `trace` holds only the keys that change (its grades), merged
   * into the recorded trace stored with the iteration, which keeps the conversation
   */
  traceMerge?: boolean;
}
