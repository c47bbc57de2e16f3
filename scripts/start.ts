import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvironmentError, loadStartConfig } from '../runtime/config.js';
import { requireLocalKey } from '../cli/localStack.js';
import { serverEverythingEntry, seedDemo } from '../cli/seed.js';
import { createSql } from '../db/connection.js';
import { EncryptionKeyError, KeyMismatchError } from '../db/keyring.js';
import { migrate } from '../db/migrate.js';
import { SecretBox } from '../db/secretBox.js';
import { checkSecretsAtStart } from '../db/startupCheck.js';
import { buildConsole } from './build-console.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.js';
import { ensureTemporalCli } from './temporal-cli.js';
import { startTemporalDevServer, type DevServer } from './temporal-dev-server.js';

// `npm start`: the whole service on one machine with embedded defaults. Every piece honours the same
// environment variables as production, so an existing Postgres or Temporal can be plugged in.
const root = fileURLToPath(new URL('..', import.meta.url));
const say = (line: string) => console.log(`[runway] ${line}`);

const children: ChildProcess[] = [];
let temporal: DevServer | undefined;
let database: EmbeddedDatabase | undefined;
let stopping = false;

async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('stopping...');
    await Promise.all(children.map(stopChild));
    await temporal?.stop();
    await database?.stop().catch(() => {});
    say('stopped');
  }
  process.exit(code);
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

function startChild(name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // The children inherit this process's environment (their own settings, PATH, ...), with the stack's values on top.
  const child = spawn(process.execPath, args, {
    cwd: root,
    // eslint-disable-next-line no-restricted-properties -- passed on to a child process, not read
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.once('exit', (code, signal) => {
    if (stopping) return;
    say(`${name} exited (${signal ?? code}); stopping the stack`);
    void stopAll(1);
  });
  children.push(child);
  return child;
}

// This script owns the shutdown, in order: API and worker first, then Temporal, then Postgres
// (scripts/embedded-postgres.ts removes the package's own exit hooks).
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  const settings = loadStartConfig();
  // The console's assets (console/dist), served by the API at /console: built at every start (esbuild, well under a second).
  const consoleBuild = await buildConsole(undefined, { quiet: true });
  say(`console built (${Math.round(consoleBuild.scriptGzipBytes / 1024)} KB of compressed script)`);
  const dataDir = settings.RUNWAY_DATA_DIR;
  const embeddedPostgresPort = settings.EMBEDDED_POSTGRES_PORT;
  mkdirSync(dataDir, { recursive: true });
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
      if (stopping) return;
      say(`embedded PostgreSQL ${what}; stopping the stack`);
      void stopAll(1);
    });
  }
  const sql = createSql(databaseUrl, { max: 2 });
  const applied = await migrate(sql);
  if (applied.length) say(`migrations applied: ${applied.join(', ')}`);
  // RUNWAY_ENCRYPTION_KEY, else .data/encryption.key, generated here only for a database that has no key yet.
  const key = await requireLocalKey(sql, settings, { create: true });
  const box = SecretBox.fromSetting(key.value, key.source.name);
  const keyCheck = await checkSecretsAtStart(sql, box, key.source);
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
  }

  const demoPort = settings.DEMO_MCP_PORT;
  startChild('demo MCP server', [serverEverythingEntry(), 'streamableHttp'], { PORT: String(demoPort) });

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

  const port = settings.PORT;
  if (seeded) {
    say('');
    say('First start: seeded a demo organization, project and two servers (everything over stdio and HTTP).');
    say(`Demo API key (shown once, keep it): ${seeded.apiKey}`);
    say(
      `Its key id: ${seeded.apiKeyId} (list keys: npm run -s admin -- key list; revoke this one: npm run -s admin -- key revoke ${seeded.apiKeyId})`,
    );
    say(
      `Try:  curl -sS --fail-with-body -H "Authorization: Bearer ${seeded.apiKey}" http://localhost:${port}/api/v1/projects/${seeded.projectId}/servers`,
    );
    say('');
  } else {
    say(
      `Existing data found in ${dataDir}; list the keys with: npm run -s admin -- key list; create another with: npm run -s admin -- key create --help`,
    );
  }
  if (temporal?.uiUrl) say(`Temporal Web UI: ${temporal.uiUrl}`);
  say(`API: http://localhost:${port}/api/v1 — Ctrl-C stops everything`);
  say(`Console: http://localhost:${port}/console/ — sign in with an sk_ API key`);
} catch (error) {
  // A key or environment problem is the operator's to fix, and its message says how: no stack trace.
  const operators =
    error instanceof KeyMismatchError || error instanceof EncryptionKeyError || error instanceof EnvironmentError;
  console.error(operators ? `[runway] ${error.message}` : error);
  await stopAll(1);
}
