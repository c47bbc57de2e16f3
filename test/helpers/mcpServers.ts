import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serverEverythingEntry } from '../../cli/seed.js';
import type { Db } from '../../db/connection.js';
import type { SecretBox } from '../../db/secretBox.js';
import { createServer, type ServerInput } from '../../db/servers.js';
import type { TaskLog } from '../fixtures/mcp/tasks-extension.js';
import { freePort } from './ports.js';

/** The fixtures of test/fixtures/mcp that run as a stdio child, by file name. */
export const STDIO_FIXTURES = [
  'broken-start',
  'client-features',
  'crashy',
  'faulty',
  'metadata',
  'paginated',
  'slow',
  'stateful',
  'tools-only',
  'workdir',
  'roots-reader',
  'huge',
  'hostile-schemas',
  // One planted problem per tool lint rule (lint-planted.ts).
  'lint-planted',
  // Built with the SDK v2 server: 2026-07-28 only (modern.ts).
  'modern',
  // 2026-07-28 only: several named questions in one round, and the traceparent a call carried (questions.ts).
  'questions',
] as const;

/** A fixture to run over stdio: a file of STDIO_FIXTURES, or `modern-dual`: modern.ts serving both eras (`stdio serve`). */
export type StdioFixture = (typeof STDIO_FIXTURES)[number] | 'modern-dual';

/**
 * A directory of the fixtures bundled as ES modules (test/setup/fixtureBundles.ts), which `npm test`'s global setup
 * sets; without it (a benchmark, a script) the fixtures run through the tsx loader.
 */
export const FIXTURE_BUNDLES_ENV = 'RUNWAY_TEST_FIXTURE_BUNDLES';

/**
 * The node arguments that run a fixture of test/fixtures/mcp. Everything is absolute (the tsx loader too): a stdio
 * server runs in its own working directory, not in the checkout.
 */
export function fixtureArgs(name: StdioFixture): string[] {
  const [file, args]: [string, string[]] = name === 'modern-dual' ? ['modern', ['stdio', 'serve']] : [name, []];
  const bundles = process.env[FIXTURE_BUNDLES_ENV];
  if (bundles) return [join(bundles, `${file}.mjs`), ...args];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--import', tsx, fileURLToPath(new URL(`../fixtures/mcp/${file}.ts`, import.meta.url)), ...args];
}

/** Saved-server fields for a fixture in test/fixtures/mcp run as a stdio child (the way Runway runs stdio servers). */
export function fixtureOverStdio(name: StdioFixture) {
  return { transportType: 'stdio' as const, command: process.execPath, args: fixtureArgs(name) };
}

/** Saved-server fields for the reference server over stdio. */
export function everythingOverStdio() {
  return { transportType: 'stdio' as const, command: process.execPath, args: [serverEverythingEntry(), 'stdio'] };
}

export interface RunningServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The reference server as its own process over streamable HTTP (…/mcp) or legacy SSE (…/sse). */
export async function startEverythingOverHttp(
  kind: 'streamableHttp' | 'sse',
  options: { port?: number } = {},
): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn(process.execPath, [serverEverythingEntry(), kind], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/${kind === 'sse' ? 'sse' : 'mcp'}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    // Any HTTP answer means it listens.
    const answered = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (answered) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server-everything (${kind}) did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * The SDK v2 fixture (test/fixtures/mcp/modern.ts) over streamable HTTP in this process: 2026-07-28 only (`reject`,
 * the default: a 2025 request gets HTTP 400 and -32022) or both eras (`stateless`). `taskLog()` tells which tasks the
 * Tasks extension created and which taskIds a tasks/cancel named.
 */
export async function startModernHttp(
  options: { legacy?: 'reject' | 'stateless'; port?: number } = {},
): Promise<RunningServer & { taskLog(): TaskLog }> {
  // Imported here, so tests that never start it do not load the SDK v2 server.
  const { startModernHttpServer } = await import('../fixtures/mcp/modern.js');
  const server = await startModernHttpServer(options);
  return { url: server.url, port: server.port, stop: () => server.close(), taskLog: () => server.board.log() };
}

/** Saves a server in a project with the same db module the CLI uses; returns its id. */
export async function saveServer(sql: Db, box: SecretBox, input: ServerInput): Promise<string> {
  return (await createServer(sql, box, input)).id;
}
