/**
 * A whole eval run through Runway (API -> Temporal -> worker -> MCP + model -> Postgres) against a plain in-process
 * loop doing the same MCP and model work at the same concurrency. Target (docs/PERFORMANCE.md): within 1.5x.
 * Also samples GET /eval-runs/{id} while the run is active (target: median under 10 ms) and the worker's peak memory.
 * As in production, the worker is its own process, compiled (`npm run build`, into a temporary folder) and loading its
 * prebuilt workflow bundle; its start time (spawn -> polling its task queue) and peak memory are reported (target:
 * under 400 MiB at 5,000 iterations). The API runs in this process.
 *
 *   npx tsx bench/eval-run.ts [iterations=1000] [repeats=3] [tsx] [--isolation=per-iteration]
 *   (DATABASE_URL: an admin URL; default the local Postgres)
 *   (`tsx`: the worker from TypeScript, bundling its workflows at start: how it ran before `npm run build`)
 *
 * The suite shares its server's sessions between iterations (isolation `shared`), so the ratio is the
 * orchestration's own cost against the plain loop, which shares one session too. `--isolation=per-iteration` runs
 * the suite as a suite runs by default: every iteration gets a fresh server process (from the warm set), and the
 * ratio against the same plain loop is what isolation costs.
 *
 * Prints one JSON line per figure (bench/run.ts collects them) after a readable report.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Client as McpClient } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { scoreToolCalls } from '../domain/evals/scoring.js';
import { runAgent } from '../domain/models/agentLoop.js';
import { createLanguageModel } from '../domain/models/providers.js';
import type { AgentTool } from '../domain/models/tools.js';
import { serverEverythingEntry } from '../cli/seed.js';
import { createSuite, upsertCases } from '../db/evalSuites.js';
import { setProviderKey } from '../db/providerKeys.js';
import { createServer } from '../db/servers.js';
import { startScriptedModelServer } from '../test/fixtures/model/server.js';
import { evalRunWorkflowId } from '../workflows/definitions.js';
import { seedOrganization } from '../test/helpers/seed.js';
import { describe, median, quantile, startBenchApi, startBenchWorker, temporalDevServer } from './harness.js';

const ISOLATION =
  process.argv.find((a) => a.startsWith('--isolation='))?.slice('--isolation='.length) === 'per-iteration'
    ? 'per-iteration'
    : 'shared';
const ITERATIONS = Number(process.argv[2] ?? 1000);
const REPEATS = Number(process.argv[3] ?? 3);
const CONCURRENCY = 8;
const RUNS_PER_CASE = 10;

const temporalServer = await temporalDevServer();
const model = await startScriptedModelServer({ maxRecordedCalls: 100 });
// Instant model: one tool call, then an answer.
model.setScript('bench', [{ toolCalls: [{ name: 'echo', arguments: { message: 'bench' } }] }, { text: 'done' }]);

const bench = await startBenchApi({
  TEMPORAL_ADDRESS: temporalServer.address,
  TEMPORAL_TASK_QUEUE: 'bench',
  EVAL_ITERATION_CONCURRENCY: String(CONCURRENCY),
  MAX_CONCURRENT_RUNS: '1000',
});
const { config } = bench;
const { sql, box } = bench.services;
const api = bench.apiBase;

// The worker as production runs it: compiled (`npm run build`), loading its prebuilt workflow bundle. A third
// argument `tsx` runs it from TypeScript instead, bundling at start (how it ran before the build existed).
const fromTypeScript = process.argv[4] === 'tsx';
const {
  process: worker,
  temporal,
  startMs,
} = await startBenchWorker(config, temporalServer, {
  concurrency: CONCURRENCY,
  fromTypeScript,
});
/** Peak resident memory of the worker process so far (Linux VmHWM), in MiB. */
const workerPeakMiB = () =>
  Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${worker.pid}/status`, 'utf8'))?.[1] ?? 0) / 102.4) / 10;
const startPeakMiB = workerPeakMiB();

const org = await seedOrganization(sql);
await setProviderKey(sql, box, {
  organizationId: org.organizationId,
  provider: 'openai',
  apiKey: 'bench',
  baseUrl: model.url,
});
const stdio = { command: process.execPath, args: [serverEverythingEntry(), 'stdio'] };
const { id: serverId } = await createServer(sql, box, {
  projectId: org.projectId,
  name: 'everything',
  transportType: 'stdio',
  ...stdio,
});
const cases = Array.from({ length: Math.ceil(ITERATIONS / RUNS_PER_CASE) }, (_, i) => ({
  title: `case ${i}`,
  query: `echo something ${i}`,
  runs: Math.min(RUNS_PER_CASE, ITERATIONS - i * RUNS_PER_CASE),
  model: 'bench',
  provider: 'openai',
  expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'bench' } }],
}));
// More cases than one request may carry inline: written once with the db module, then run by suiteId.
const suiteId = await sql.begin(async (tx) => {
  const suite = await createSuite(tx, {
    projectId: org.projectId,
    name: 'bench',
    serverIds: [serverId],
    source: 'api',
    iterationIsolation: ISOLATION,
  });
  await upsertCases(tx, suite.id, cases);
  return suite.id;
});
const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };

/** Where a run's time goes, from the rows it wrote (one clock: Postgres's) and its workflow history. */
interface Phases {
  /** POST answered -> first iteration claimed: workflow start, plan, first batch picked up */
  startMs: number;
  /** first iteration claimed -> last iteration written */
  iterationsMs: number;
  /** last iteration written -> run completed: the last batch's completion and finalize (statistics) */
  finishMs: number;
  /** activities that ran iterations */
  batches: number;
}

async function phasesOf(runId: string): Promise<Phases> {
  const [t] = await sql<{ created: Date; first: Date; last: Date; completed: Date }[]>`
    SELECT r.created_at AS created, r.completed_at AS completed,
           (SELECT min(started_at) FROM eval_iterations WHERE run_id = r.id) AS first,
           (SELECT max(updated_at) FROM eval_iterations WHERE run_id = r.id) AS last
    FROM eval_runs r WHERE r.id = ${runId}`;
  const history = await temporal.workflow.getHandle(evalRunWorkflowId(runId)).fetchHistory();
  const batches = (history.events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runIterationBatch',
  ).length;
  return {
    startMs: +t.first - +t.created,
    iterationsMs: +t.last - +t.first,
    finishMs: +t.completed - +t.last,
    batches,
  };
}

/** One run through Runway, timed from POST to completed; polls (and times) GET /eval-runs/{id} meanwhile. */
async function runThroughRunway(pollLatencies: number[], phases: Phases[] = []): Promise<number> {
  const started = performance.now();
  const reply = await fetch(`${api}/projects/${org.projectId}/eval-runs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ suiteId, modelApiKeys: { openai: 'bench' } }),
  });
  if (reply.status !== 202) throw new Error(`run not created: ${reply.status} ${await reply.text()}`);
  const { runId } = (await reply.json()) as { runId: string };
  for (;;) {
    const polled = performance.now();
    const run = (await (await fetch(`${api}/projects/${org.projectId}/eval-runs/${runId}`, { headers })).json()) as {
      status: string;
      progress: { completed: number };
    };
    pollLatencies.push(performance.now() - polled);
    if (run.status !== 'running') {
      if (run.status !== 'completed' || run.progress.completed !== ITERATIONS)
        throw new Error(`run ended ${JSON.stringify(run)}`);
      const elapsed = performance.now() - started;
      phases.push(await phasesOf(runId));
      return elapsed;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The same MCP and model work in a plain loop: direct MCP client, the same agent loop and scorer, no Temporal, no database. */
async function plainLoop(): Promise<number> {
  const client = new McpClient({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport(stdio));
  const started = performance.now();
  const { tools: listed } = await client.listTools();
  const tools: AgentTool[] = listed.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as Record<string, unknown>,
    call: async (args) => {
      const result = await client.callTool({ name: t.name, arguments: args });
      return { content: result.content as unknown[], isError: result.isError === true };
    },
  }));
  const languageModel = createLanguageModel({
    provider: 'openai',
    modelName: 'bench',
    apiKey: 'bench',
    baseURL: model.url,
  });
  const queue = cases.flatMap((c) => Array.from({ length: c.runs }, () => c));
  let next = 0;
  const lane = async () => {
    while (next < queue.length) {
      const c = queue[next++];
      const record = await runAgent({ model: languageModel, prompt: c.query, tools, maxSteps: 10 });
      const score = scoreToolCalls({ expected: c.expectedToolCalls, actual: record.toolCalls });
      if (!score.passed) throw new Error('baseline iteration failed');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const elapsed = performance.now() - started;
  await client.close();
  return elapsed;
}

const ours: number[] = [];
const baseline: number[] = [];
const polls: number[] = [];
const phases: Phases[] = [];
await runThroughRunway([]); // warm-up: bundle caches, stdio spawn, JIT
await plainLoop();
for (let i = 0; i < REPEATS; i++) {
  baseline.push(await plainLoop());
  ours.push(await runThroughRunway(polls, phases));
}
const peakMiB = workerPeakMiB();

const o = describe(ours);
const b = describe(baseline);
const ratio = o.median / b.median;
const pollMedian = median(polls);
const phase = (key: keyof Phases) => median(phases.map((p) => p[key]));
// The target is set for 1,000 iterations; the other sizes show how the figure grows.
const isolated = ISOLATION === 'per-iteration';
const hasTarget = ITERATIONS === 1000 && !isolated;
console.log(
  `eval run, ${ITERATIONS} iterations, concurrency ${CONCURRENCY}, ${REPEATS} repeats (after a warm-up of each), isolation ${ISOLATION}`,
);
console.log(
  `  Runway (POST -> completed): median ${(o.median / 1000).toFixed(2)} s  [p25 ${(o.p25 / 1000).toFixed(2)}, p75 ${(o.p75 / 1000).toFixed(2)}]`,
);
console.log(
  `  plain in-process loop:      median ${(b.median / 1000).toFixed(2)} s  [p25 ${(b.p25 / 1000).toFixed(2)}, p75 ${(b.p75 / 1000).toFixed(2)}]`,
);
console.log(
  `  ratio ${ratio.toFixed(2)}x ${hasTarget ? '(target <= 1.5x)' : isolated ? '(what a fresh server process per iteration costs)' : '(the target is set at 1,000 iterations)'}`,
);
console.log(
  `  where Runway's time goes (medians): start ${phase('startMs').toFixed(0)} ms (POST -> first iteration: workflow start, plan, first batch),` +
    ` iterations ${phase('iterationsMs').toFixed(0)} ms in ${phase('batches')} batches, finish ${phase('finishMs').toFixed(0)} ms (last iteration -> completed: finalize)`,
);
console.log(
  `  GET /eval-runs/{id} while active: median ${pollMedian.toFixed(2)} ms, p95 ${quantile(polls, 0.95).toFixed(2)} ms over ${polls.length} polls (target median < 10 ms)`,
);
const shape = fromTypeScript ? 'from TypeScript, bundling at start' : 'compiled, prebuilt workflow bundle';
console.log(`  worker (${shape}): ready in ${startMs.toFixed(0)} ms at ${startPeakMiB} MiB; peak ${peakMiB} MiB`);
const emit = (figure: Record<string, unknown>) => console.log(`BENCH ${JSON.stringify(figure)}`);
emit({
  benchmark: `eval run, ${ITERATIONS} iterations${isolated ? ', a fresh stdio server per iteration (isolation on)' : ''}`,
  ours: o.median,
  baseline: b.median,
  unit: 'ms',
  ratio,
  target: hasTarget ? 'ratio <= 1.5' : isolated ? 'the cost of isolation (no target)' : 'growth (target at 1,000)',
  met: hasTarget ? ratio <= 1.5 : null,
  spread: { ours: [o.p25, o.p75], baseline: [b.p25, b.p75] },
  peakMemoryMiB: peakMiB,
  phases: {
    startMs: phase('startMs'),
    iterationsMs: phase('iterationsMs'),
    finishMs: phase('finishMs'),
    batches: phase('batches'),
  },
});
if (!isolated)
  emit({
    benchmark: `GET /eval-runs/{id} during a ${ITERATIONS}-iteration run`,
    ours: pollMedian,
    baseline: null,
    unit: 'ms',
    ratio: null,
    target: 'median < 10 ms',
    met: pollMedian < 10,
  });
// The memory target: under 400 MiB once the worker has run 5,000 iterations (a run plans at most 1,000, so the
// warm-up and the repeats add up to it: `bench/eval-run.ts 1000 4`); smaller totals show how the figure grows.
const processed = ITERATIONS * (REPEATS + 1);
if (!isolated)
  emit({
    benchmark: `worker peak memory after ${processed} iterations (${shape}; ready in ${startMs.toFixed(0)} ms at ${startPeakMiB} MiB)`,
    ours: peakMiB,
    baseline: null,
    unit: 'MiB',
    ratio: null,
    target: processed >= 5000 ? '< 400 MiB' : 'growth (target at 5,000)',
    met: processed >= 5000 ? peakMiB < 400 : null,
    startMs,
    startPeakMiB,
  });

worker.kill('SIGTERM');
await once(worker, 'exit');
await temporal.connection.close();
await bench.close();
await model.close();
await temporalServer.stop();
