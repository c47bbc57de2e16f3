/**
 * The aggregates a comparison (compare.ts) and a run's tool analysis (tools.ts) are built from: one side's finished
 * iterations (a run's, or those of one model in a run), counted where they are stored (db/evalCompare.ts), so that
 * comparing two large runs moves a few dozen numbers, not thousands of iterations.
 */

export interface CaseAggregate {
  /** the case id, or `title:<title>` for an ingested result stored without a case */
  key: string;
  caseId: string | null;
  title: string;
  query: string;
  total: number;
  passed: number;
}

export interface ToolAggregate {
  toolName: string;
  /** calls of the tool that an expected call of the same tool in the same iteration accounts for */
  matched: number;
  called: number;
  expected: number;
}

export interface Confusion {
  expected: string;
  called: string;
  count: number;
}

export interface PerformanceAggregate {
  total: number;
  passed: number;
  latencyMs: { p50: number | null; p95: number | null };
  tokens: { input: number; output: number; total: number };
  /** USD the side's iterations cost; null when any of them has an unknown cost (no known price) */
  costUsd: number | null;
}

export interface SideAggregates {
  cases: CaseAggregate[];
  tools: ToolAggregate[];
  confusions: Confusion[];
  performance: PerformanceAggregate;
}
