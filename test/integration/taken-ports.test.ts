import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { configSchema } from '../../runtime/config.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { entryArgs, type EntryPoint } from '../helpers/entryPoints.js';

const root = new URL('../..', import.meta.url).pathname;

/** Runs a Runway entry point as its own process until it exits. */
function runEntry(entry: EntryPoint, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  // Runway's variables come from `env` only: a developer's METRICS_PORT or DATABASE_URL must not leak in.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !(name in configSchema.shape)));
  const child = spawn(process.execPath, entryArgs(entry), {
    cwd: root,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

/**
 * Issue 29 §2: a process whose port is taken stops with a sentence naming the port and its setting (the API logged
 * "API listening" and served nothing).
 */
describe('a Runway process whose port is taken', () => {
  let db: TestDatabase;
  let holder: Server;
  let port: number;
  const dataDir = mkdtempSync(join(tmpdir(), 'runway-ports-'));
  const env = () => ({
    DATABASE_URL: db.url,
    RUNWAY_ENCRYPTION_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: 'taken-ports',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
  });

  beforeAll(async () => {
    db = await createTestDatabase();
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(async () => {
    holder?.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the API exits 1 naming PORT, and never says it is listening', async () => {
    const { code, output } = await runEntry('api/main.ts', { ...env(), PORT: String(port) });
    expect(code, output).toBe(1);
    expect(output).toContain(
      `port ${port} (PORT, the API) is already in use: stop what listens there, or set PORT to a free port`,
    );
    expect(output).not.toMatch(/API listening/);
  });

  it("the worker exits 1 naming METRICS_PORT when its metrics' port is taken", async () => {
    const { code, output } = await runEntry('worker/main.ts', { ...env(), METRICS_PORT: String(port) });
    expect(code, output).toBe(1);
    expect(output).toContain(
      `port ${port} (METRICS_PORT, the worker's metrics) is already in use: stop what listens there, or set METRICS_PORT to a free port`,
    );
    expect(output).not.toMatch(/worker started/);
  });
});
