import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { PortInUseError } from '../runtime/ports.js';
import { searchAttributeNames } from '../workflows/definitions.js';

export interface DevServer {
  address: string;
  uiUrl: string | null;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  binary: string;
  /** a function picks a fresh port for each start attempt */
  port: number | (() => Promise<number>);
  /** null: headless (no Web UI) */
  uiPort: number | null;
  /** the settings that chose the ports, named when one is taken (default TEMPORAL_PORT, TEMPORAL_UI_PORT) */
  portSetting?: string;
  uiPortSetting?: string;
  /** persistent sqlite file; in-memory when omitted */
  dbFile?: string;
  ip?: string;
  log?: (line: string) => void;
}

/** Start attempts when the server exits while starting. */
const START_ATTEMPTS = 3;

/**
 * Starts `temporal server start-dev` with Runway's search attributes registered and waits until it serves.
 * The dev server picks its internal ports (membership, internal gRPC, HTTP) itself and binds them a moment later,
 * so another process can take one in between: the server then panics while starting. Such an exit is retried
 * (with a fresh frontend port when `port` is a function); the last attempt's output is in the error. A frontend port
 * that is taken (a fixed one) or a taken Web UI port is not retried: a PortInUseError names it and its setting.
 */
export async function startTemporalDevServer(options: DevServerOptions): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    const port = typeof options.port === 'number' ? options.port : await options.port();
    try {
      return await startOnce(options, port);
    } catch (error) {
      if (!(error instanceof ExitedWhileStarting) || attempt >= START_ATTEMPTS) throw error;
      options.log?.(`temporal dev server exited while starting (attempt ${attempt} of ${START_ATTEMPTS}); retrying`);
    }
  }
}

class ExitedWhileStarting extends Error {}

/** The port the dev server could not listen on, from its output ("can't set frontend port 7233: ..."). */
export function devServerStartFailure(
  output: string,
  ports: { port: number; uiPort: number | null; portSetting: string; uiPortSetting: string },
): PortInUseError | undefined {
  const [, which, port] = /can't set (frontend|UI) port (\d+)/.exec(output) ?? [];
  if (!which) return undefined;
  return which === 'UI'
    ? new PortInUseError({ port: Number(port), setting: ports.uiPortSetting, what: 'the Temporal Web UI' })
    : new PortInUseError({ port: Number(port), setting: ports.portSetting, what: 'the Temporal dev server' });
}

/** Keeps the start and the end of a child's output: a Go panic names its cause at the top. */
function outputKeeper(keep = 3000): { collect(chunk: Buffer): void; text(): string } {
  let all = '';
  let head = '';
  let tail = '';
  return {
    collect(chunk) {
      const text = chunk.toString();
      if (all.length <= 2 * keep) all += text;
      if (head.length < keep) head += text.slice(0, keep - head.length);
      tail = (tail + text).slice(-keep);
    },
    text: () => (all.length <= 2 * keep ? all : `${head}\n[...]\n${tail}`),
  };
}

async function startOnce(options: DevServerOptions, port: number): Promise<DevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const args = ['server', 'start-dev', '--ip', ip, '--port', String(port), '--log-level', 'error'];
  if (options.uiPort === null) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  for (const name of Object.values(searchAttributeNames)) args.push('--search-attribute', `${name}=Keyword`);
  // Eager activity execution (off by default in the server): the activities a workflow task schedules come back in
  // the reply to that task and start at once, without the round trip through the task queue. An eval run's first
  // batch starts so; its other batches go through the task queue, to spread over the workers (workflows/evalRun.ts).
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');

  const child = spawn(options.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = outputKeeper();
  child.stdout?.on('data', output.collect);
  child.stderr?.on('data', output.collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const address = `${ip}:${port}`;
  const deadline = Date.now() + 60_000;
  const ports = {
    port,
    uiPort: options.uiPort,
    portSetting: options.portSetting ?? 'TEMPORAL_PORT',
    uiPortSetting: options.uiPortSetting ?? 'TEMPORAL_UI_PORT',
  };
  /** Its own exit, or another server's answer on a port it could not take: why it did not start. */
  const failure = () => {
    const taken = devServerStartFailure(output.text(), ports);
    // A fresh frontend port may be free: retried. A fixed one, or the Web UI's, stays taken.
    if (taken && (taken.setting === ports.uiPortSetting || typeof options.port === 'number')) return taken;
    if (child.exitCode !== null || taken)
      return new ExitedWhileStarting(`temporal dev server exited (${child.exitCode}):\n${output.text()}`);
    return undefined;
  };
  for (;;) {
    const failed = failure();
    if (failed) {
      child.kill('SIGKILL');
      throw failed;
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.healthService.check({});
      await connection.close();
      // What answered may be another server on a port this one could not take.
      const after = failure();
      if (after) continue;
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`temporal dev server did not become ready on ${address}: ${String(error)}\n${output.text()}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  // The CLI registers --search-attribute only in a new database file: a data folder made before an attribute existed
  // (npm start keeps .data/temporal.db) gets it here, else its workflows could not set it.
  if (options.dbFile) {
    await registerMissingSearchAttributes(options.binary, address).catch((error: unknown) => {
      child.kill('SIGKILL');
      throw new Error(
        `temporal dev server on ${address}: registering Runway's search attributes failed: ${String(error)}\n${output}`,
      );
    });
  }
  options.log?.(
    `temporal dev server on ${address}${options.uiPort === null ? '' : `, Web UI http://${ip}:${options.uiPort}`}`,
  );

  return {
    address,
    uiUrl: options.uiPort === null ? null : `http://${ip}:${options.uiPort}`,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function registerMissingSearchAttributes(binary: string, address: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    for (const name of Object.values(searchAttributeNames)) {
      if (customAttributes?.[name] !== undefined) continue;
      await promisify(execFile)(binary, [
        'operator',
        'search-attribute',
        'create',
        '--address',
        address,
        '--namespace',
        'default',
        '--name',
        name,
        '--type',
        'Keyword',
      ]);
    }
  } finally {
    await connection.close();
  }
}
