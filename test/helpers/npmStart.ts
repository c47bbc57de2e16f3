import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

const root = new URL('../..', import.meta.url).pathname;

/** What a user who pastes the printed `curl` at once gets, and what /readyz said at that moment. */
export interface AtPrint {
  /** the status of the `Try: curl ...` request */
  curl: number | string;
  readyz: { status: number | string; body: unknown };
}

/** A whole `npm start` stack (embedded Postgres, Temporal dev server, worker, API, demo MCP servers) on free ports. */
export interface NpmStartStack {
  dataDir: string;
  ports: { api: number; temporal: number; ui: number; demo: number; postgres: number };
  apiUrl: string;
  /** the environment it was started with: its settings, for a second start or the CLIs of "another shell" */
  env: NodeJS.ProcessEnv;
  /** the demo key `npm start` printed */
  demoKey: string;
  /** the requests sent the moment it printed its API address */
  atPrint: Promise<AtPrint>;
  /** everything the stack printed so far */
  output(): string;
  /** Ctrl-C as a terminal sends it (SIGINT to the process group); resolves when every process of it has exited */
  stop(): Promise<void>;
  /** resolves when every process of its group has exited (SIGKILL to what is left after `ms`); false if any was left */
  gone(ms?: number): Promise<boolean>;
  /** `npm` itself with { npm: true }, else node running scripts/start.ts */
  child: ChildProcess;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts `npm start` (scripts/start.ts) in a fresh data folder and waits until the API and the worker are up.
 * With `npm: true`, through npm itself, as a user types it (npm -> sh -> tsx -> node scripts/start.ts); else node
 * runs scripts/start.ts directly.
 */
export async function startNpmStart(
  extraEnv: NodeJS.ProcessEnv = {},
  options: { npm?: boolean } = {},
): Promise<NpmStartStack> {
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
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'RUNWAY_ENCRYPTION_KEY', 'METRICS_PORT'])
    if (!(name in extraEnv)) delete env[name];
  // Its own process group, so that stop() can press "Ctrl-C" the way a terminal does: SIGINT to the whole group.
  const child = options.npm
    ? spawn('npm', ['start'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
        cwd: root,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  let output = '';
  let resolveAtPrint: (at: AtPrint) => void = () => {};
  const atPrint = new Promise<AtPrint>((resolve) => (resolveAtPrint = resolve));
  let printed = false;
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (printed || !/API: http\S+/.test(output)) return;
    printed = true;
    // At once, as a user pastes the curl the moment it appears.
    const curl = /curl -sS --fail-with-body -H "Authorization: Bearer (sk_\w+)" (http\S+)/.exec(output);
    const failed = (e: unknown) => String((e as { cause?: { code?: string } }).cause?.code ?? e);
    void Promise.all([
      curl
        ? fetch(curl[2], { headers: { authorization: `Bearer ${curl[1]}` } }).then((r) => r.status, failed)
        : Promise.resolve('no curl printed'),
      fetch(`http://127.0.0.1:${api}/readyz?require=worker`).then(
        async (r) => ({ status: r.status, body: await r.json().catch(() => undefined) }),
        (e: unknown) => ({ status: failed(e), body: undefined }),
      ),
    ]).then(([status, readyz]) => resolveAtPrint({ curl: status, readyz }));
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const pgid = child.pid!;
  const gone = async (ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (groupAlive(pgid)) {
      if (Date.now() > deadline) {
        try {
          process.kill(-pgid, 'SIGKILL');
        } catch {
          // gone in the meantime
        }
        return false;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return true;
  };
  const stop = async () => {
    // npm returns at once while the script it started still stops its own children: the whole group is waited for.
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGINT');
    await gone();
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
      env,
      demoKey,
      atPrint,
      output: () => output,
      stop,
      gone,
      child,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
