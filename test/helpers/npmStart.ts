import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

const root = new URL('../..', import.meta.url).pathname;

/** A whole `npm start` stack (embedded Postgres, Temporal dev server, worker, API, demo MCP servers) on free ports. */
export interface NpmStartStack {
  dataDir: string;
  ports: { api: number; temporal: number; ui: number; demo: number; postgres: number };
  apiUrl: string;
  /** the demo key `npm start` printed */
  demoKey: string;
  /** everything the stack printed so far */
  output(): string;
  /** Ctrl-C as a terminal sends it (SIGINT to the process group); resolves when the stack has exited */
  stop(): Promise<void>;
  child: ChildProcess;
}

/** Starts `npm start` (scripts/start.ts) in a fresh data folder and waits until the API and the worker are up. */
export async function startNpmStart(extraEnv: NodeJS.ProcessEnv = {}): Promise<NpmStartStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'runway-start-'));
  // As root, embedded Postgres runs as the postgres user, which must be able to enter the folder.
  chmodSync(dataDir, 0o755);
  const [api, temporal, ui, demo, postgres] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RUNWAY_DATA_DIR: dataDir,
    PORT: String(api),
    TEMPORAL_PORT: String(temporal),
    TEMPORAL_UI_PORT: String(ui),
    DEMO_MCP_PORT: String(demo),
    EMBEDDED_POSTGRES_PORT: String(postgres),
    ...extraEnv,
  };
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'RUNWAY_ENCRYPTION_KEY'])
    if (!(name in extraEnv)) delete env[name];
  // Its own process group, so that stop() can press "Ctrl-C" the way a terminal does: SIGINT to the whole group.
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + 150_000;
    while (!/API: http/.test(output) || !/worker started/.test(output)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const demoKey = /Demo API key \(shown once, keep it\): (sk_\w+)/.exec(output)?.[1];
    if (!demoKey) throw new Error(`npm start printed no demo key:\n${output}`);
    return {
      dataDir,
      ports: { api, temporal, ui, demo, postgres },
      apiUrl: `http://127.0.0.1:${api}/api/v1`,
      demoKey,
      output: () => output,
      stop,
      child,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
