import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// `npm start` runs as npm -> tsx -> node scripts/start.ts (package.json's script execs tsx, so no shell stays in
// between: a shell such as dash dies of SIGTERM and defers SIGINT until its child exits). A supervisor (systemd,
// Docker, pm2, a test) signals the process it started, npm, alone; npm passes SIGINT and SIGTERM to tsx, which relays
// them here. When a launcher goes away without passing anything on (killed with SIGKILL, or an older package.json
// whose script keeps a shell), this script sees it: its launchers are the processes above it in its own process
// group (npm, a shell, tsx; not the terminal's shell, nor a supervisor, which are in other groups).

interface ProcessInfo {
  ppid: number;
  pgid: number;
}

/** A process's parent and process group: from /proc where there is one, else from `ps`. */
function processInfo(pid: number): ProcessInfo | undefined {
  try {
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so the fields after its last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(ppid), pgid: Number(pgid) };
  } catch {
    // no /proc (macOS): below
  }
  try {
    const [ppid, pgid] = execFileSync('ps', ['-o', 'ppid=,pgid=', '-p', String(pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    return Number.isInteger(ppid) && Number.isInteger(pgid) ? { ppid, pgid } : undefined;
  } catch {
    return undefined;
  }
}

/** The ancestors of this process in its own process group, nearest first: tsx, sh and npm under `npm start`. */
export function launchers(): number[] {
  const own = processInfo(process.pid);
  if (!own) return [];
  const chain: number[] = [];
  for (let pid = own.ppid; pid > 1 && chain.length < 8;) {
    const info = processInfo(pid);
    if (!info || info.pgid !== own.pgid) break;
    chain.push(pid);
    pid = info.ppid;
  }
  return chain;
}

/** Running: not gone, and not a zombie its parent has yet to reap (where /proc tells). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * Calls `onGone` once, with its pid, when one of `pids` has exited (or this process's parent changed: it was
 * reparented). Checked every `everyMs`; the timer does not keep the process alive. Returns a function that stops it.
 */
export function watchLaunchers(pids: number[], onGone: (pid: number) => void, everyMs = 500): () => void {
  if (pids.length === 0) return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    const gone = process.ppid !== parent ? parent : pids.find((pid) => !alive(pid));
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
