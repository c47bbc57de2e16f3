import type { Sql } from '../../../db/connection.js';
import type { ScriptedModelServer } from '../../fixtures/model/server.js';
import { apiClient } from '../../helpers/http.js';

/** A suite whose every case has its own query, so each model call can be attributed to one iteration. */
export interface ScriptedSuite {
  name: string;
  model: string;
  queries: string[];
}

/**
 * Scripts `model` so that each query calls `echo` with itself, then answers: two model calls per iteration, each
 * `delayMs` long, so a run lasts long enough to put a fault in the middle of it.
 */
export function scriptSuite(model: ScriptedModelServer, name: string, count: number, delayMs: number): ScriptedSuite {
  // Fixed width: the script matches queries by substring, so no query may contain another.
  const queries = Array.from({ length: count }, (_, i) => `${name} question ${String(i).padStart(4, '0')}`);
  model.setScript(name, {
    byQuery: Object.fromEntries(
      queries.map((q) => [
        q,
        [
          { toolCalls: [{ name: 'echo', arguments: { message: q } }], delayMs },
          { text: 'ok', delayMs },
        ],
      ]),
    ),
  });
  return { name, model: name, queries };
}

/** POST /eval-runs body: a new suite of one iteration per query, on the org's scripted OpenAI endpoint. */
export function runBody(suite: ScriptedSuite, serverId: string) {
  return {
    suiteName: suite.name,
    serverIds: [serverId],
    modelApiKeys: { openai: 'sk-run-key' },
    tests: suite.queries.map((q) => ({
      title: q,
      query: q,
      model: suite.model,
      provider: 'openai',
      expectedToolCalls: [{ toolName: 'echo', arguments: { message: q } }],
    })),
  };
}

export interface PollResult {
  run: any;
  /** polls answered by a refused connection ("refused") or a 5xx while a store or the API was away, per answer */
  unavailable: Record<string, number>;
}

/**
 * Polls GET /eval-runs/{id} until `until` holds, riding out the window in which the API, Postgres or Temporal is
 * restarting (refused connections and 5xx count as "not yet"): a client does the same.
 */
export async function pollRun(
  baseUrl: string,
  key: string,
  projectId: string,
  runId: string,
  until: (run: any) => boolean,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<PollResult> {
  const call = apiClient(baseUrl, key);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  const unavailable: Record<string, number> = {};
  let last: unknown;
  for (;;) {
    options.signal?.throwIfAborted();
    const reply = await call('GET', `/projects/${projectId}/eval-runs/${runId}`).catch((error: unknown) => ({
      status: 0,
      body: String(error),
    }));
    if (reply.status === 200) {
      last = reply.body;
      if (until(reply.body)) return { run: reply.body, unavailable };
    } else if (reply.status === 0 || reply.status >= 500) {
      const answer = reply.status === 0 ? 'refused' : String(reply.status);
      unavailable[answer] = (unavailable[answer] ?? 0) + 1;
      last = reply.body;
    } else {
      throw new Error(`GET run ${runId}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    if (Date.now() > deadline)
      throw new Error(`run ${runId} did not get there within ${timeoutMs} ms; last answer: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The queries of the run's iterations that had finished, read straight before a fault. */
export async function finishedQueries(sql: Sql, runId: string): Promise<Set<string>> {
  const rows = await sql<
    { query: string }[]
  >`SELECT query FROM eval_iterations WHERE run_id = ${runId} AND status IN ('completed', 'failed')`;
  return new Set(rows.map((r) => r.query));
}

export interface RunAudit {
  /** iteration rows of the run */
  iterations: number;
  /** cases with other than exactly one iteration row */
  duplicateRows: string[];
  /** iterations finished before the fault whose first model turn was asked for other than exactly once */
  reexecutedFinished: string[];
  /** iterations whose first model turn was asked for again after the iteration had been stored as finished */
  callsAfterFinish: string[];
  /** iterations in flight at the fault that ran again from the start (allowed: they had not finished) */
  restartedInFlight: number;
  /** chat completion requests the run made */
  modelCalls: number;
  /** finished iterations without the time they started */
  finishedWithoutStart: string[];
}

/**
 * What the database and the scripted model server say about a finished run: every planned iteration once, and no
 * finished iteration sent to the model again, judged by the first-turn calls of its unique query.
 */
export async function auditRun(
  sql: Sql,
  model: ScriptedModelServer,
  suite: ScriptedSuite,
  runId: string,
  finishedBefore: Set<string>,
): Promise<RunAudit> {
  const rows = await sql<{ query: string; n: number; finished_at: Date; without_start: number }[]>`
    SELECT query, count(*)::int AS n, max(updated_at) AS finished_at,
      count(*) FILTER (WHERE status IN ('completed', 'failed') AND started_at IS NULL)::int AS without_start
    FROM eval_iterations WHERE run_id = ${runId} GROUP BY query`;
  const calls = model.calls(suite.model);
  const firstTurns = new Map<string, number[]>();
  for (const c of calls) {
    if (c.turnIndex !== 0) continue;
    firstTurns.set(c.lastUserText, [...(firstTurns.get(c.lastUserText) ?? []), c.time]);
  }
  const byQuery = new Map(rows.map((r) => [r.query, r]));
  return {
    iterations: rows.reduce((n, r) => n + r.n, 0),
    duplicateRows: suite.queries.filter((q) => byQuery.get(q)?.n !== 1),
    reexecutedFinished: [...finishedBefore].filter((q) => firstTurns.get(q)?.length !== 1),
    // Stored finish time (the completing transaction's start) against the call's arrival, one machine's clock.
    callsAfterFinish: rows
      .filter((r) => (firstTurns.get(r.query) ?? []).some((t) => t > r.finished_at.getTime()))
      .map((r) => r.query),
    restartedInFlight: [...firstTurns.entries()].filter(([q, times]) => times.length > 1 && !finishedBefore.has(q))
      .length,
    modelCalls: calls.length,
    finishedWithoutStart: rows.filter((r) => r.without_start > 0).map((r) => r.query),
  };
}
