import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import postgres from 'postgres';
import { loadConfig, type Config } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { createServices, type Services } from '../runtime/services.js';
import { createApp } from '../api/app.js';
import { randomBase62 } from '../db/ids.js';
import { migrate } from '../db/migrate.js';
import { SecretBox } from '../db/secretBox.js';
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
  const app = createApp({
    sql: services.sql,
    temporal: new TemporalClient({ connection }),
    config,
    log,
    mcp: services.mcp,
  });
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
