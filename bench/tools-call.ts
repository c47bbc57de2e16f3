/**
 * tools/call through the API against a direct in-process MCP SDK client, on the same warm server (target in
 * docs/PERFORMANCE.md: under 2 ms median overhead with a warm connection), and against the MCP Inspector CLI doing the
 * same call.
 *
 *   npx tsx bench/tools-call.ts [iterations]      (DATABASE_URL: an admin URL; default the local Postgres)
 *
 * It composes the API the way api/main.ts does (real Postgres, real pool, request logging) on a throwaway
 * database, but needs no Temporal: the client is lazy and never used. Calls alternate between the two paths so
 * drift (GC, CPU frequency) hits both alike; the overhead is read from the per-pair differences.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { seedDemo, serverEverythingEntry } from '../cli/seed.js';
import { fixtureArgs, saveServer, startEverythingOverHttp, startModernHttp } from '../test/helpers/mcpServers.js';
import { quantile, startBenchApi } from './harness.js';

const ITERATIONS = Number(process.argv[2] ?? 2000);
const WARMUP = 200;
const INSPECTOR_CALLS = 10;

const ms = (n: number) => `${n.toFixed(3)} ms`;
const time = async (work: () => Promise<unknown>) => {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
};

// The reference server over streamable HTTP: one process that both paths talk to.
const everythingHttp = await startEverythingOverHttp('streamableHttp');
const everythingUrl = everythingHttp.url;
const runway = await startBenchApi();
const { sql, box } = runway.services;
const apiBase = runway.apiBase;
const seeded = await seedDemo(sql, box, { httpUrl: everythingUrl });

const inspectorCli = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/cli.js');

/**
 * The tool a user would pick instead: the MCP Inspector in CLI mode, one process per call (it connects, calls,
 * prints and exits). Its cwd is its own build folder because it looks for its package.json relative to cwd.
 */
async function inspectorCall(target: string[]): Promise<number> {
  return await time(async () => {
    const child = spawn(
      process.execPath,
      [
        inspectorCli,
        '--cli',
        ...target,
        '--method',
        'tools/call',
        '--tool-name',
        'echo',
        '--tool-arg',
        'message=bench',
      ],
      {
        cwd: dirname(inspectorCli),
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const [code] = await once(child, 'exit');
    if (code !== 0 || !out.includes('Echo: bench')) throw new Error(`inspector CLI failed (${code}): ${out}`);
  });
}

/**
 * `inspectorTarget`: the same server for the MCP Inspector CLI, when it can speak to it (it cannot speak the 2026
 * revision: no Inspector row for those).
 */
async function bench(label: string, serverId: string, direct: McpClient, inspectorTarget?: string[]) {
  const url = `${apiBase}/projects/${seeded.projectId}/servers/${serverId}/tools/call`;
  const body = JSON.stringify({ toolName: 'echo', parameters: { message: 'bench' } });
  const viaApi = async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.apiKey}`, 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 200) throw new Error(`API answered ${response.status}: ${await response.text()}`);
    await response.json();
  };
  const viaSdk = () => direct.callTool({ name: 'echo', arguments: { message: 'bench' } });

  for (let i = 0; i < WARMUP; i++) await Promise.all([viaApi(), viaSdk()]);
  const api: number[] = [];
  const sdk: number[] = [];
  const diffs: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    // Alternate which goes first so neither always runs on a just-woken event loop.
    let a: number;
    let d: number;
    if (i % 2) {
      a = await time(viaApi);
      d = await time(viaSdk);
    } else {
      d = await time(viaSdk);
      a = await time(viaApi);
    }
    api.push(a);
    sdk.push(d);
    diffs.push(a - d);
  }
  for (const list of [api, sdk, diffs]) list.sort((x, y) => x - y);
  const row = (name: string, s: number[]) =>
    `  ${name.padEnd(22)} median ${ms(quantile(s, 0.5))}  p10 ${ms(quantile(s, 0.1))}  p90 ${ms(quantile(s, 0.9))}  p99 ${ms(quantile(s, 0.99))}`;
  console.log(`\n${label} (${ITERATIONS} calls each, ${WARMUP} warm-up)`);
  console.log(row('API tools/call', api));
  console.log(row('direct SDK callTool', sdk));
  console.log(row('overhead (paired)', diffs));
  const overhead = quantile(diffs, 0.5);
  console.log(
    `  => median overhead ${ms(overhead)} (IQR ${ms(quantile(diffs, 0.25))} .. ${ms(quantile(diffs, 0.75))}); target < 2 ms: ${overhead < 2 ? 'MET' : 'MISSED'}`,
  );
  const apiMedian = quantile(api, 0.5);
  const sdkMedian = quantile(sdk, 0.5);
  // "ours" is the overhead itself (paired median of API minus direct SDK); the medians of each side ride along.
  console.log(
    `BENCH ${JSON.stringify({ benchmark: `tools/call overhead over a direct SDK call, ${label}`, ours: overhead, baseline: null, unit: 'ms', ratio: null, target: 'median overhead < 2 ms', met: overhead < 2, apiMedian, sdkMedian, spread: { overhead: [quantile(diffs, 0.25), quantile(diffs, 0.75)] } })}`,
  );
  if (!inspectorTarget) return;
  const inspector: number[] = [];
  for (let i = 0; i < INSPECTOR_CALLS; i++) inspector.push(await inspectorCall(inspectorTarget));
  const inspectorMedian = quantile(inspector, 0.5);
  console.log(
    `  MCP Inspector CLI (one process per call, ${INSPECTOR_CALLS} calls) median ${ms(inspectorMedian)}: Runway is ${(inspectorMedian / quantile(api, 0.5)).toFixed(0)}x faster`,
  );
  console.log(
    `BENCH ${JSON.stringify({ benchmark: `tools/call vs MCP Inspector CLI, ${label}`, ours: quantile(api, 0.5), baseline: inspectorMedian, unit: 'ms', ratio: quantile(api, 0.5) / inspectorMedian, target: 'faster than the Inspector CLI', met: quantile(api, 0.5) < inspectorMedian })}`,
  );
}

/** Where the overhead lives: a bare HTTP round trip, and the middleware every /api/v1 route pays (auth, rate limit). */
async function floor() {
  const headers = { authorization: `Bearer ${seeded.apiKey}` };
  const origin = apiBase.replace('/api/v1', '');
  const bare = () => fetch(`${origin}/healthz`).then((r) => r.json());
  const me = () => fetch(`${apiBase}/me`, { headers }).then((r) => r.json());
  for (let i = 0; i < WARMUP; i++) await Promise.all([bare(), me()]);
  const [bareTimes, meTimes]: number[][] = [[], []];
  for (let i = 0; i < ITERATIONS; i++) {
    bareTimes.push(await time(bare));
    meTimes.push(await time(me));
  }
  for (const list of [bareTimes, meTimes]) list.sort((x, y) => x - y);
  console.log(`\nAPI floor, paid by every route (${ITERATIONS} calls each)`);
  console.log(
    `  GET /healthz (HTTP round trip, no key)   median ${ms(quantile(bareTimes, 0.5))}  p90 ${ms(quantile(bareTimes, 0.9))}`,
  );
  console.log(
    `  GET /me (auth + rate limit + 1 query)     median ${ms(quantile(meTimes, 0.5))}  p90 ${ms(quantile(meTimes, 0.9))}`,
  );
}

const [stdioServer, httpServer] = seeded.servers;
const directStdio = new McpClient({ name: 'bench', version: '0' });
await directStdio.connect(
  new StdioClientTransport({ command: process.execPath, args: [serverEverythingEntry(), 'stdio'], stderr: 'ignore' }),
);
const directHttp = new McpClient({ name: 'bench', version: '0' });
await directHttp.connect(new StreamableHTTPClientTransport(new URL(everythingUrl)));

// Servers of the 2026-07-28 revision only (the SDK v2 fixture), over streamable HTTP and stdio; the direct client
// negotiates its era as Runway's does (server/discover).
const modernHttp = await startModernHttp({ legacy: 'reject' });
const save = (name: string, input: Record<string, unknown>) =>
  saveServer(sql, box, { projectId: seeded.projectId, name, ...input } as never);
const modernHttpId = await save('modern-http', { transportType: 'http', url: modernHttp.url });
const modernStdioId = await save('modern-stdio', {
  transportType: 'stdio',
  command: process.execPath,
  args: fixtureArgs('modern'),
});
const modern = () => new McpClient({ name: 'bench', version: '0' }, { versionNegotiation: { mode: 'auto' } });
const directModernHttp = modern();
await directModernHttp.connect(new StreamableHTTPClientTransport(new URL(modernHttp.url)));
const directModernStdio = modern();
await directModernStdio.connect(
  new StdioClientTransport({ command: process.execPath, args: fixtureArgs('modern'), stderr: 'ignore' }),
);

try {
  // stdio: the pool's child and the direct client's child run the same program (a stdio server has one client).
  await bench('server-everything over stdio', stdioServer.id, directStdio, [
    process.execPath,
    serverEverythingEntry(),
    'stdio',
  ]);
  // streamable HTTP: both paths talk to the very same server process.
  await bench('server-everything over streamable HTTP', httpServer.id, directHttp, [
    everythingUrl,
    '--transport',
    'http',
  ]);
  await bench('a 2026-07-28 server (SDK v2) over stdio', modernStdioId, directModernStdio);
  await bench('a 2026-07-28 server (SDK v2) over streamable HTTP', modernHttpId, directModernHttp);
  await floor();
} finally {
  await Promise.allSettled([
    directStdio.close(),
    directHttp.close(),
    directModernHttp.close(),
    directModernStdio.close(),
    modernHttp.stop(),
  ]);
  await runway.close();
  await everythingHttp.stop();
}
