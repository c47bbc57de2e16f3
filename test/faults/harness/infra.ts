import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { isAlive, startEmbeddedPostgres, type EmbeddedDatabase } from '../../../scripts/embedded-postgres.js';
import { startTemporalDevServer, type DevServer } from '../../../scripts/temporal-dev-server.js';
import { freePort } from '../../helpers/ports.js';
import { killOnExit } from './exitCleanup.js';
import { killOnExitWhileAlive } from './processes.js';

/**
 * The stores of a fault-test stack, each the stack's own (own port, own data in `dir`): restarting them must not
 * disturb the shared Temporal and Postgres that other test files use at the same time.
 */
export interface RestartableStore {
  /** stops the store and starts it again on the same port and the same data */
  restart(options?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

export interface OwnPostgres extends RestartableStore {
  url: string;
  /**
   * Crashes the server as `pg_ctl stop -m immediate` does (SIGQUIT to the postmaster: no checkpoint, commits not yet
   * flushed are lost, crash recovery at the next start), then starts it again on the same data dir and port.
   */
  crash(options?: { downMs?: number }): Promise<void>;
}

export interface OwnTemporal extends RestartableStore {
  address: string;
}

/** A real PostgreSQL on its own data dir and port (`dir` must be traversable by the postgres user when root). */
export async function startOwnPostgres(dir: string): Promise<OwnPostgres> {
  const dataDir = join(dir, 'postgres');
  const port = await freePort();
  let db: EmbeddedDatabase | undefined;
  let untrack = () => {};
  const start = async () => {
    db = await startEmbeddedPostgres({ dataDir, port, database: 'runway' });
    // SIGINT is Postgres' fast shutdown: it ends sessions and exits by itself, all an exit handler can ask for.
    const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    untrack = killOnExit(postmaster, 'SIGINT');
  };
  const stop = async () => {
    await db?.stop();
    db = undefined;
    untrack();
  };
  await start();
  return {
    url: `postgres://runway:runway@127.0.0.1:${port}/runway`,
    async restart({ downMs = 0 } = {}) {
      await stop();
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    async crash({ downMs = 0 } = {}) {
      const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(postmaster, 'SIGQUIT');
      while (isAlive(postmaster)) await new Promise((r) => setTimeout(r, 20));
      await stop(); // the package's own handle: nothing left to stop, only to forget
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    stop,
  };
}

/**
 * The Temporal dev server on its own port. `persistent`: history in a sqlite file, so a restart keeps every
 * workflow; otherwise in memory, which is about 3x faster under many concurrent runs (no fsync per history write).
 */
export async function startOwnTemporal(
  dir: string,
  options: { persistent: boolean; binary?: string },
): Promise<OwnTemporal> {
  const port = await freePort();
  const dbFile = options.persistent ? join(dir, 'temporal.db') : undefined;
  let server: DevServer | undefined;
  const start = async () => {
    // The binary the test setup provisioned, unless given (a benchmark runs outside vitest).
    const binary = options.binary ?? inject('temporalBinary');
    server = await startTemporalDevServer({ binary, port, uiPort: null, dbFile });
    killOnExitWhileAlive(server.process);
  };
  const stop = async () => {
    await server?.stop();
    server = undefined;
  };
  await start();
  return {
    address: `127.0.0.1:${port}`,
    async restart({ downMs = 0 } = {}) {
      await stop();
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    stop,
  };
}
