import type { Db } from './connection.js';
import type { CaseRow } from './evalSuites.js';
import type { CasePassCounts } from '../domain/ports/runSetupStore.js';
import { newId } from '../domain/ids.js';
import { camelRow, camelRows, type Camel, type RowIsNoun, type Same } from './rows.js';
import type {
  BatchIteration,
  Iteration,
  IterationCompletion,
  IterationStatus,
  PlannedIteration,
} from '../domain/evals/iteration.js';
import type { UsageHistory } from '../domain/evals/estimate.js';

/** The domain's planned and executed iterations, for the modules that still import them from here. */
export type { IterationCompletion, PlannedIteration };

export interface IterationRow {
  id: string;
  run_id: string;
  case_id: string | null;
  title: string;
  query: string;
  iteration_number: number;
  model_index: number;
  status: IterationStatus;
  result: 'passed' | 'failed' | null;
  model: string | null;
  provider: string | null;
  started_at: Date | null;
  duration_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** migration 060 */
  cached_input_tokens: number;
  cost_usd: number | null;
  expected_tool_calls: unknown[];
  actual_tool_calls: unknown[];
  error: string | null;
  error_details: unknown;
  metadata: Record<string, unknown> | null;
  is_negative_test: boolean;
  external_iteration_id: string | null;
  seq: number;
  /** where the iteration stands in its run's events stream: set when its status became final (migration 054) */
  stream_position: number | null;
  /** when retention deleted its trace (migration 068); null: never */
  trace_expired_at: Date | null;
}

/** The row as the domain's Iteration (domain/evals/iteration.ts): a column and its field go together. */
type _IterationIsRow = RowIsNoun<Same<Camel<IterationRow>, Iteration>>;

/** Creates the run's pending iterations once; a repeated plan (a retried activity) inserts nothing new. */
export async function planIterations(
  sql: Db,
  runId: string,
  planned: PlannedIteration[],
): Promise<{ id: string; status: IterationStatus }[]> {
  if (planned.length > 0) {
    const rows = planned.map((p) => ({
      id: newId('itr'),
      run_id: runId,
      case_id: p.caseId,
      title: p.title,
      query: p.query,
      iteration_number: p.iterationNumber,
      model_index: p.modelIndex ?? 0,
      status: 'pending',
      model: p.model,
      provider: p.provider,
      expected_tool_calls: sql.json(p.expectedToolCalls as never),
      is_negative_test: p.isNegativeTest,
    }));
    for (let i = 0; i < rows.length; i += 1000) {
      await sql`
        INSERT INTO eval_iterations ${sql(rows.slice(i, i + 1000))}
        ON CONFLICT (run_id, case_id, model_index, iteration_number) WHERE case_id IS NOT NULL DO NOTHING`;
    }
  }
  return await sql<
    { id: string; status: IterationStatus }[]
  >`SELECT id, status FROM eval_iterations WHERE run_id = ${runId} ORDER BY seq`;
}

/**
 * Per case, a run's finished iterations (completed or failed: scored, or errored) and how many passed; the counts
 * an adaptive run's looks test (domain/useCases/runs/adaptiveRound.ts), as the compare endpoint counts a side.
 */
export async function casePassCounts(sql: Db, runId: string): Promise<CasePassCounts[]> {
  return await sql<CasePassCounts[]>`
    SELECT case_id AS "caseId", count(*) FILTER (WHERE result = 'passed')::int AS passed, count(*)::int AS total
    FROM eval_iterations WHERE run_id = ${runId} AND case_id IS NOT NULL AND status IN ('completed', 'failed')
    GROUP BY case_id`;
}

/**
 * An iteration about to run, with what its case adds (advanced config, match options, elicitation, the output
 * check and the turns of a conversation; null without a case). Read from the case as the batch runs, like the
 * match options: the iteration row keeps the query and expected tool calls it was planned with.
 */
interface BatchIterationRow extends IterationRow {
  advanced_config: CaseRow['advanced_config'];
  match_options: CaseRow['match_options'];
  elicitation: CaseRow['elicitation'];
  expected_output: CaseRow['expected_output'];
  output_check: CaseRow['output_check'];
  turns: CaseRow['turns'];
}

/** The joined row as the domain's BatchIteration (domain/evals/iteration.ts). */
type _BatchIterationIsRow = RowIsNoun<Same<Camel<BatchIterationRow>, BatchIteration>>;

/** A batch's iterations in run order, each with its case's settings: one query for the whole batch. */
export async function getBatchIterations(sql: Db, runId: string, ids: string[]): Promise<BatchIteration[]> {
  return camelRows(
    await sql<BatchIterationRow[]>`
    SELECT i.*, c.advanced_config, c.match_options, c.elicitation, c.expected_output, c.output_check, c.turns
    FROM eval_iterations i LEFT JOIN eval_cases c ON c.id = i.case_id
    WHERE i.run_id = ${runId} AND i.id = ANY(${ids}) ORDER BY i.seq`,
  );
}

/**
 * Who may run a batch's iterations: one attempt of one batch activity. `owner` names the activity (its workflow run
 * and activity id, the same on every attempt), `attempt` its attempt number.
 */
export interface ClaimFence {
  owner: string;
  attempt: number;
}

/**
 * Stamps the batch's unfinished iterations with this attempt, so that from now on only it claims and completes them.
 * An older attempt of the same activity loses them; a newer one already holds them, and then this attempt is stale
 * and gets none. Iterations stamped by another activity (the batch of a workflow run since reset) are taken over.
 * Returns the ids this attempt holds.
 */
export async function fenceIterations(sql: Db, runId: string, ids: string[], fence: ClaimFence): Promise<Set<string>> {
  const rows = await sql<{ id: string }[]>`
    UPDATE eval_iterations SET claim_owner = ${fence.owner}, claim_attempt = ${fence.attempt}, updated_at = clock_timestamp()
    WHERE run_id = ${runId} AND id = ANY(${ids}) AND status IN ('pending', 'running')
      AND (claim_owner IS DISTINCT FROM ${fence.owner} OR claim_attempt <= ${fence.attempt})
    RETURNING id`;
  return new Set(rows.map((r) => r.id));
}

/** The fence's test: the iteration is unfinished and held by this attempt. */
const heldBy = (sql: Db, fence: ClaimFence) =>
  sql`status IN ('pending', 'running') AND claim_owner = ${fence.owner} AND claim_attempt = ${fence.attempt}`;

/**
 * Marks an iteration this attempt holds running; false when it already finished or a newer attempt holds it (it must
 * not run here). The claim's commit is not waited for on disk (synchronous_commit off for this one statement,
 * about 0.3 ms instead of a WAL flush): a claim only says the iteration is running, the fence that decides who may
 * complete it was written durably by fenceIterations, and a claim lost in a crash leaves the iteration pending,
 * which is what a retried batch runs anyway. It sits between two iterations of a lane, so it is kept short.
 */
export async function claimIteration(sql: Db, iterationId: string, fence: ClaimFence): Promise<boolean> {
  const rows = await sql`
    WITH unflushed AS (SELECT set_config('synchronous_commit', 'off', true))
    UPDATE eval_iterations SET status = 'running', started_at = now(), updated_at = clock_timestamp()
    WHERE id = ${iterationId} AND ${heldBy(sql, fence)} AND EXISTS (SELECT 1 FROM unflushed) RETURNING id`;
  return rows.length === 1;
}

/**
 * Writes the result and the trace together, once, in one statement (so one round trip, atomically): the first
 * writer wins, a duplicate execution changes nothing, and an attempt that no longer holds the iteration (fenced
 * out by a newer one) stores nothing: `completed` says whether the outcome was stored. `startedAt` (when this attempt
 * began the iteration) fills in a start its claim did not leave: a claim is not flushed to disk (claimIteration), so
 * a database crash can take it back while the iteration runs on. Safe to repeat: when the reply to a write that
 * committed was lost, the retry finds the iteration finished under this same attempt's fence and answers
 * `completed` again (the first reply never arrived, so the outcome was not counted). A re-graded iteration
 * (`traceMerge`) already holds its recorded trace: its grades are merged into it, in the same statement.
 */
export async function completeIteration(
  sql: Db,
  iterationId: string,
  outcome: IterationCompletion,
  fence: ClaimFence,
  startedAt: Date,
): Promise<{ completed: boolean }> {
  const [row] = await sql<{ completed: boolean }[]>`
    WITH finished AS (
      UPDATE eval_iterations SET status = ${outcome.status}, result = ${outcome.result}, model = ${outcome.model},
        provider = ${outcome.provider}, started_at = COALESCE(started_at, ${startedAt}),
        duration_ms = ${Math.round(outcome.durationMs)},
        input_tokens = ${outcome.usage.inputTokens}, output_tokens = ${outcome.usage.outputTokens},
        total_tokens = ${outcome.usage.totalTokens}, cached_input_tokens = ${outcome.usage.cachedInputTokens ?? 0},
        cost_usd = ${outcome.costUsd}, actual_tool_calls = ${sql.json(outcome.actualToolCalls as never)},
        error = ${outcome.error}, error_details = ${outcome.errorDetails === undefined ? null : sql.json(outcome.errorDetails as never)},
        updated_at = clock_timestamp()
      WHERE id = ${iterationId} AND ${heldBy(sql, fence)}
      RETURNING id
    ), traced AS (
      INSERT INTO eval_traces (iteration_id, trace) SELECT id, ${sql.json(outcome.trace as never)} FROM finished
      ON CONFLICT (iteration_id) DO UPDATE SET trace = eval_traces.trace || EXCLUDED.trace
        WHERE ${outcome.traceMerge === true}
      RETURNING iteration_id
    )
    SELECT EXISTS (SELECT 1 FROM finished) OR EXISTS (
      SELECT 1 FROM eval_iterations WHERE id = ${iterationId} AND status IN ('completed', 'failed')
        AND claim_owner = ${fence.owner} AND claim_attempt = ${fence.attempt}
    ) AS completed`;
  return row;
}

/** Whether any of the run's iterations left `pending`: its workflow ran (a run is planned before it starts). */
export async function hasIterationBegun(sql: Db, runId: string): Promise<boolean> {
  const [row] = await sql<{ begun: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM eval_iterations WHERE run_id = ${runId} AND status <> 'pending') AS begun`;
  return row.begun;
}

/** What a cancelled or failed run did not get to: kept, marked cancelled. */
export async function cancelUnfinishedIterations(
  sql: Db,
  runId: string,
  why?: { error: string; errorDetails: object },
): Promise<void> {
  await sql`UPDATE eval_iterations SET status = 'cancelled', updated_at = clock_timestamp()
    ${why ? sql`, error = ${why.error}, error_details = ${sql.json(why.errorDetails as never)}` : sql``}
    WHERE run_id = ${runId} AND status IN ('pending', 'running')`;
}

export async function listIterationPage(sql: Db, runId: string, afterSeq: number, limit: number): Promise<Iteration[]> {
  return camelRows(
    await sql<IterationRow[]>`
    SELECT * FROM eval_iterations WHERE run_id = ${runId} AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`,
  );
}

/**
 * A run's final iterations after a stream position, in stream order (the events stream, api/runEvents.ts), leaving
 * out the ids in `skip` (sent already). One range scan of eval_iterations_stream_idx.
 */
export async function listStreamIterations(
  sql: Db,
  runId: string,
  afterPosition: number,
  skip: string[],
  limit: number,
): Promise<Iteration[]> {
  return camelRows(
    await sql<IterationRow[]>`
    SELECT * FROM eval_iterations
    WHERE run_id = ${runId} AND stream_position > ${afterPosition}
      ${skip.length > 0 ? sql`AND NOT (id = ANY(${skip}))` : sql``}
    ORDER BY stream_position LIMIT ${limit}`,
  );
}

export async function findIteration(sql: Db, runId: string, iterationId: string): Promise<Iteration | undefined> {
  const [row] = await sql<
    IterationRow[]
  >`SELECT * FROM eval_iterations WHERE id = ${iterationId} AND run_id = ${runId}`;
  return camelRow(row);
}

export async function findTrace(sql: Db, iterationId: string): Promise<Record<string, unknown> | undefined> {
  const [row] = await sql<
    { trace: Record<string, unknown> }[]
  >`SELECT trace FROM eval_traces WHERE iteration_id = ${iterationId}`;
  return row?.trace;
}

/** The finished iterations' numbers that run statistics are computed from. */
export async function finishedOutcomes(sql: Db, runId: string) {
  return await sql<
    {
      caseId: string;
      passed: boolean;
      errored: boolean;
      durationMs: number | null;
      inputTokens: number;
      outputTokens: number;
      totalTokens: number;
      cachedInputTokens: number;
      costUsd: number | null;
      model: string | null;
      provider: string | null;
    }[]
  >`
    SELECT COALESCE(case_id, title) AS "caseId", model, provider, status = 'completed' AND result = 'passed' AS passed, status = 'failed' AS errored, duration_ms AS "durationMs",
           input_tokens AS "inputTokens", output_tokens AS "outputTokens", total_tokens AS "totalTokens",
           cached_input_tokens AS "cachedInputTokens", cost_usd AS "costUsd"
    FROM eval_iterations WHERE run_id = ${runId} AND status IN ('completed', 'failed') ORDER BY seq`;
}

/**
 * Tokens per iteration of each case and model (and provider) over the suite's last `runs` executed runs (sources api
 * and schedule, as executedSources: ingested ones report what another system spent): finished iterations only.
 */
export async function usageHistory(sql: Db, suiteId: string, runs: number): Promise<UsageHistory[]> {
  const rows = await sql<
    {
      caseId: string;
      model: string | null;
      provider: string | null;
      iterations: number;
      inputMean: number;
      inputP10: number;
      inputP90: number;
      outputMean: number;
      outputP10: number;
      outputP90: number;
      cachedInputMean: number;
    }[]
  >`
    SELECT case_id AS "caseId", model, provider, count(*)::int AS iterations,
           avg(input_tokens)::float8 AS "inputMean",
           percentile_cont(0.1) WITHIN GROUP (ORDER BY input_tokens) AS "inputP10",
           percentile_cont(0.9) WITHIN GROUP (ORDER BY input_tokens) AS "inputP90",
           avg(output_tokens)::float8 AS "outputMean",
           percentile_cont(0.1) WITHIN GROUP (ORDER BY output_tokens) AS "outputP10",
           percentile_cont(0.9) WITHIN GROUP (ORDER BY output_tokens) AS "outputP90",
           avg(cached_input_tokens)::float8 AS "cachedInputMean"
    FROM eval_iterations
    WHERE run_id IN (
        SELECT id FROM eval_runs WHERE suite_id = ${suiteId} AND source IN ('api', 'schedule')
        ORDER BY run_number DESC LIMIT ${runs})
      AND case_id IS NOT NULL AND status IN ('completed', 'failed')
    GROUP BY case_id, model, provider`;
  return rows.map((r) => ({
    caseId: r.caseId,
    model: r.model,
    provider: r.provider,
    iterations: r.iterations,
    input: { mean: r.inputMean, p10: r.inputP10, p90: r.inputP90 },
    output: { mean: r.outputMean, p10: r.outputP10, p90: r.outputP90 },
    cachedInputMean: r.cachedInputMean,
  }));
}
