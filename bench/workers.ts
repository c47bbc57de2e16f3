/**
 * Whether adding a worker adds throughput (issue 34): one run of 300 iterations against a model that takes 200 ms
 * (± 20 ms) per request, on 3, then 2, then 1 worker processes, and how its iterations spread over them.
 *
 * The stack runs as deployed (test/faults/harness: its own Postgres and Temporal dev server, `api/main.ts` and
 * `worker/main.ts` as child processes configured by the environment); each worker serves /metrics on a port of its
 * own, whose `runway_eval_iterations_total` says how many of the run's iterations it finished, and the run's history
 * says which worker started each batch (ActivityTaskStarted's identity, `<pid>@<host>`).
 *
 * A worker is the limit only when something of its own runs out before the run's lanes do. On this two-core machine
 * its CPU or event loop cannot be that (every process shares the same two cores), so each setup gives a worker a
 * bound of its own, standing for what bounds a worker on a host of its own:
 *
 * - its activity slots: `slots` (WORKER_ACTIVITY_SLOTS) below the run's `concurrency` (300 4 12: one worker runs 4
 *   batches at a time, three run 12). The MCP server is the reference server over streamable HTTP, one process every
 *   worker shares; one model request per iteration.
 * - its own stdio server process, which answers one call at a time (`toolMs` > 0: the slow fixture's `sleep_in_turn`,
 *   isolation `shared`, so each worker runs one such process): each iteration asks the model (200 ms), calls the tool
 *   and asks again (200 ms); one worker does at most 1000 / toolMs iterations a second (300 32 24 2 50: 20).
 *
 * With 32 slots, a concurrency of 8 and no tool (300 32 8), nothing bounds a worker: the figures say only where the
 * batches went.
 *
 *   npx tsx bench/workers.ts [iterations=300] [slots=4] [concurrency=12] [repeats=2] [toolMs=0]
 *
 * Prints a readable report, then one `BENCH {json}` line per worker count (bench/run.ts collects them).
 */
import { loadavg } from 'node:os';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { createSuite, upsertCases } from '../db/evalSuites.js';
import { setProviderKey } from '../db/providerKeys.js';
import { ensureTemporalCli } from '../scripts/temporal-cli.js';
import { startScriptedModelServer } from '../test/fixtures/model/server.js';
import { startEverythingHttp } from '../test/faults/harness/mcpServer.js';
import { startProcessStack } from '../test/faults/harness/stack.js';
import { fixtureOverStdio, saveServer } from '../test/helpers/mcpServers.js';
import { freePort } from '../test/helpers/ports.js';
import { seedOrganization } from '../test/helpers/seed.js';
import { evalRunWorkflowId } from '../workflows/definitions.js';
import { median } from './harness.js';

const ITERATIONS = Number(process.argv[2] ?? 300);
const SLOTS = Number(process.argv[3] ?? 4);
const CONCURRENCY = Number(process.argv[4] ?? 12);
const REPEATS = Number(process.argv[5] ?? 2);
/** > 0: each iteration also calls a tool of a stdio server that answers one call at a time, this long each */
const TOOL_MS = Number(process.argv[6] ?? 0);
const WORKERS = 3;
const LATENCY_MS = 200;
const JITTER_MS = 20;
/** model requests per iteration: one answer, or a tool call and then the answer */
const MODEL_CALLS = TOOL_MS > 0 ? 2 : 1;
/**
 * The floor: lanes in flight (the run's, or the workers' slots, whichever is fewer), each iteration its model calls
 * and its tool call; and with the tool, no more than 1000 / TOOL_MS iterations a second per worker (its server).
 */
function idealMs(workers: number): number {
  const perIteration = MODEL_CALLS * LATENCY_MS + TOOL_MS;
  const lanes = Math.min(CONCURRENCY, workers * SLOTS);
  const perSecond = Math.min(
    (lanes * 1000) / perIteration,
    TOOL_MS > 0 ? (workers * 1000) / TOOL_MS : Number.POSITIVE_INFINITY,
  );
  return (ITERATIONS * 1000) / perSecond;
}

const model = await startScriptedModelServer({ maxRecordedCalls: 10 * ITERATIONS });
const metricsPorts = await Promise.all(Array.from({ length: WORKERS }, () => freePort()));
const stack = await startProcessStack({
  workers: WORKERS,
  temporalHistory: 'memory',
  temporalBinary: await ensureTemporalCli(),
  env: {
    WORKER_ACTIVITY_SLOTS: String(SLOTS),
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_BURST: '100000000',
  },
  workerEnv: (i) => ({ METRICS_PORT: String(metricsPorts[i]) }),
});
const temporal = new TemporalClient({ connection: await Connection.connect({ address: stack.temporal.address }) });
// Without the tool: the reference server over streamable HTTP, one process every worker shares. With it: the slow
// fixture over stdio, a process of each worker's own (shared by the iterations of the worker: isolation `shared`).
const mcp = TOOL_MS > 0 ? undefined : await startEverythingHttp(stack.dir);

const org = await seedOrganization(stack.sql);
await setProviderKey(stack.sql, stack.box, {
  organizationId: org.organizationId,
  provider: 'openai',
  apiKey: 'bench',
  baseUrl: model.url,
});
const serverId = await saveServer(stack.sql, stack.box, {
  projectId: org.projectId,
  ...(mcp
    ? { name: 'everything', transportType: 'http', url: mcp.url }
    : { name: 'slow', ...fixtureOverStdio('slow') }),
});
const toolCall = { name: 'sleep_in_turn', arguments: { ms: TOOL_MS } };
const script = [
  ...(TOOL_MS > 0 ? [{ toolCalls: [toolCall], delayMs: LATENCY_MS, jitterMs: JITTER_MS }] : []),
  { text: 'done', delayMs: LATENCY_MS, jitterMs: JITTER_MS },
];
const RUNS_PER_CASE = 10;
const suiteId = await stack.sql.begin(async (tx) => {
  const created = await createSuite(tx, {
    projectId: org.projectId,
    name: 'workers',
    serverIds: [serverId],
    source: 'api',
  });
  await upsertCases(
    tx,
    created.id,
    Array.from({ length: Math.ceil(ITERATIONS / RUNS_PER_CASE) }, (_, i) => ({
      title: `case ${i}`,
      query: `answer ${i}`,
      runs: Math.min(RUNS_PER_CASE, ITERATIONS - i * RUNS_PER_CASE),
      model: 'slow',
      provider: 'openai',
      expectedToolCalls: TOOL_MS > 0 ? [{ toolName: toolCall.name, arguments: toolCall.arguments }] : [],
    })),
  );
  return created.id;
});

const headers = { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' };

/** Iterations each worker has finished so far, by its /metrics (counters per process, by result). */
async function iterationCounts(workers: number): Promise<number[]> {
  return await Promise.all(
    metricsPorts.slice(0, workers).map(async (port) => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return text
        .split('\n')
        .filter((line) => line.startsWith('runway_eval_iterations_total{'))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    }),
  );
}

interface Timed {
  /** POST sent -> run completed (its row, polled every 25 ms) */
  wallMs: number;
  /** the run's iterations each worker finished, in worker order */
  iterations: number[];
  /** the run's batches each worker started (the history's ActivityTaskStarted identity is `<pid>@<host>`) */
  batches: number[];
}

async function timedRun(workers: number): Promise<Timed> {
  model.reset();
  model.setScript('slow', script);
  const before = await iterationCounts(workers);
  const postedAt = Date.now();
  const reply = await fetch(`${stack.apis[0].baseUrl}/projects/${org.projectId}/eval-runs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ suiteId, modelApiKeys: { openai: 'bench' }, concurrency: CONCURRENCY, isolation: 'shared' }),
  });
  if (reply.status !== 202) throw new Error(`run not created: ${reply.status} ${await reply.text()}`);
  const { runId } = (await reply.json()) as { runId: string };
  for (;;) {
    const [run] = await stack.sql<{ status: string }[]>`SELECT status FROM eval_runs WHERE id = ${runId}`;
    if (run.status !== 'running') {
      const wallMs = Date.now() - postedAt;
      const read = await fetch(`${stack.apis[0].baseUrl}/projects/${org.projectId}/eval-runs/${runId}`, { headers });
      const { progress } = (await read.json()) as { progress: { passed: number } };
      if (run.status !== 'completed' || progress.passed !== ITERATIONS)
        throw new Error(`run ended ${run.status}, ${progress.passed} passed\n${stack.logTails()}`);
      const calls = model.calls('slow').length;
      if (calls !== MODEL_CALLS * ITERATIONS)
        throw new Error(`${calls} model requests for ${ITERATIONS} iterations of ${MODEL_CALLS}`);
      const after = await iterationCounts(workers);
      const history = await temporal.workflow.getHandle(evalRunWorkflowId(runId)).fetchHistory();
      const batchIds = new Set(
        (history.events ?? [])
          .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runIterationBatch')
          .map((e) => String(e.eventId)),
      );
      const batches = stack.workers
        .slice(0, workers)
        .map(
          ({ process: worker }) =>
            (history.events ?? []).filter(
              (e) =>
                batchIds.has(String(e.activityTaskStartedEventAttributes?.scheduledEventId)) &&
                e.activityTaskStartedEventAttributes?.identity?.startsWith(`${worker.pid}@`),
            ).length,
        );
      return { wallMs, iterations: after.map((n, i) => n - before[i]), batches };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

// Warm-up on every worker (JIT, connection pools, MCP sessions); then 3, 2 and 1 workers, stopping one at a time.
await timedRun(WORKERS);
const load = loadavg()[0]!;
const results = new Map<number, Timed[]>();
for (let workers = WORKERS; workers >= 1; workers--) {
  if (workers < WORKERS) await stack.killWorker(workers, 'SIGTERM');
  const runs: Timed[] = [];
  for (let i = 0; i < REPEATS; i++) runs.push(await timedRun(workers));
  results.set(workers, runs);
}

const wallOf = (workers: number) => median(results.get(workers)!.map((r) => r.wallMs));
console.log(
  `workers: ${ITERATIONS} iterations, model ${LATENCY_MS} ± ${JITTER_MS} ms x ${MODEL_CALLS} per iteration${TOOL_MS > 0 ? `, a tool of ${TOOL_MS} ms one call at a time per worker` : ''}, run concurrency ${CONCURRENCY}, ${SLOTS} activity slots per worker, ${REPEATS} repeats after a warm-up (load average ${load.toFixed(2)})`,
);
console.log(
  '| workers | wall (median) | iterations/s | ideal | speed-up over 1 | iterations per worker | batches per worker |',
);
console.log('|---|---|---|---|---|---|---|');
for (let workers = 1; workers <= WORKERS; workers++) {
  const runs = results.get(workers)!;
  const wall = wallOf(workers);
  console.log(
    `| ${workers} | ${(wall / 1000).toFixed(2)} s | ${((ITERATIONS * 1000) / wall).toFixed(1)} | ${(idealMs(workers) / 1000).toFixed(2)} s | ${(wallOf(1) / wall).toFixed(2)}x | ${runs.map((r) => r.iterations.join('/')).join(', ')} | ${runs.map((r) => r.batches.join('/')).join(', ')} |`,
  );
}

for (let workers = 1; workers <= WORKERS; workers++) {
  const runs = results.get(workers)!;
  const wall = wallOf(workers);
  const speedUp = wallOf(1) / wall;
  // Each worker added must add throughput where it can: while the floor falls with it (it does not when no worker
  // is the limit, e.g. 32 slots and 8 lanes).
  const more = workers > 1 && idealMs(workers) < idealMs(workers - 1);
  console.log(
    `BENCH ${JSON.stringify({
      benchmark: `${workers} worker${workers > 1 ? 's' : ''}, ${ITERATIONS} x ${LATENCY_MS} ms at concurrency ${CONCURRENCY}, ${SLOTS} slots each${TOOL_MS > 0 ? `, a ${TOOL_MS} ms one-at-a-time tool` : ''} (wall time; baseline 1 worker)`,
      ours: wall,
      baseline: workers > 1 ? wallOf(1) : null,
      unit: 'ms',
      ratio: workers > 1 ? speedUp : null,
      target: more ? 'faster than one worker fewer' : '—',
      met: more ? wall < wallOf(workers - 1) : null,
      iterationsPerSecond: (ITERATIONS * 1000) / wall,
      idealMs: idealMs(workers),
      iterationsPerWorker: runs.map((r) => r.iterations),
      batchesPerWorker: runs.map((r) => r.batches),
      walls: runs.map((r) => r.wallMs),
      loadAverage: load,
    })}`,
  );
}

await temporal.connection.close();
await mcp?.process.stop();
await stack.stop();
await model.close();
