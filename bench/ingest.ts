/**
 * Eval ingest: 10,000 iterations through the chunked flow over HTTP, as the MCPJam SDK reporter sends them
 * (runs/start, 50 x runs/iterations of 200, runs/finalize), against a bulk insert of the same rows (cases,
 * iterations, traces, run) straight into Postgres: what storing them costs the database at the least.
 * Target (docs/PERFORMANCE.md): the chunked flow under 10 s.
 *
 *   npx tsx bench/ingest.ts [iterations=10000] [repeats=3]     (DATABASE_URL: an admin URL; default the local Postgres)
 *
 * Prints one JSON line per figure (bench/run.ts collects them) after a readable report.
 */
import { summarizeRun } from '../domain/evals/summary.js';
import type { Sql } from '../db/connection.js';
import { newId } from '../domain/ids.js';
import { seedOrganization } from '../test/helpers/seed.js';
import { describe, startBenchApi } from './harness.js';

const ITERATIONS = Number(process.argv[2] ?? 10_000);
const REPEATS = Number(process.argv[3] ?? 3);
const CHUNK = 200;
const CASES = 500;
const TARGET_MS = 10_000;

// Ingest never touches Temporal: the API's client stays lazy and never connects.
const bench = await startBenchApi();
const { sql } = bench.services;
const api = bench.apiBase;
const org = await seedOrganization(sql);
const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };

/** What an SDK reporter sends per iteration: tool calls, tokens, a message trace with spans. */
const results = (runTag: string) =>
  Array.from({ length: ITERATIONS }, (_, i) => ({
    caseTitle: `case ${i % CASES}`,
    query: `what is the weather in city ${i % CASES}?`,
    passed: i % 7 !== 0,
    durationMs: 800 + (i % 400),
    provider: 'openai',
    model: 'gpt-4.1-mini',
    expectedToolCalls: [{ toolName: 'forecast', arguments: { city: `city ${i % CASES}` } }],
    actualToolCalls: [{ toolName: 'forecast', arguments: { city: `city ${i % CASES}` } }],
    tokens: { input: 420, output: 64, total: 484 },
    trace: {
      messages: [
        { role: 'user', content: `what is the weather in city ${i % CASES}?` },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolName: 'forecast', input: { city: `city ${i % CASES}` } }],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolName: 'forecast', output: { high: 21, low: 12 } }] },
        { role: 'assistant', content: 'Sunny, 21°C.' },
      ],
      spans: [
        { id: 'step-1', name: 'step 1', category: 'step', startMs: 0, endMs: 700 },
        {
          id: 'llm-1',
          parentId: 'step-1',
          name: 'gpt-4.1-mini',
          category: 'llm',
          startMs: 0,
          endMs: 600,
          inputTokens: 420,
          outputTokens: 64,
        },
        {
          id: 'tool-1',
          parentId: 'step-1',
          name: 'forecast',
          category: 'tool',
          startMs: 600,
          endMs: 700,
          toolName: 'forecast',
        },
      ],
    },
    externalIterationId: `${runTag}-${i + 1}`,
  }));

async function post<T>(path: string, body: string): Promise<T> {
  const reply = await fetch(`${api}/projects/${org.projectId}/eval-ingest/${path}`, { method: 'POST', headers, body });
  if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${await reply.text()}`);
  return (await reply.json()) as T;
}

/** The chunked flow over HTTP; bodies are serialized before the clock starts, as a reporter holds them ready. */
async function throughRunway(runTag: string): Promise<number> {
  const all = results(runTag);
  const chunks = Array.from({ length: Math.ceil(ITERATIONS / CHUNK) }, (_, i) => all.slice(i * CHUNK, (i + 1) * CHUNK));
  const started = performance.now();
  const { runId } = await post<{ runId: string }>(
    'runs/start',
    JSON.stringify({ suiteName: 'bench', externalRunId: runTag, expectedIterations: ITERATIONS }),
  );
  const bodies = chunks.map((results) => JSON.stringify({ runId, results }));
  for (const body of bodies) await post('runs/iterations', body);
  const finished = await post<{ summary: { total: number } }>('runs/finalize', JSON.stringify({ runId }));
  const elapsed = performance.now() - started;
  if (finished.summary.total !== ITERATIONS)
    throw new Error(`finalized ${finished.summary.total} iterations, expected ${ITERATIONS}`);
  return elapsed;
}

/**
 * Baseline: the same rows written by hand in one transaction with multi-row INSERTs (1,000 rows a statement):
 * a run, its cases, its iterations and their traces, then the run's summary. No HTTP, no validation, no
 * idempotency checks.
 */
async function bulkInsert(runTag: string): Promise<number> {
  const all = results(runTag);
  const started = performance.now();
  await (sql as Sql).begin(async (tx) => {
    const [suite] = await tx<{ id: string }[]>`
      INSERT INTO eval_suites (id, project_id, name, source) VALUES (${newId('sui')}, ${org.projectId}, ${`baseline ${runTag}`}, 'sdk') RETURNING id`;
    const runId = newId('run');
    await tx`INSERT INTO eval_runs (id, suite_id, project_id, organization_id, run_number, status, result, source, external_run_id)
             VALUES (${runId}, ${suite.id}, ${org.projectId}, ${org.organizationId}, 1, 'running', 'pending', 'sdk', ${`baseline ${runTag}`})`;
    const cases = all.slice(0, CASES).map((r) => ({
      id: newId('case'),
      suite_id: suite.id,
      title: r.caseTitle,
      query: r.query,
      model: r.model,
      provider: r.provider,
      expected_tool_calls: tx.json(r.expectedToolCalls),
    }));
    await tx`INSERT INTO eval_cases ${tx(cases)}`;
    const iterations = all.map((r, i) => ({
      id: newId('itr'),
      run_id: runId,
      case_id: cases[i % CASES].id,
      title: r.caseTitle,
      query: r.query,
      iteration_number: Math.floor(i / CASES) + 1,
      status: 'completed',
      result: r.passed ? 'passed' : 'failed',
      model: r.model,
      provider: r.provider,
      duration_ms: r.durationMs,
      input_tokens: r.tokens.input,
      output_tokens: r.tokens.output,
      total_tokens: r.tokens.total,
      expected_tool_calls: tx.json(r.expectedToolCalls),
      actual_tool_calls: tx.json(r.actualToolCalls),
      external_iteration_id: r.externalIterationId,
    }));
    for (let i = 0; i < iterations.length; i += 1000) {
      const chunk = iterations.slice(i, i + 1000);
      await tx`INSERT INTO eval_iterations ${tx(chunk)}`;
      await tx`INSERT INTO eval_traces ${tx(chunk.map((it, j) => ({ iteration_id: it.id, trace: tx.json({ traceVersion: 1, ...all[i + j].trace, prompts: [] } as never) })))}`;
    }
    const { summary, result } = summarizeRun(
      all.map((r, i) => ({
        caseId: cases[i % CASES].id,
        passed: r.passed,
        durationMs: r.durationMs,
        inputTokens: r.tokens.input,
        outputTokens: r.tokens.output,
        totalTokens: r.tokens.total,
      })),
      { minimumPassRate: 100 },
    );
    await tx`UPDATE eval_runs SET status = 'completed', result = ${result}, summary = ${tx.json(summary as never)}, completed_at = now() WHERE id = ${runId}`;
  });
  return performance.now() - started;
}

const ours: number[] = [];
const baseline: number[] = [];
// Warm-up of each: JIT, connection pool, and the suite's cases (a CI suite reports into the same cases every run).
await throughRunway('warm-up');
await bulkInsert('warm-up');
for (let i = 0; i < REPEATS; i++) {
  baseline.push(await bulkInsert(`baseline-${i}`));
  ours.push(await throughRunway(`run-${i}`));
}

const o = describe(ours);
const b = describe(baseline);
const ratio = o.median / b.median;
const seconds = (ms: number) => (ms / 1000).toFixed(2);
console.log(
  `eval ingest, ${ITERATIONS} iterations over ${CASES} cases, chunked ${Math.ceil(ITERATIONS / CHUNK)} x ${CHUNK}, ${REPEATS} repeats (after a warm-up of each)`,
);
console.log(
  `  Runway over HTTP (start -> finalized): median ${seconds(o.median)} s  [p25 ${seconds(o.p25)}, p75 ${seconds(o.p75)}]`,
);
console.log(
  `  bulk insert of the same rows:          median ${seconds(b.median)} s  [p25 ${seconds(b.p25)}, p75 ${seconds(b.p75)}]`,
);
console.log(
  `  ratio ${ratio.toFixed(2)}x; target: Runway under ${TARGET_MS / 1000} s (${o.median < TARGET_MS ? 'met' : 'NOT MET'})`,
);
console.log(
  `BENCH ${JSON.stringify({
    benchmark: `ingest, ${ITERATIONS} iterations (chunked over HTTP)`,
    ours: o.median,
    baseline: b.median,
    unit: 'ms',
    ratio,
    target: `under ${TARGET_MS / 1000} s`,
    met: o.median < TARGET_MS,
    spread: { ours: [o.p25, o.p75], baseline: [b.p25, b.p75] },
  })}`,
);

await bench.close();
