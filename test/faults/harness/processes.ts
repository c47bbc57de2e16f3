import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { killOnExit } from './exitCleanup.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

export interface NodeProcess {
  name: string;
  pid: number;
  logFile: string;
  exited: Promise<void>;
  /** a signal to the whole process group: the process and every child it spawned (stdio MCP servers) */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the process exited */
  stop(graceMs?: number): Promise<void>;
  /** the last characters of its log, for failure messages */
  logTail(chars?: number): string;
}

/** Keeps a plain child (no children of its own) in the exit cleanup while it runs. */
export function killOnExitWhileAlive(child: ChildProcess): void {
  if (child.pid === undefined) return;
  const untrack = killOnExit(child.pid);
  child.once('exit', untrack);
}

/**
 * Runs `node <args>` from the project root in its own process group, output appended to `logFile` (a file, not a
 * pipe: it outlives a SIGKILL and never blocks the child on a slow reader).
 */
export function startNodeProcess(name: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): NodeProcess {
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const pid = child.pid!;
  // The group, not the leader's life: stdio MCP children may outlive a crashed API or worker.
  const untrack = killOnExit(-pid);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped = false;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // the group is already gone
    }
  };
  return {
    name,
    pid,
    logFile,
    exited,
    signal,
    async stop(graceMs = 10_000) {
      // Once stopped, never signal the group again: its id could in theory belong to someone else by then.
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) {
        signal('SIGTERM');
        const timer = setTimeout(() => signal('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      // stdio MCP children that outlived their parent still sit in the group
      signal('SIGKILL');
      untrack();
    },
    logTail: (chars = 3000) => tail(logFile, chars),
  };
}

export function tail(file: string, chars: number): string {
  try {
    return readFileSync(file, 'utf8').slice(-chars);
  } catch {
    return '';
  }
}
