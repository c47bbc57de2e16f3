/**
 * How close Runway comes to the floor of an eval run (issue 16): 200 iterations at concurrency 8 against a model
 * that takes 200 ms (± 20 ms jitter) per request and one request per iteration. No orchestrator can finish before
 * ceil(200 / 8) x 200 ms = 5 s; the efficiency is that ideal over Runway's wall time (POST /eval-runs -> run
 * completed), target at least 0.9. Also the time from POST /eval-runs to the first model request (target: median
 * under 100 ms on an idle stack), over several small runs.
 *
 * As in bench/eval-run.ts, the worker is its own compiled process (`npm run build` into a temporary folder) and the
 * API runs in this process. Each run asks for its concurrency (POST /eval-runs `concurrency`).
 *
 *   npx tsx bench/eval-efficiency.ts [iterations=200] [concurrency=8] [repeats=3]
 *
 * Prints a readable report, then one `BENCH {json}` line per figure (bench/run.ts collects them).
 */
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { serverEverythingEntry } from '../cli/seed.js';
import { createSuite, upsertCases } from '../db/evalSuites.js';
import { setProviderKey } from '../db/providerKeys.js';
import { createServer } from '../db/servers.js';
import { startScriptedModelServer } from '../test/fixtures/model/server.js';
import { seedOrganization } from '../test/helpers/seed.js';
import { evalRunWorkflowId } from '../workflows/definitions.js';
import { runAgent } from '../domain/models/agentLoop.js';
import { createLanguageModel } from '../domain/models/providers.js';
import { describe, median, startBenchApi, startBenchWorker, temporalDevServer } from './harness.js';

const ITERATIONS = Number(process.argv[2] ?? 200);
const CONCURRENCY = Number(process.argv[3] ?? 8);
const REPEATS = Number(process.argv[4] ?? 3);
const LATENCY_MS = 200;
const JITTER_MS = 20;
/** small runs timed from POST to their first model request */
const FIRST_REQUEST_RUNS = 7;
const IDEAL_MS = Math.ceil(ITERATIONS / CONCURRENCY) * LATENCY_MS;

const temporalServer = await temporalDevServer();
const model = await startScriptedModelServer({ maxRecordedCalls: 10 * ITERATIONS });
// One request per iteration: the model answers (no tool call) after 200 ms, give or take 20.
model.setScript('slow', [{ text: 'done', delayMs: LATENCY_MS, jitterMs: JITTER_MS }]);
model.setScript('instant', [{ text: 'done' }]);

const bench = await startBenchApi({
  TEMPORAL_ADDRESS: temporalServer.address,
  TEMPORAL_TASK_QUEUE: 'bench-efficiency',
  EVAL_ITERATION_CONCURRENCY: String(CONCURRENCY),
  MAX_CONCURRENT_RUNS: '1000',
});
const { config } = bench;
const { sql, box } = bench.services;
const api = bench.apiBase;

const { process: worker, temporal } = await startBenchWorker(config, temporalServer, { concurrency: CONCURRENCY });

const org = await seedOrganization(sql);
await setProviderKey(sql, box, {
  organizationId: org.organizationId,
  provider: 'openai',
  apiKey: 'bench',
  baseUrl: model.url,
});
const { id: serverId } = await createServer(sql, box, {
  projectId: org.projectId,
  name: 'everything',
  transportType: 'stdio',
  command: process.execPath,
  args: [serverEverythingEntry(), 'stdio'],
});
const RUNS_PER_CASE = 10;
async function suite(name: string, modelId: string, iterations: number): Promise<string> {
  const cases = Array.from({ length: Math.ceil(iterations / RUNS_PER_CASE) }, (_, i) => ({
    title: `case ${i}`,
    query: `answer ${i}`,
    runs: Math.min(RUNS_PER_CASE, iterations - i * RUNS_PER_CASE),
    model: modelId,
    provider: 'openai',
    expectedToolCalls: [],
  }));
  return await sql.begin(async (tx) => {
    const created = await createSuite(tx, { projectId: org.projectId, name, serverIds: [serverId], source: 'api' });
    await upsertCases(tx, created.id, cases);
    return created.id;
  });
}
const slowSuite = await suite('efficiency', 'slow', ITERATIONS);
const smallSuite = await suite('first request', 'instant', CONCURRENCY);
const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };

interface Timed {
  /** POST sent -> run completed (seen by polling every 10 ms) */
  wallMs: number;
  /** POST sent -> the model server received the run's first request */
  firstRequestMs: number;
  /** last model answer -> run completed */
  finishMs: number;
  batches: number;
  /** model requests in flight on average between the first request and the last answer (at best CONCURRENCY) */
  inFlight: number;
  /** what a lane spends per iteration besides the model's answer: (lanes x that span - time answering) / iterations */
  overheadMs: number;
  /** of which inside the iteration (its duration_ms: agent loop, tool listing, scoring, besides the model) */
  insideMs: number;
  /** POST sent -> each step before the first model request (Temporal's event times; this machine's one clock) */
  steps: Record<string, number>;
}

/** When each step on the way to the first model request happened, in ms after `postedAt`. */
function stepsOf(events: Array<Record<string, any>>, postedAt: number, repliedAt: number, firstRequest: number) {
  const at = (e: Record<string, any> | undefined) => {
    const t = e?.eventTime as { seconds?: { toNumber(): number } | number; nanos?: number } | undefined;
    if (!t) return NaN;
    const seconds = typeof t.seconds === 'number' ? t.seconds : (t.seconds?.toNumber() ?? 0);
    return seconds * 1000 + (t.nanos ?? 0) / 1e6 - postedAt;
  };
  const scheduled = (name: string) =>
    events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === name);
  const after = (e: Record<string, any> | undefined, key: string) =>
    events.find((x) => x[key] && String(x[key].scheduledEventId) === String(e?.eventId));
  const batch = scheduled('runIterationBatch');
  // The run is planned as it is created (POST /eval-runs), so the first workflow task schedules the first batches.
  // Runs of older workers planned in a local activity (a marker) or an activity of their own.
  const plan = scheduled('planRun');
  const localPlan = events.find(
    (e) => e.markerRecordedEventAttributes && e.markerRecordedEventAttributes.markerName !== 'core_patch',
  );
  const planSteps: Record<string, number> = {
    'first workflow task started': at(events.find((e) => e.workflowTaskStartedEventAttributes)),
    ...(plan && {
      'plan scheduled': at(plan),
      'plan started': at(after(plan, 'activityTaskStartedEventAttributes')),
      'plan completed': at(after(plan, 'activityTaskCompletedEventAttributes')),
    }),
    ...(localPlan && { 'plan recorded': at(localPlan) }),
  };
  return {
    'POST answered': repliedAt - postedAt,
    'workflow started': at(events[0]),
    ...planSteps,
    'first batch scheduled': at(batch),
    'first batch started': at(after(batch, 'activityTaskStartedEventAttributes')),
    'first model request': firstRequest - postedAt,
  };
}

/** One run, timed on this process's clock (the model server runs here too). */
async function timedRun(suiteId: string, modelId: string, iterations: number): Promise<Timed> {
  model.reset();
  model.setScript(
    modelId,
    modelId === 'slow' ? [{ text: 'done', delayMs: LATENCY_MS, jitterMs: JITTER_MS }] : [{ text: 'done' }],
  );
  const postedAt = Date.now();
  const reply = await fetch(`${api}/projects/${org.projectId}/eval-runs`, {
    method: 'POST',
    headers,
    // the run's own concurrency (POST /eval-runs `concurrency`); the worker's default is set to the same
    body: JSON.stringify({ suiteId, modelApiKeys: { openai: 'bench' }, concurrency: CONCURRENCY }),
  });
  if (reply.status !== 202) throw new Error(`run not created: ${reply.status} ${await reply.text()}`);
  const { runId } = (await reply.json()) as { runId: string };
  const repliedAt = Date.now();
  for (;;) {
    const run = (await (await fetch(`${api}/projects/${org.projectId}/eval-runs/${runId}`, { headers })).json()) as {
      status: string;
      progress: { completed: number; passed: number };
    };
    if (run.status !== 'running') {
      const completedAt = Date.now();
      if (run.status !== 'completed' || run.progress.passed !== iterations)
        throw new Error(`run ended ${JSON.stringify(run)}`);
      const calls = model.calls(modelId);
      if (calls.length !== iterations) throw new Error(`${calls.length} model requests for ${iterations} iterations`);
      const history = await temporal.workflow.getHandle(evalRunWorkflowId(runId)).fetchHistory();
      const first = Math.min(...calls.map((c) => c.time));
      const last = Math.max(...calls.map((c) => c.time + (c.durationMs ?? 0)));
      const answering = calls.reduce((sum, c) => sum + (c.durationMs ?? 0), 0);
      const [{ total }] = await sql<{ total: number }[]>`
        SELECT coalesce(sum(duration_ms), 0)::float8 AS total FROM eval_iterations WHERE run_id = ${runId}`;
      return {
        wallMs: completedAt - postedAt,
        firstRequestMs: first - postedAt,
        finishMs: completedAt - last,
        inFlight: answering / Math.max(1, last - first),
        overheadMs: (CONCURRENCY * (last - first) - answering) / iterations,
        insideMs: (total - answering) / iterations,
        steps: stepsOf((history.events ?? []) as Array<Record<string, any>>, postedAt, repliedAt, first),
        batches: (history.events ?? []).filter(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runIterationBatch',
        ).length,
      };
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The same model work without any orchestrator: CONCURRENCY lanes calling the agent loop in this process. Not the
 * target (that is the ideal), but what this machine, as loaded as it is now, allows.
 */
async function plainLoop(): Promise<number> {
  const languageModel = createLanguageModel({
    provider: 'openai',
    modelName: 'slow',
    apiKey: 'bench',
    baseURL: model.url,
  });
  let next = 0;
  const started = Date.now();
  const lane = async () => {
    while (next++ < ITERATIONS) await runAgent({ model: languageModel, prompt: 'answer', tools: [], maxSteps: 10 });
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return Date.now() - started;
}

await timedRun(slowSuite, 'slow', ITERATIONS); // warm-up: stdio spawn, JIT, connection pools
const load = loadavg()[0]!;
const runs: Timed[] = [];
for (let i = 0; i < REPEATS; i++) runs.push(await timedRun(slowSuite, 'slow', ITERATIONS));
const plain: number[] = [];
for (let i = 0; i < REPEATS; i++) plain.push(await plainLoop());
const firsts: number[] = [];
const firstSteps: Array<Record<string, number>> = [];
for (let i = 0; i < FIRST_REQUEST_RUNS; i++) {
  const small = await timedRun(smallSuite, 'instant', CONCURRENCY);
  firsts.push(small.firstRequestMs);
  firstSteps.push(small.steps);
  // a breath between runs: the time to a first request of an idle stack, not of one still finishing a run
  await new Promise((r) => setTimeout(r, 200));
}

const wall = describe(runs.map((r) => r.wallMs));
const efficiency = IDEAL_MS / wall.median;
const firstRequest = describe(firsts);
const med = (key: Exclude<keyof Timed, 'steps'>) => median(runs.map((r) => r[key]));
console.log(
  `eval run efficiency: ${ITERATIONS} iterations, concurrency ${CONCURRENCY}, model ${LATENCY_MS} ± ${JITTER_MS} ms, ${REPEATS} repeats after a warm-up (load average ${load.toFixed(2)})`,
);
console.log(
  `  Runway (POST -> completed): median ${(wall.median / 1000).toFixed(2)} s [p25 ${(wall.p25 / 1000).toFixed(2)}, p75 ${(wall.p75 / 1000).toFixed(2)}]; ideal ${(IDEAL_MS / 1000).toFixed(2)} s; efficiency ${efficiency.toFixed(3)} (target >= 0.9)`,
);
console.log(
  `  where the rest goes (medians): POST -> first model request ${med('firstRequestMs').toFixed(0)} ms, last model answer -> completed ${med('finishMs').toFixed(0)} ms, ${med('batches')} batches;` +
    ` ${med('inFlight').toFixed(2)} model requests in flight on average (of ${CONCURRENCY}), ${med('overheadMs').toFixed(1)} ms per iteration besides the model` +
    ` (${med('insideMs').toFixed(1)} ms inside the iteration, the rest between iterations: the row's write, batch boundaries, the tail)`,
);
console.log(
  `  the same model work in a plain in-process loop (no orchestrator, this machine now): median ${(median(plain) / 1000).toFixed(2)} s, efficiency ${(IDEAL_MS / median(plain)).toFixed(3)}`,
);
console.log(
  `  POST -> first model request, ${FIRST_REQUEST_RUNS} runs of ${CONCURRENCY} instant iterations: median ${firstRequest.median.toFixed(1)} ms [min ${firstRequest.min.toFixed(1)}, max ${firstRequest.max.toFixed(1)}] (target < 100 ms)`,
);
const stepMedians = Object.fromEntries(
  Object.keys(firstSteps[0] ?? {}).map((key) => [key, Math.round(median(firstSteps.map((st) => st[key]!)))]),
);
console.log(
  `  on the way there (medians, ms after POST): ${Object.entries(stepMedians)
    .map(([key, ms]) => `${key} ${ms}`)
    .join(', ')}`,
);
const emit = (figure: Record<string, unknown>) => console.log(`BENCH ${JSON.stringify(figure)}`);
emit({
  benchmark: `eval run efficiency, ${ITERATIONS} x ${LATENCY_MS} ms at concurrency ${CONCURRENCY} (ideal / Runway's wall time)`,
  ours: wall.median,
  baseline: IDEAL_MS,
  unit: 'ms',
  ratio: efficiency,
  target: 'efficiency >= 0.9',
  met: efficiency >= 0.9,
  spread: [wall.p25, wall.p75],
  loadAverage: load,
  phases: {
    firstRequestMs: med('firstRequestMs'),
    finishMs: med('finishMs'),
    batches: med('batches'),
    inFlight: med('inFlight'),
    overheadMsPerIteration: med('overheadMs'),
    insideIterationMs: med('insideMs'),
  },
  plainLoopMs: median(plain),
});
emit({
  benchmark: 'POST /eval-runs -> first model request',
  ours: firstRequest.median,
  baseline: null,
  unit: 'ms',
  ratio: null,
  target: 'median < 100 ms',
  met: firstRequest.median < 100,
  samples: firsts,
  steps: stepMedians,
  loadAverage: load,
});

worker.kill('SIGTERM');
await once(worker, 'exit');
await temporal.connection.close();
await bench.close();
await model.close();
await temporalServer.stop();
