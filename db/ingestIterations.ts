import type { Db, Tx } from './connection.js';
import type { IngestedIteration } from '../domain/ingest/results.js';

/** Rows per INSERT: ~20 parameters each keeps a statement far below Postgres' 65,535-parameter limit. */
const ROWS_PER_STATEMENT = 1000;

/** Which of these external iteration ids the run already has. */
export async function knownExternalIterationIds(sql: Db, runId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ id: string }[]>`
    SELECT external_iteration_id AS id FROM eval_iterations WHERE run_id = ${runId} AND external_iteration_id = ANY(${ids})`;
  return new Set(rows.map((r) => r.id));
}

/**
 * The highest iteration number each case already has in the run: one index probe per case (plan index), which
 * stays fast however many iterations the run holds and whatever the table statistics say. Iterations whose case
 * could not be stored (case_id null) are numbered by title; their key is `title:<title>`.
 */
export async function lastIterationNumbers(
  sql: Db,
  runId: string,
  caseIds: string[],
  caselessTitles: string[],
): Promise<Map<string, number>> {
  const numbers = new Map<string, number>();
  const byCase = await sql<{ key: string; last: number | null }[]>`
    SELECT c.id AS key, (SELECT max(iteration_number) FROM eval_iterations e WHERE e.run_id = ${runId} AND e.case_id = c.id) AS last
    FROM unnest(${caseIds}::text[]) AS c(id)`;
  for (const { key, last } of byCase) if (last !== null) numbers.set(key, last);
  if (caselessTitles.length > 0) {
    const byTitle = await sql<{ key: string; last: number }[]>`
      SELECT 'title:' || title AS key, max(iteration_number)::int AS last FROM eval_iterations
      WHERE run_id = ${runId} AND case_id IS NULL AND title = ANY(${caselessTitles}) GROUP BY title`;
    for (const { key, last } of byTitle) numbers.set(key, last);
  }
  return numbers;
}

/**
 * Inserts the iterations and their traces. The unique index on (run, external iteration id) is what makes a
 * retried call harmless: a row it already holds is skipped, never duplicated. Returns the ids inserted.
 */
export async function insertIngestedIterations(
  tx: Tx,
  runId: string,
  iterations: IngestedIteration[],
): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (let i = 0; i < iterations.length; i += ROWS_PER_STATEMENT) {
    const chunk = iterations.slice(i, i + ROWS_PER_STATEMENT);
    const rows = chunk.map((it) => ({
      id: it.id,
      run_id: runId,
      case_id: it.caseId,
      title: it.title,
      query: it.query,
      iteration_number: it.iterationNumber,
      status: it.status,
      result: it.result,
      model: it.model,
      provider: it.provider,
      duration_ms: it.durationMs,
      input_tokens: it.usage.inputTokens,
      output_tokens: it.usage.outputTokens,
      total_tokens: it.usage.totalTokens,
      expected_tool_calls: tx.json(it.expectedToolCalls as never),
      actual_tool_calls: tx.json(it.actualToolCalls as never),
      error: it.error,
      error_details:
        it.errorDetails === undefined || it.errorDetails === null ? null : tx.json(it.errorDetails as never),
      metadata: it.metadata ? tx.json(it.metadata as never) : null,
      is_negative_test: it.isNegativeTest,
      external_iteration_id: it.externalIterationId,
    }));
    const ids = await tx<{ id: string }[]>`
      INSERT INTO eval_iterations ${tx(rows)}
      ON CONFLICT (run_id, external_iteration_id) WHERE external_iteration_id IS NOT NULL DO NOTHING
      RETURNING id`;
    for (const { id } of ids) inserted.add(id);
    const traces = chunk
      .filter((it) => it.trace !== null && inserted.has(it.id))
      .map((it) => ({ iteration_id: it.id, trace: tx.json(it.trace as never) }));
    if (traces.length > 0) await tx`INSERT INTO eval_traces ${tx(traces)}`;
  }
  return inserted;
}

export async function countIterations(sql: Db, runId: string): Promise<number> {
  const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM eval_iterations WHERE run_id = ${runId}`;
  return n;
}
