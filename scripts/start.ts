import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvironmentError, loadStartConfig, type StartConfig } from '../runtime/config.js';
import { PortInUseError, takenPorts, type PortSetting } from '../runtime/ports.js';
import { requireLocalKey } from '../cli/localStack.js';
import { serverEverythingEntry, seedDemo } from '../cli/seed.js';
import {
  claimStackRecord,
  databaseLabel,
  removeStackRecord,
  updateStackRecord,
  withoutPassword,
  type StackRecord,
} from '../cli/stackRecord.js';
import { createSql } from '../db/connection.js';
import { EncryptionKeyError, KeyMismatchError } from '../db/keyring.js';
import { migrate } from '../db/migrate.js';
import { SecretBox } from '../db/secretBox.js';
import { checkSecretsAtStart } from '../db/startupCheck.js';
import { buildConsole } from './build-console.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.js';
import { launchers, watchLaunchers } from './launchers.js';
import { ensureTemporalCli } from './temporal-cli.js';
import { CONFORMANCE_NODE_MAJOR, conformanceNodeBinary, ensureNode } from '../runtime/nodeBinary.js';
import { startTemporalDevServer, type DevServer } from './temporal-dev-server.js';

// `npm start`: the whole service on one machine with embedded defaults. Every piece honours the same
// environment variables as production, so an existing Postgres or Temporal can be plugged in.
const root = fileURLToPath(new URL('..', import.meta.url));
const say = (line: string) => console.log(`[runway] ${line}`);
const complain = (line: string) => console.error(`[runway] ${line}`);

const children: ChildProcess[] = [];
let temporal: DevServer | undefined;
let database: EmbeddedDatabase | undefined;
/** this stack's stack.json, once written: rewritten as its status changes, removed as it stops */
let record: StackRecord | undefined;
let stopped: Promise<void> | undefined;

/** Stops everything this script started, once (a second call waits for the first), then exits with `code`. */
async function stopAll(code: number): Promise<never> {
  stopped ??= (async () => {
    process.exitCode = code;
    say('stopping...');
    if (record) updateStackRecord((record = { ...record, status: 'stopping' }));
    await Promise.all(children.map(stopChild));
    await temporal?.stop();
    await database?.stop().catch(() => {});
    if (record) removeStackRecord(record.dataDir);
    say('stopped');
  })();
  await stopped;
  process.exit();
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function startChild(name: string, args: string[], env: NodeJS.ProcessEnv, port?: PortSetting): ChildProcess {
  // The children inherit this process's environment (their own settings, PATH, ...), with the stack's values on top.
  const child = spawn(process.execPath, args, {
    cwd: root,
    // eslint-disable-next-line no-restricted-properties -- passed on to a child process, not read
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.once('exit', (code, signal) => {
    if (stopped) return;
    void (async () => {
      // A program that is not Runway's (the demo server) says "port in use" in its own words: name the setting.
      const [taken] = port && code !== 0 ? await takenPorts([port]) : [];
      if (taken) complain(taken.message);
      complain(`${name} exited (${signal ?? code}); stopping the stack`);
      await stopAll(1);
    })();
  });
  children.push(child);
  return child;
}

/** Every port the stack will listen on, in the order it starts them, with the setting that chose it. */
function stackPorts(settings: StartConfig): PortSetting[] {
  const ports: PortSetting[] = [];
  if (!settings.DATABASE_URL)
    ports.push({
      port: settings.EMBEDDED_POSTGRES_PORT,
      host: '127.0.0.1',
      setting: 'EMBEDDED_POSTGRES_PORT',
      what: 'the embedded PostgreSQL',
    });
  if (!settings.TEMPORAL_ADDRESS)
    ports.push(
      { port: settings.TEMPORAL_PORT, host: '127.0.0.1', setting: 'TEMPORAL_PORT', what: 'the Temporal dev server' },
      { port: settings.TEMPORAL_UI_PORT, host: '127.0.0.1', setting: 'TEMPORAL_UI_PORT', what: 'the Temporal Web UI' },
    );
  ports.push(
    { port: settings.DEMO_MCP_PORT, setting: 'DEMO_MCP_PORT', what: 'the demo MCP server' },
    { port: settings.PORT, host: settings.HOST, setting: 'PORT', what: 'the API' },
  );
  if (settings.METRICS_PORT !== undefined)
    ports.push({
      port: settings.METRICS_PORT,
      host: settings.HOST,
      setting: 'METRICS_PORT',
      what: "the worker's metrics",
    });
  return ports;
}

/** A host as a URL writes it: an IPv6 address in brackets. */
const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** Whether the API answers on `origin` (a second start asks the first one's). */
async function answers(origin: string): Promise<boolean> {
  return fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.ok,
    () => false,
  );
}

/** Whether something accepts connections on host:port (no request, so nothing in the API's log). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Waits until the API says it is ready with a worker polling its task queue (/readyz?require=worker): what the user
 * is told to try next works when they try it. Until the API takes connections it is only knocked at (its log stays
 * quiet), then asked every second. A child that exits meanwhile stops the stack (startChild); a stack that takes
 * long says what it still waits for.
 */
async function untilReady(host: string, port: number): Promise<void> {
  const started = Date.now();
  let told = started;
  let last = 'the API does not take connections yet';
  const urlHostname = host.includes(':') ? `[${host}]` : host;
  for (;;) {
    let pause = 250;
    if (await accepts(host, port)) {
      pause = 1000;
      const reply = await fetch(`http://${urlHostname}:${port}/readyz?require=worker`, {
        signal: AbortSignal.timeout(10_000),
      }).catch(() => undefined);
      if (reply?.status === 200) return;
      const body = (await reply?.json().catch(() => ({}))) as { checks?: Record<string, string> } | undefined;
      const waiting = Object.entries(body?.checks ?? {}).filter(([, state]) => state !== 'ok');
      last = waiting.length
        ? `not ready yet: ${waiting.map(([check, state]) => `${check} ${state}`).join(', ')}`
        : `/readyz answers ${reply?.status ?? 'nothing'}`;
    }
    if (stopped) return;
    if (Date.now() - told >= 15_000) {
      told = Date.now();
      say(`waiting for the API and the worker (${Math.round((told - started) / 1000)} s): ${last}`);
    }
    await new Promise((r) => setTimeout(r, pause));
  }
}

// This script owns the shutdown, in order: API and worker first, then Temporal, then Postgres
// (scripts/embedded-postgres.ts removes the package's own exit hooks). A terminal's Ctrl-C reaches it (and every
// child) as SIGINT; tsx passes SIGINT and SIGTERM on; closing the terminal sends SIGHUP.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stopAll(0));
// A supervisor's SIGTERM to npm alone ends the shell between npm and tsx, and nothing reaches this script: it stops
// when one of its launchers is gone (scripts/launchers.ts).
watchLaunchers(launchers(), (pid) => {
  say(`the process that ran it (pid ${pid}) is gone`);
  void stopAll(0);
});

try {
  const settings = loadStartConfig();
  const dataDir = settings.RUNWAY_DATA_DIR;
  const embeddedPostgresPort = settings.EMBEDDED_POSTGRES_PORT;
  const port = settings.PORT;
  const shownHost = settings.HOST === '0.0.0.0' || settings.HOST === '::' ? 'localhost' : urlHost(settings.HOST);
  const origin = `http://${shownHost}:${port}`;
  // The API as this machine reaches it (a wildcard HOST listens on loopback too).
  const probeHost = settings.HOST === '0.0.0.0' ? '127.0.0.1' : settings.HOST === '::' ? '::1' : settings.HOST;
  mkdirSync(dataDir, { recursive: true });

  // One stack per data folder: stack.json says where a running one is (and tells the CLIs where to go).
  const claimed: StackRecord = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    status: 'starting',
    dataDir,
    url: origin,
    apiUrl: `${origin}/api/v1`,
    consoleUrl: `${origin}/console/`,
    databaseUrl: withoutPassword(settings.DATABASE_URL ?? `postgres://runway@127.0.0.1:${embeddedPostgresPort}/runway`),
    embeddedDatabase: !settings.DATABASE_URL,
    temporalAddress: settings.TEMPORAL_ADDRESS ?? `127.0.0.1:${settings.TEMPORAL_PORT}`,
    temporalUiUrl: settings.TEMPORAL_ADDRESS ? null : `http://127.0.0.1:${settings.TEMPORAL_UI_PORT}`,
  };
  const claim = claimStackRecord(claimed);
  if (claim.running) {
    const { pid, apiUrl, url } = claim.running;
    const state = (await answers(url))
      ? ''
      : claim.running.status === 'stopping'
        ? ' (it is stopping)'
        : ' (it does not answer yet: still starting?)';
    complain(
      `a Runway stack already runs in this folder (pid ${pid}), its API is at ${apiUrl}${state}; stop it first (Ctrl-C in its terminal or kill ${pid})`,
    );
    process.exit(1);
  }
  record = claimed;

  // Every port checked before anything starts: a taken one is named with its setting, and nothing is left running.
  const taken = await takenPorts(stackPorts(settings));
  if (taken.length > 0) {
    for (const error of taken) complain(error.message);
    await stopAll(1);
  }

  // The console's assets (console/dist), served by the API at /console: built at every start (esbuild, well under a second).
  const consoleBuild = await buildConsole(undefined, { quiet: true });
  say(`console built (${Math.round(consoleBuild.scriptGzipBytes / 1024)} KB of compressed script)`);
  let databaseUrl = settings.DATABASE_URL;
  if (!databaseUrl) {
    say(`starting embedded PostgreSQL on port ${embeddedPostgresPort} (data in ${join(dataDir, 'postgres')})`);
    database = await startEmbeddedPostgres({
      dataDir: join(dataDir, 'postgres'),
      port: embeddedPostgresPort,
      log: say,
    });
    databaseUrl = database.url;
    // Watched like the other children: a stack whose database exited, or was restarted by someone else, stops.
    database.watch((what) => {
      if (stopped) return;
      complain(`embedded PostgreSQL ${what}; stopping the stack`);
      void stopAll(1);
    });
  }
  const sql = createSql(databaseUrl, { max: 2 });
  let keyCheck: Awaited<ReturnType<typeof checkSecretsAtStart>>;
  let box: SecretBox;
  let key: Awaited<ReturnType<typeof requireLocalKey>>;
  try {
    const applied = await migrate(sql);
    if (applied.length) say(`migrations applied: ${applied.join(', ')}`);
    // RUNWAY_ENCRYPTION_KEY, else .data/encryption.key, generated here only for a database that has no key yet.
    key = await requireLocalKey(sql, settings, { create: true });
    box = SecretBox.fromSetting(key.value, key.source.name);
    keyCheck = await checkSecretsAtStart(sql, box, key.source);
  } catch (error) {
    // Which database refused the key: with DATABASE_URL, maybe not the one meant.
    if (error instanceof KeyMismatchError || error instanceof EncryptionKeyError)
      error.message += ` (database ${databaseLabel(databaseUrl)})`;
    throw error;
  }
  if (keyCheck.firstRecord)
    say(`secrets in this database are sealed with key ${box.newest.id} (from ${key.source.name})`);
  for (const warning of keyCheck.warnings) say(`warning: ${warning}`);

  let temporalAddress = settings.TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    const binary = await ensureTemporalCli(say);
    say(`starting the Temporal dev server (data in ${join(dataDir, 'temporal.db')})`);
    temporal = await startTemporalDevServer({
      binary,
      port: settings.TEMPORAL_PORT,
      uiPort: settings.TEMPORAL_UI_PORT,
      dbFile: join(dataDir, 'temporal.db'),
      log: say,
    });
    temporalAddress = temporal.address;
    // Watched like the other children: a stack whose Temporal exited stops.
    temporal.process.once('exit', (code, signal) => {
      if (stopped) return;
      complain(`the Temporal dev server exited (${signal ?? code}); stopping the stack`);
      void stopAll(1);
    });
  }

  // Conformance checks run the official suite, which needs Node 22 or later: on an older Node, the worker takes the
  // machine cache's, installed here once from the npm registry. Without it, only the checks fail, saying so.
  if (!conformanceNodeBinary(settings)) {
    try {
      ensureNode(CONFORMANCE_NODE_MAJOR, say);
    } catch (error) {
      say(`warning: conformance checks will fail until a Node 22 is found: ${(error as Error).message}`);
    }
  }

  const demoPort = settings.DEMO_MCP_PORT;
  startChild(
    'demo MCP server',
    [serverEverythingEntry(), 'streamableHttp'],
    { PORT: String(demoPort) },
    { port: demoPort, setting: 'DEMO_MCP_PORT', what: 'the demo MCP server' },
  );

  const [{ count }] = await sql<{ count: number }[]>`SELECT count(*)::int AS count FROM organizations`;
  let seeded: Awaited<ReturnType<typeof seedDemo>> | undefined;
  if (count === 0) seeded = await seedDemo(sql, box, { httpUrl: `http://127.0.0.1:${demoPort}/mcp` });
  await sql.end();

  // The API and the worker keep their files (stdio servers' working directories) in the same data folder.
  const env = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    RUNWAY_ENCRYPTION_KEY: key.value,
    DATA_DIR: settings.DATA_DIR ?? dataDir,
  };
  startChild('worker', ['--import', 'tsx', 'worker/main.ts'], env);
  startChild('api', ['--import', 'tsx', 'api/main.ts'], env);

  // The addresses and the curl to try are printed once they work: the API answers, with a worker polling.
  await untilReady(probeHost, port);
  // Stopping meanwhile (a child exited, a signal): stopAll ends the process.
  if (stopped) await new Promise(() => {});
  updateStackRecord((record = { ...record, status: 'ready' }));
  if (seeded) {
    say('');
    say('First start: seeded a demo organization, project and two servers (everything over stdio and HTTP).');
    say(`Demo API key (shown once, keep it): ${seeded.apiKey}`);
    say(
      `Its key id: ${seeded.apiKeyId} (list keys: npm run -s admin -- key list; revoke this one: npm run -s admin -- key revoke ${seeded.apiKeyId})`,
    );
    say(
      `Try:  curl -sS --fail-with-body -H "Authorization: Bearer ${seeded.apiKey}" ${origin}/api/v1/projects/${seeded.projectId}/servers`,
    );
    say('');
  } else {
    say(
      `Existing data found in ${dataDir}; list the keys with: npm run -s admin -- key list; create another with: npm run -s admin -- key create --help`,
    );
  }
  if (temporal?.uiUrl) say(`Temporal Web UI: ${temporal.uiUrl}`);
  say(`API: ${origin}/api/v1 — Ctrl-C stops everything`);
  say(`Console: ${origin}/console/ — sign in with an sk_ API key`);
} catch (error) {
  // A key, environment or port problem is the operator's to fix, and its message says how: no stack trace.
  const operators =
    error instanceof KeyMismatchError ||
    error instanceof EncryptionKeyError ||
    error instanceof EnvironmentError ||
    error instanceof PortInUseError;
  complain(operators ? (error as Error).message : String((error as Error)?.stack ?? error));
  await stopAll(1);
}
