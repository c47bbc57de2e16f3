import { Writable } from 'node:stream';
import postgres from 'postgres';
import { randomBase62 } from '../db/ids.js';
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
  return await startTemporalDevServer({ binary, port: await freePort(), uiPort: null });
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
  return { median: median(values), p25: quantile(values, 0.25), p75: quantile(values, 0.75), min: Math.min(...values), max: Math.max(...values) };
}

/** Samples the process's resident memory until stopped; returns the peak in MiB. */
export function peakMemory(intervalMs = 50): () => number {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, intervalMs);
  return () => {
    clearInterval(timer);
    return Math.round((Math.max(peak, process.memoryUsage().rss) / 1024 / 1024) * 10) / 10;
  };
}
