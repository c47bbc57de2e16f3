import type { Db, Tx } from './connection.js';
import { newId } from '../domain/ids.js';
import type { SkippedCase } from '../domain/evals/run.js';

/**
 * Re-grading's queries (issue 31, domain/evals/regrade.ts). The recorded conversations stay in Postgres: a re-grade
 * run's iterations get a copy of the original's traces by INSERT ... SELECT, and the worker reads of them only the
 * turns it grades (`prompts`: prompt, tool calls, answer), never the messages.
 */

/** The original's iterations a re-grade copies: finished, of a case that is live and asks the same prompt. */
const regradable = (sql: Db, runId: string) => sql`
  FROM eval_iterations o JOIN eval_cases c ON c.id = o.case_id AND c.deleted_at IS NULL AND c.query = o.query
  WHERE o.run_id = ${runId} AND o.status IN ('completed', 'failed')`;

/** The run's finished iterations, and how many of them recorded a graded conversation (a trace with `prompts`). */
export async function countRecorded(sql: Db, runId: string): Promise<{ finished: number; recorded: number }> {
  const [row] = await sql<{ finished: number; recorded: number }[]>`
    SELECT count(*)::int AS finished,
      count(*) FILTER (WHERE jsonb_typeof(t.trace->'prompts') = 'array' AND jsonb_array_length(t.trace->'prompts') > 0)::int AS recorded
    FROM eval_iterations o LEFT JOIN eval_traces t ON t.iteration_id = o.id
    WHERE o.run_id = ${runId} AND o.status IN ('completed', 'failed')`;
  return row;
}

/** The original's cases a re-grade leaves out: deleted since, or asking another prompt now. */
export async function skippedCases(sql: Db, runId: string): Promise<SkippedCase[]> {
  return await sql<SkippedCase[]>`
    SELECT o.case_id AS "caseId", min(o.title) AS title,
      CASE WHEN c.id IS NULL OR c.deleted_at IS NOT NULL THEN 'CASE_DELETED' ELSE 'PROMPTS_CHANGED' END AS reason
    FROM eval_iterations o LEFT JOIN eval_cases c ON c.id = o.case_id
    WHERE o.run_id = ${runId} AND o.status IN ('completed', 'failed')
      AND (c.id IS NULL OR c.deleted_at IS NOT NULL OR c.query <> o.query)
    GROUP BY o.case_id, 3 ORDER BY min(o.seq)`;
}

/**
 * Copies the original's regradable iterations into the re-grade run, in plan order, with their cases' current
 * expectations (expected tool calls, negative test), their recorded tool calls, usage and time, and their traces
 * (copied in SQL). A completed one is pending, to be graded again; one that errored stays failed (nothing to grade),
 * saying so. Each names the iteration it re-grades (`metadata.regradeOfRunId`, `regradeOfIterationId`: metadata
 * holds flat values). Returns the pending ones' ids.
 */
export async function copyRecordedIterations(tx: Tx, originalRunId: string, runId: string): Promise<string[]> {
  const originals = await tx<{ id: string }[]>`SELECT o.id ${regradable(tx, originalRunId)} ORDER BY o.seq`;
  if (originals.length === 0) return [];
  const originalIds = originals.map((o) => o.id);
  const newIds = originals.map(() => newId('itr'));
  const copied = await tx<{ id: string; status: string }[]>`
    INSERT INTO eval_iterations (id, run_id, case_id, title, query, iteration_number, model_index, status, result,
      model, provider, started_at, duration_ms, input_tokens, output_tokens, total_tokens, expected_tool_calls,
      actual_tool_calls, error, error_details, metadata, is_negative_test)
    SELECT p.new_id, ${runId}, o.case_id, c.title, c.query, o.iteration_number, o.model_index,
      CASE WHEN o.status = 'failed' THEN 'failed' ELSE 'pending' END,
      CASE WHEN o.status = 'failed' THEN 'failed' END,
      o.model, o.provider, o.started_at, o.duration_ms, o.input_tokens, o.output_tokens, o.total_tokens,
      c.expected_tool_calls, o.actual_tool_calls,
      CASE WHEN o.status = 'failed' THEN 'not re-graded: the recorded iteration errored: ' || COALESCE(o.error, 'no reason recorded') END,
      CASE WHEN o.status = 'failed' THEN o.error_details END,
      jsonb_build_object('regradeOfRunId', o.run_id, 'regradeOfIterationId', o.id),
      c.is_negative_test
    FROM unnest(${originalIds}::text[], ${newIds}::text[]) WITH ORDINALITY AS p(original_id, new_id, n)
    JOIN eval_iterations o ON o.id = p.original_id JOIN eval_cases c ON c.id = o.case_id
    ORDER BY p.n
    RETURNING id, status`;
  await tx`
    INSERT INTO eval_traces (iteration_id, trace)
    SELECT p.new_id, t.trace
    FROM unnest(${originalIds}::text[], ${newIds}::text[]) AS p(original_id, new_id)
    JOIN eval_traces t ON t.iteration_id = p.original_id`;
  const pending = new Set(copied.filter((c) => c.status === 'pending').map((c) => c.id));
  return newIds.filter((id) => pending.has(id));
}

/** The recorded turns of these iterations' traces (`prompts[]`: prompt, tool calls, answer), by iteration id. */
export async function recordedPrompts(sql: Db, iterationIds: string[]): Promise<Map<string, unknown>> {
  const rows = await sql<{ id: string; prompts: unknown }[]>`
    SELECT t.iteration_id AS id,
      (SELECT jsonb_agg(jsonb_build_object('prompt', e.p->'prompt', 'actualToolCalls', e.p->'actualToolCalls',
                                           'finalText', e.p->'finalText') ORDER BY e.n)
       FROM jsonb_array_elements(CASE WHEN jsonb_typeof(t.trace->'prompts') = 'array' THEN t.trace->'prompts' ELSE '[]' END)
         WITH ORDINALITY AS e(p, n)) AS prompts
    FROM eval_traces t WHERE t.iteration_id = ANY(${iterationIds})`;
  return new Map(rows.map((r) => [r.id, r.prompts]));
}
