import type { Db } from './connection.js';
import { camelRow, type Camel } from './rows.js';
import type { RunRow } from './evalRuns.js';

/**
 * The aggregates a comparison needs from one side: a run's finished iterations, or those of one model in a run.
 * Everything is counted in SQL (three grouped queries over the run's rows, found through eval_iterations_page_idx),
 * so comparing two 1,000-iteration runs moves a few dozen rows, not thousands (bench/compare.ts).
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
}

export interface SideAggregates {
  cases: CaseAggregate[];
  tools: ToolAggregate[];
  confusions: Confusion[];
  performance: PerformanceAggregate;
}

/** undefined: every model; null: iterations without a model; a string: that model. */
export type ModelFilter = string | null | undefined;

const finished = (sql: Db, runId: string, model: ModelFilter) => sql`
  run_id = ${runId} AND status IN ('completed', 'failed')
  ${model === undefined ? sql`` : model === null ? sql`AND model IS NULL` : sql`AND model = ${model}`}`;

/** A tool name from an expected or actual call, stored as an object with toolName (or, in old rows, a bare name). */
const nameOf = (sql: Db) => sql`CASE WHEN jsonb_typeof(x) = 'string' THEN x #>> '{}' ELSE x ->> 'toolName' END`;

export async function sideAggregates(
  sql: Db,
  runId: string,
  model: ModelFilter,
  options: { confusions: number },
): Promise<SideAggregates> {
  const where = finished(sql, runId, model);
  const [cases, tools, confusions, [performance]] = await Promise.all([
    sql<CaseAggregate[]>`
      SELECT COALESCE(case_id, 'title:' || title) AS key, case_id AS "caseId", min(title) AS title, min(query) AS query,
             count(*)::int AS total, count(*) FILTER (WHERE result = 'passed')::int AS passed
      FROM eval_iterations WHERE ${where}
      GROUP BY COALESCE(case_id, 'title:' || title), case_id ORDER BY min(seq)`,
    // Per iteration and tool: how often it was expected (a negative test expects nothing) and called.
    sql<ToolAggregate[]>`
      WITH it AS (SELECT id, is_negative_test, expected_tool_calls, actual_tool_calls FROM eval_iterations WHERE ${where}),
      e AS (SELECT it.id, ${nameOf(sql)} AS tool, count(*)::int AS n FROM it,
              jsonb_array_elements(CASE WHEN it.is_negative_test OR jsonb_typeof(it.expected_tool_calls) <> 'array' THEN '[]'::jsonb ELSE it.expected_tool_calls END) x
            GROUP BY 1, 2),
      a AS (SELECT it.id, ${nameOf(sql)} AS tool, count(*)::int AS n FROM it,
              jsonb_array_elements(CASE WHEN jsonb_typeof(it.actual_tool_calls) <> 'array' THEN '[]'::jsonb ELSE it.actual_tool_calls END) x
            GROUP BY 1, 2)
      SELECT tool AS "toolName", sum(LEAST(COALESCE(e.n, 0), COALESCE(a.n, 0)))::int AS matched,
             sum(COALESCE(a.n, 0))::int AS called, sum(COALESCE(e.n, 0))::int AS expected
      FROM e FULL JOIN a USING (id, tool) WHERE tool IS NOT NULL GROUP BY tool ORDER BY tool`,
    // Confusions: in one iteration, a tool expected more often than called, and another called more than expected.
    sql<Confusion[]>`
      WITH it AS (SELECT id, is_negative_test, expected_tool_calls, actual_tool_calls FROM eval_iterations WHERE ${where}),
      e AS (SELECT it.id, ${nameOf(sql)} AS tool, count(*)::int AS n FROM it,
              jsonb_array_elements(CASE WHEN it.is_negative_test OR jsonb_typeof(it.expected_tool_calls) <> 'array' THEN '[]'::jsonb ELSE it.expected_tool_calls END) x
            GROUP BY 1, 2),
      a AS (SELECT it.id, ${nameOf(sql)} AS tool, count(*)::int AS n FROM it,
              jsonb_array_elements(CASE WHEN jsonb_typeof(it.actual_tool_calls) <> 'array' THEN '[]'::jsonb ELSE it.actual_tool_calls END) x
            GROUP BY 1, 2),
      d AS (SELECT id, tool, COALESCE(e.n, 0) - COALESCE(a.n, 0) AS gap FROM e FULL JOIN a USING (id, tool) WHERE tool IS NOT NULL)
      SELECT m.tool AS expected, x.tool AS called, count(*)::int AS count
      FROM d m JOIN d x ON x.id = m.id AND x.gap < 0 AND x.tool <> m.tool
      WHERE m.gap > 0 GROUP BY m.tool, x.tool ORDER BY count(*) DESC, m.tool, x.tool LIMIT ${options.confusions}`,
    sql<
      {
        total: number;
        passed: number;
        p50: number | null;
        p95: number | null;
        input: number;
        output: number;
        tokens: number;
      }[]
    >`
      SELECT count(*)::int AS total, count(*) FILTER (WHERE result = 'passed')::int AS passed,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
             percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95,
             COALESCE(sum(input_tokens), 0)::float8 AS input, COALESCE(sum(output_tokens), 0)::float8 AS output,
             COALESCE(sum(total_tokens), 0)::float8 AS tokens
      FROM eval_iterations WHERE ${where}`,
  ]);
  return {
    cases,
    tools,
    confusions,
    performance: {
      total: performance.total,
      passed: performance.passed,
      latencyMs: { p50: performance.p50, p95: performance.p95 },
      tokens: { input: performance.input, output: performance.output, total: performance.tokens },
    },
  };
}

/** The models of a run's iterations, in order of first appearance (null: iterations that name none). */
export async function runModels(sql: Db, runId: string): Promise<(string | null)[]> {
  const rows = await sql<{ model: string | null }[]>`
    SELECT model FROM eval_iterations WHERE run_id = ${runId} GROUP BY model ORDER BY min(seq)`;
  return rows.map((r) => r.model);
}

/** The suite's latest completed run before this one (by run number): a comparison's default base. */
export async function previousCompletedRun(
  sql: Db,
  run: { suiteId: string; runNumber: number },
): Promise<Camel<RunRow> | undefined> {
  const [row] = await sql<RunRow[]>`
    SELECT * FROM eval_runs WHERE suite_id = ${run.suiteId} AND run_number < ${run.runNumber} AND status = 'completed'
    ORDER BY run_number DESC LIMIT 1`;
  return camelRow(row);
}
