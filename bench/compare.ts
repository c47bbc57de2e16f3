/**
 * GET /eval-runs/{id}/compare on two 1,000-iteration runs of one suite (100 cases of 10 iterations, a few tools,
 * some cases regressed, latency and tokens on every iteration), written directly with the db modules as a finished
 * run leaves them. Timed over HTTP against the API composed as in production. Target: median under 50 ms.
 *
 *   npx tsx bench/compare.ts [iterations=1000] [calls=50]
 *   (DATABASE_URL: an admin URL; default the local Postgres)
 */
import { createSuite, upsertCases } from '../db/evalSuites.js';
import { finishRun, insertRun } from '../db/evalRuns.js';
import { planIterations } from '../db/evalIterations.js';
import { seedOrganization } from '../test/helpers/seed.js';
import { describe, startBenchApi } from './harness.js';

const ITERATIONS = Number(process.argv[2] ?? 1000);
const CALLS = Number(process.argv[3] ?? 50);
const RUNS_PER_CASE = 10;
const TOOLS = ['echo', 'get-sum', 'get-tiny-image', 'long-running', 'sample-llm'];

const bench = await startBenchApi();
const { sql } = bench.services;
const org = await seedOrganization(sql);
const cases = Array.from({ length: Math.ceil(ITERATIONS / RUNS_PER_CASE) }, (_, i) => ({
  title: `case ${i}`,
  query: `do thing ${i}`,
  runs: Math.min(RUNS_PER_CASE, ITERATIONS - i * RUNS_PER_CASE),
  model: 'bench',
  provider: 'openai',
  expectedToolCalls: [{ toolName: TOOLS[i % TOOLS.length], arguments: {} }],
}));
const { suiteId, caseIds } = await sql.begin(async (tx) => {
  const suite = await createSuite(tx, { projectId: org.projectId, name: 'bench', serverIds: [], source: 'api' });
  const upsert = await upsertCases(tx, suite.id, cases);
  return { suiteId: suite.id, caseIds: upsert.committed.map((c) => c.id) };
});

/** A finished run: every iteration completed; in `regressedEvery`-th cases most iterations call the wrong tool. */
async function finishedRun(regressedEvery: number | null): Promise<string> {
  const run = await sql.begin((tx) =>
    insertRun(tx, {
      suiteId,
      projectId: org.projectId,
      organizationId: org.organizationId,
      source: 'api',
      passCriteria: { minimumPassRate: 100 },
      serverIds: [],
    }),
  );
  await planIterations(
    sql,
    run.id,
    cases.flatMap((c, i) =>
      Array.from({ length: c.runs }, (_, n) => ({
        caseId: caseIds[i],
        title: c.title,
        query: c.query,
        iterationNumber: n + 1,
        model: 'bench',
        provider: 'openai',
        expectedToolCalls: c.expectedToolCalls,
        isNegativeTest: false,
      })),
    ),
  );
  // One statement writes every outcome: the expected tool, or (a regressed case, 8 of 10 iterations) the next one.
  const tools = sql.json(TOOLS as never);
  await sql`
    WITH numbered AS (
      SELECT id, iteration_number, expected_tool_calls -> 0 ->> 'toolName' AS expected,
             (dense_rank() OVER (ORDER BY case_id)) AS case_index
      FROM eval_iterations WHERE run_id = ${run.id}
    ), decided AS (
      SELECT id, iteration_number, expected, case_index,
             ${regressedEvery ?? 0} > 0 AND case_index % ${regressedEvery ?? 1} = 0 AND iteration_number > 2 AS wrong
      FROM numbered
    )
    UPDATE eval_iterations i SET status = 'completed', result = CASE WHEN d.wrong THEN 'failed' ELSE 'passed' END,
      duration_ms = 200 + (d.iteration_number * 37 + d.case_index * 11) % 900,
      input_tokens = 500, output_tokens = 40 + d.iteration_number, total_tokens = 540 + d.iteration_number,
      actual_tool_calls = jsonb_build_array(jsonb_build_object('toolName',
        CASE WHEN d.wrong THEN ${tools}::jsonb ->> ((d.case_index::int + 1) % ${TOOLS.length}) ELSE d.expected END,
        'arguments', '{}'::jsonb))
    FROM decided d WHERE i.id = d.id`;
  await finishRun(sql, run.id, { status: 'completed', result: 'failed', summary: { total: ITERATIONS } });
  return run.id;
}

const baseRunId = await finishedRun(null);
const runId = await finishedRun(7);
const url = `${bench.apiBase}/projects/${org.projectId}/eval-runs/${runId}/compare`;
const headers = { authorization: `Bearer ${org.apiKey}` };

const get = async () => {
  const started = performance.now();
  const reply = await fetch(url, { headers });
  const body = (await reply.json()) as { base: { runId: string }; cases: { status: string }[] };
  const ms = performance.now() - started;
  if (reply.status !== 200) throw new Error(`compare answered ${reply.status}: ${JSON.stringify(body)}`);
  return { ms, body };
};
for (let i = 0; i < 5; i++) await get(); // warm-up: connections, plans, JIT
const timings: number[] = [];
let last: Awaited<ReturnType<typeof get>>['body'] | undefined;
for (let i = 0; i < CALLS; i++) {
  const { ms, body } = await get();
  timings.push(ms);
  last = body;
}
const figures = describe(timings);
const regressed = last!.cases.filter((c) => c.status === 'regressed').length;
if (last!.base.runId !== baseRunId || regressed === 0) throw new Error('the comparison did not find the seeded runs');
console.log(
  `compare: two runs of ${ITERATIONS} iterations (${cases.length} cases, ${regressed} regressed): median ${figures.median.toFixed(1)} ms, p25 ${figures.p25.toFixed(1)}, p75 ${figures.p75.toFixed(1)}, max ${figures.max.toFixed(1)} over ${CALLS} calls`,
);
console.log(
  `BENCH ${JSON.stringify({
    benchmark: `GET /eval-runs/{id}/compare, two runs of ${ITERATIONS} iterations (median of ${CALLS})`,
    ours: Number(figures.median.toFixed(2)),
    baseline: null,
    unit: 'ms',
    ratio: null,
    target: 'median < 50 ms',
    met: figures.median < 50,
    p25: figures.p25,
    p75: figures.p75,
    max: figures.max,
  })}`,
);
await bench.close();
