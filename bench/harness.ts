import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import postgres from 'postgres';
import { loadConfig, type Config } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { createServices, type Services } from '../runtime/services.js';
import { createApp } from '../api/app.js';
import { randomBase62 } from '../domain/ids.js';
import { migrate } from '../db/migrate.js';
import { SecretBox } from '../db/secretBox.js';
import { buildToTemporaryFolder } from '../scripts/build.js';
import { ensureTemporalCli } from '../scripts/temporal-cli.js';
import { startTemporalDevServer, type DevServer } from '../scripts/temporal-dev-server.js';
import { freePort } from '../test/helpers/ports.js';

/** Shared plumbing of the benchmarks: throwaway databases, a Temporal dev server, figures. */

export const adminDatabaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function throwawayDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `runway_bench_${randomBase62(8).toLowerCase()}`;
  const admin = postgres(adminDatabaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: Object.assign(new URL(adminDatabaseUrl), { pathname: `/${name}` }).toString(),
    async drop() {
      const dropper = postgres(adminDatabaseUrl, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

export async function temporalDevServer(): Promise<DevServer> {
  const binary = await ensureTemporalCli();
  return await startTemporalDevServer({ binary, port: freePort, uiPort: null });
}

export interface BenchApi {
  config: Config;
  services: Services;
  /** http://127.0.0.1:<port>/api/v1 */
  apiBase: string;
  /** stops the API and drops its database */
  close(): Promise<void>;
}

/**
 * The API composed as api/main.ts does (real Postgres, real MCP pool, request logging — to nowhere), on a throwaway
 * database, with rate limits out of the way. Without TEMPORAL_ADDRESS the Temporal client is lazy and never connects.
 */
export async function startBenchApi(overrides: Partial<Record<keyof Config, string>> = {}): Promise<BenchApi> {
  const database = await throwawayDatabase();
  const config = loadConfig({
    DATABASE_URL: database.url,
    RUNWAY_ENCRYPTION_KEY: SecretBox.generateKey(),
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_BURST: '100000000',
    ...overrides,
  });
  const log = createLogger(config.LOG_LEVEL, discard());
  const services = createServices(config, log);
  await migrate(services.sql);
  const connection = overrides.TEMPORAL_ADDRESS
    ? await Connection.connect({ address: config.TEMPORAL_ADDRESS })
    : Connection.lazy({ address: config.TEMPORAL_ADDRESS });
  const app = createApp({ ...services, temporal: new TemporalClient({ connection }), config, log });
  const server = app.express.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    config,
    services,
    apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    async close() {
      server.closeAllConnections();
      server.close();
      await services.close();
      await connection.close();
      await database.drop();
    },
  };
}

export const discard = () => new Writable({ write: (_chunk, _enc, done) => done() });

export const median = (values: number[]) => quantile(values, 0.5);

export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
}

/** Median and interquartile spread of repeated measurements. */
export function describe(values: number[]): { median: number; p25: number; p75: number; min: number; max: number } {
  return {
    median: median(values),
    p25: quantile(values, 0.25),
    p75: quantile(values, 0.75),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

export interface BenchWorker {
  process: ChildProcess;
  /** a client on the dev server, for workflow histories */
  temporal: TemporalClient;
  /** spawn -> the worker polls its task queue for workflow tasks */
  startMs: number;
}

/**
 * The worker as production runs it, in its own process: compiled (`npm run build`, into a temporary folder) and
 * loading its prebuilt workflow bundle; `fromTypeScript` runs it from the sources instead, bundling at start. Resolves
 * once it polls its task queue. Whatever ends the script, the worker, the dev server and the build do not outlive it.
 */
export async function startBenchWorker(
  config: Config,
  temporalServer: DevServer,
  options: { concurrency: number; fromTypeScript?: boolean },
): Promise<BenchWorker> {
  const built = options.fromTypeScript ? undefined : await buildToTemporaryFolder();
  const temporal = new TemporalClient({
    connection: await Connection.connect({ address: temporalServer.address }),
    namespace: config.TEMPORAL_NAMESPACE,
  });
  const spawnedAt = performance.now();
  const worker = spawn(process.execPath, built ? ['worker/main.js'] : ['--import', 'tsx', 'worker/main.ts'], {
    cwd: built?.dir ?? new URL('..', import.meta.url).pathname,
    env: {
      ...process.env,
      DATABASE_URL: config.DATABASE_URL,
      RUNWAY_ENCRYPTION_KEY: config.RUNWAY_ENCRYPTION_KEY,
      TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      EVAL_ITERATION_CONCURRENCY: String(options.concurrency),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.once('exit', () => {
    worker.kill('SIGTERM');
    temporalServer.process.kill('SIGTERM');
    built?.remove();
  });
  for (;;) {
    const { pollers } = await temporal.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: config.TEMPORAL_TASK_QUEUE },
      taskQueueType: 1, // workflow
    });
    if ((pollers ?? []).length > 0) return { process: worker, temporal, startMs: performance.now() - spawnedAt };
    if (worker.exitCode !== null) throw new Error(`the worker exited with ${worker.exitCode}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
