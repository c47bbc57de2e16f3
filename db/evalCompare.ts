import type { Db } from './connection.js';
import { camelRow } from './rows.js';
import type { RunRow } from './evalRuns.js';
import type { Run } from '../domain/evals/run.js';
import type {
  CaseAggregate,
  Confusion,
  PerformanceAggregate,
  SideAggregates,
  ToolAggregate,
} from '../domain/evals/compare/aggregates.js';

/**
 * The aggregates a comparison needs from one side (domain/evals/compare/aggregates.ts): a run's finished iterations,
 * or those of one model in a run. Everything is counted in SQL (one statement per side over the run's rows, found
 * through eval_iterations_page_idx), so comparing two 1,000-iteration runs moves a few dozen rows, not thousands
 * (bench/compare.ts). The shapes are the domain's, re-exported for the modules that still import them from here.
 */
export type { CaseAggregate, Confusion, PerformanceAggregate, SideAggregates, ToolAggregate };

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
  // One statement: the side's rows are read once (the `it` CTE), its tool calls unnested once (`d`: per iteration
  // and tool, how often it was expected and called; a negative test expects nothing), and the four aggregates come
  // back as JSON in one row.
  const [row] = await sql<
    {
      cases: CaseAggregate[];
      tools: ToolAggregate[];
      confusions: Confusion[];
      performance: {
        total: number;
        passed: number;
        p50: number | null;
        p95: number | null;
        input: number;
        output: number;
        tokens: number;
        cost: number | null;
      };
    }[]
  >`
    WITH it AS MATERIALIZED (
      SELECT id, seq, case_id, title, query, result, duration_ms, input_tokens, output_tokens, total_tokens, cost_usd,
             CASE WHEN is_negative_test OR jsonb_typeof(expected_tool_calls) <> 'array' THEN '[]'::jsonb ELSE expected_tool_calls END AS expected,
             CASE WHEN jsonb_typeof(actual_tool_calls) <> 'array' THEN '[]'::jsonb ELSE actual_tool_calls END AS actual
      FROM eval_iterations WHERE ${finished(sql, runId, model)}
    ),
    e AS (SELECT it.id, ${nameOf(sql)} AS tool, count(*)::int AS n FROM it, jsonb_array_elements(it.expected) x GROUP BY 1, 2),
    a AS (SELECT it.id, ${nameOf(sql)} AS tool, count(*)::int AS n FROM it, jsonb_array_elements(it.actual) x GROUP BY 1, 2),
    d AS MATERIALIZED (
      SELECT id, tool, COALESCE(e.n, 0) AS expected, COALESCE(a.n, 0) AS called
      FROM e FULL JOIN a USING (id, tool) WHERE tool IS NOT NULL
    )
    SELECT
      (SELECT COALESCE(json_agg(c ORDER BY c.first), '[]'::json) FROM (
         SELECT COALESCE(case_id, 'title:' || title) AS key, case_id AS "caseId", min(title) AS title, min(query) AS query,
                count(*)::int AS total, count(*) FILTER (WHERE result = 'passed')::int AS passed, min(seq) AS first
         FROM it GROUP BY COALESCE(case_id, 'title:' || title), case_id) c) AS cases,
      (SELECT COALESCE(json_agg(t ORDER BY t."toolName"), '[]'::json) FROM (
         SELECT tool AS "toolName", sum(LEAST(expected, called))::int AS matched, sum(called)::int AS called,
                sum(expected)::int AS expected
         FROM d GROUP BY tool) t) AS tools,
      -- Confusions: in one iteration, a tool expected more often than called, and another called more than expected.
      (SELECT COALESCE(json_agg(f ORDER BY f.count DESC, f.expected, f.called), '[]'::json) FROM (
         SELECT m.tool AS expected, x.tool AS called, count(*)::int AS count
         FROM d m JOIN d x ON x.id = m.id AND x.called > x.expected AND x.tool <> m.tool
         WHERE m.expected > m.called GROUP BY m.tool, x.tool ORDER BY count(*) DESC, m.tool, x.tool
         LIMIT ${options.confusions}) f) AS confusions,
      (SELECT row_to_json(p) FROM (
         SELECT count(*)::int AS total, count(*) FILTER (WHERE result = 'passed')::int AS passed,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
                percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95,
                COALESCE(sum(input_tokens), 0)::float8 AS input, COALESCE(sum(output_tokens), 0)::float8 AS output,
                COALESCE(sum(total_tokens), 0)::float8 AS tokens,
                -- unknown when any iteration's is (an unknown price is never 0)
                CASE WHEN bool_or(cost_usd IS NULL) THEN NULL ELSE COALESCE(sum(cost_usd), 0) END AS cost
         FROM it) p) AS performance`;
  const { performance } = row;
  return {
    cases: row.cases.map(({ key, caseId, title, query, total, passed }) => ({
      key,
      caseId,
      title,
      query,
      total,
      passed,
    })),
    tools: row.tools,
    confusions: row.confusions,
    performance: {
      total: performance.total,
      passed: performance.passed,
      latencyMs: { p50: performance.p50, p95: performance.p95 },
      tokens: { input: performance.input, output: performance.output, total: performance.tokens },
      costUsd: performance.cost === null ? null : Math.round(performance.cost * 1e9) / 1e9,
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
): Promise<Run | undefined> {
  const [row] = await sql<RunRow[]>`
    SELECT * FROM eval_runs WHERE suite_id = ${run.suiteId} AND run_number < ${run.runNumber} AND status = 'completed'
    ORDER BY run_number DESC LIMIT 1`;
  return camelRow(row);
}
