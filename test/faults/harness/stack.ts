import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../runtime/config.js';
import { createSql, type Sql } from '../../../db/connection.js';
import { migrate } from '../../../db/migrate.js';
import { randomBase62 } from '../../../domain/ids.js';
import { SecretBox } from '../../../db/secretBox.js';
import { freePort } from '../../helpers/ports.js';
import { removeOnExit } from './exitCleanup.js';
import { startOwnPostgres, startOwnTemporal, type OwnPostgres, type OwnTemporal } from './infra.js';
import { startNodeProcess, tail, type NodeProcess } from './processes.js';
import { entryArgs } from '../../helpers/entryPoints.js';

const ENCRYPTION_KEY = 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';

/** One API process on a fixed port: a restart comes back where clients already point. */
export interface ApiSlot {
  /** http://127.0.0.1:<port>/api/v1 */
  baseUrl: string;
  origin: string;
  process: NodeProcess;
}

export interface WorkerSlot {
  process: NodeProcess;
}

export interface ProcessStack {
  dir: string;
  postgres: OwnPostgres;
  temporal: OwnTemporal;
  /** the test's own pool on the stack's database (seeding and SQL assertions) */
  sql: Sql;
  box: SecretBox;
  apis: ApiSlot[];
  workers: WorkerSlot[];
  /** sends `signal` to API i's process group, waits for it to exit, starts it again and waits until it is ready */
  restartApi(i: number, signal?: NodeJS.Signals): Promise<void>;
  /** sends `signal` to worker i's process group and waits for it to exit (its stdio MCP children die with it) */
  killWorker(i: number, signal?: NodeJS.Signals): Promise<void>;
  startWorker(i: number): Promise<void>;
  /** the end of every process log, for failure messages */
  logTails(chars?: number): string;
  stop(): Promise<void>;
}

export interface ProcessStackOptions {
  apis?: number;
  workers?: number;
  /** extra configuration for every API and worker (runtime/config.ts names) */
  env?: Record<string, string>;
  /** Temporal history in a sqlite file that survives a restart (default), or in memory (faster, not restartable) */
  temporalHistory?: 'file' | 'memory';
  /** the Temporal CLI binary; default: the one the test setup provisioned (vitest's inject), which a bench has not */
  temporalBinary?: string;
  /** configuration of worker i only, over `env` (a METRICS_PORT of its own) */
  workerEnv?: (i: number) => Record<string, string>;
}

/**
 * The whole product as separate real processes, the way it is deployed: its own Postgres and Temporal dev server
 * (both restartable on their data), `api/main.ts` and `worker/main.ts` as children configured by the environment.
 */
export async function startProcessStack(options: ProcessStackOptions = {}): Promise<ProcessStack> {
  const dir = mkdtempSync(join(tmpdir(), 'runway-faults-'));
  // As root, embedded Postgres runs as the postgres user, which must be able to enter the folder.
  chmodSync(dir, 0o755);
  const keepDir = removeOnExit(dir);
  const started: { stop(): Promise<void> }[] = [];
  const apis: ApiSlot[] = [];
  const workers: WorkerSlot[] = [];
  /** every API and worker process ever launched: stop() ends them all, also after a failed start */
  const launched: NodeProcess[] = [];
  let sql: Sql | undefined;
  let launches = 0;
  const logFile = (name: string) => join(dir, `${name}-${++launches}.log`);

  const stop = async () => {
    await Promise.all(launched.map((p) => p.stop(15_000)));
    await sql?.end({ timeout: 5 });
    for (const store of started.reverse()) await store.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    keepDir();
  };

  try {
    // Each store joins `started` as soon as it runs, so a failure of the other one still stops it.
    const track = <T extends { stop(): Promise<void> }>(store: T): T => {
      started.push(store);
      return store;
    };
    const [postgres, temporal] = await Promise.all([
      startOwnPostgres(dir).then(track),
      startOwnTemporal(dir, {
        persistent: options.temporalHistory !== 'memory',
        ...(options.temporalBinary && { binary: options.temporalBinary }),
      }).then(track),
    ]);
    sql = createSql(postgres.url, { max: 4 });
    await migrate(sql);
    // Runway's own variables come from here only: a developer's DATABASE_URL or METRICS_PORT must not leak in.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !(name in configSchema.shape)));
    const env: NodeJS.ProcessEnv = {
      ...inherited,
      DATABASE_URL: postgres.url,
      RUNWAY_ENCRYPTION_KEY: ENCRYPTION_KEY,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `faults-${randomBase62(8)}`,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATA_DIR: join(dir, 'data'),
      ...options.env,
    };

    const launchApi = async (port: number): Promise<NodeProcess> => {
      const child = startNodeProcess(
        'api',
        [...entryArgs('api/main.ts')],
        { ...env, PORT: String(port) },
        logFile(`api-${port}`),
      );
      launched.push(child);
      await waitUntil(`API on port ${port} ready`, child, async () => {
        const reply = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return reply?.status === 200;
      });
      return child;
    };
    const launchWorker = async (i: number): Promise<NodeProcess> => {
      const child = startNodeProcess(
        'worker',
        [...entryArgs('worker/main.ts')],
        { ...env, ...options.workerEnv?.(i) },
        logFile(`worker-${i}`),
      );
      launched.push(child);
      // The worker logs this once it is polling; before that a run would sit unclaimed.
      await waitUntil(`worker ${i} started`, child, async () =>
        tail(child.logFile, 100_000).includes('"worker started"'),
      );
      return child;
    };

    const ports = await Promise.all(Array.from({ length: options.apis ?? 1 }, () => freePort()));
    const [apiProcesses, workerProcesses] = await Promise.all([
      Promise.all(ports.map(launchApi)),
      Promise.all(Array.from({ length: options.workers ?? 1 }, (_, i) => launchWorker(i))),
    ]);
    apiProcesses.forEach((process, i) =>
      apis.push({ baseUrl: `http://127.0.0.1:${ports[i]}/api/v1`, origin: `http://127.0.0.1:${ports[i]}`, process }),
    );
    workerProcesses.forEach((process) => workers.push({ process }));

    const all = () => [...apis.map((a) => a.process), ...workers.map((w) => w.process)];
    return {
      dir,
      postgres,
      temporal,
      sql,
      box: SecretBox.fromSetting(ENCRYPTION_KEY),
      apis,
      workers,
      async restartApi(i, signal = 'SIGKILL') {
        apis[i].process.signal(signal);
        await apis[i].process.stop();
        apis[i].process = await launchApi(ports[i]);
      },
      async killWorker(i, signal = 'SIGKILL') {
        workers[i].process.signal(signal);
        await workers[i].process.stop(15_000);
      },
      async startWorker(i) {
        workers[i].process = await launchWorker(i);
      },
      logTails: (chars = 2000) =>
        all()
          .map((p) => `--- ${p.name} (${p.logFile})\n${p.logTail(chars)}`)
          .join('\n'),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Polls `ready` until it holds; fails early with the process's log when the process died. */
async function waitUntil(
  what: string,
  child: NodeProcess,
  ready: () => Promise<boolean>,
  timeoutMs = 90_000,
): Promise<void> {
  let exited = false;
  void child.exited.then(() => (exited = true));
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (exited || Date.now() > deadline)
      throw new Error(`${what}: ${exited ? 'the process exited' : 'timed out'}\n${child.logTail()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
