import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Where a running `npm start` says its stack runs: `stack.json` in its data folder (RUNWAY_DATA_DIR), written as it
// starts and removed as it stops. The operator CLI and the `runway` CLI read it when their own settings do not say
// where to go, so a stack started on other ports (PORT, EMBEDDED_POSTGRES_PORT, ...) is found from another shell;
// a second `npm start` of the same folder reads it to say that one already runs. No secret is written: the
// database URL has no password (the embedded database's is the fixed one cli/localStack.ts knows).

export interface StackRecord {
  /** the `npm start` process (scripts/start.ts): `kill <pid>` stops the stack */
  pid: number;
  startedAt: string;
  /** `ready` once /readyz (with a worker polling) answered and the addresses were printed */
  status: 'starting' | 'ready' | 'stopping';
  dataDir: string;
  /** the API's origin, as the `runway` CLI's RUNWAY_URL wants it */
  url: string;
  apiUrl: string;
  consoleUrl: string;
  /** the database the stack uses, without its password */
  databaseUrl: string;
  /** whether that is npm start's embedded PostgreSQL */
  embeddedDatabase: boolean;
  temporalAddress: string;
  /** the Temporal dev server's Web UI; null with a Temporal of your own (TEMPORAL_ADDRESS) */
  temporalUiUrl: string | null;
}

export const stackRecordFile = (dataDir: string) => join(dataDir, 'stack.json');

/** `postgres://user:secret@host:5432/db` without the password. */
export function withoutPassword(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (!url.password) return databaseUrl;
    url.password = '';
    return url.toString();
  } catch {
    return '(a DATABASE_URL that is not a URL)';
  }
}

/** A database as errors name it: host:port/database, never a user or password. */
export function databaseLabel(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || '5432'}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(a DATABASE_URL that is not a URL)';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether `pid` is a running `npm start`. Where the system shows a process's command line (Linux's /proc), it must
 * be scripts/start.ts: a record left by a stack that was killed, whose pid another program got since, is stale.
 */
export function isStackProcess(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return false;
  let command: string;
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true;
  }
  return /scripts[/\\]start\.[jt]s/.test(command);
}

/** The record in `dataDir`, whatever its process's state; undefined when there is none (or it is unreadable). */
export function readStackRecord(dataDir: string): StackRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(stackRecordFile(dataDir), 'utf8')) as StackRecord;
    return typeof record?.pid === 'number' && typeof record.url === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The record of the `npm start` that runs in `dataDir` now; undefined when none does (a stale record is ignored). */
export function runningStack(dataDir: string): StackRecord | undefined {
  const record = readStackRecord(dataDir);
  return record && isStackProcess(record.pid) ? record : undefined;
}

/**
 * Writes this process's record, unless another `npm start` runs in the folder: then answers that one's record and
 * writes nothing. A stale record is replaced. Exclusive, so two starts at the same moment cannot both go on.
 */
export function claimStackRecord(record: StackRecord): { running?: StackRecord } {
  const file = stackRecordFile(record.dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
      return {};
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const existing = readStackRecord(record.dataDir);
    if (existing && existing.pid !== record.pid && isStackProcess(existing.pid)) return { running: existing };
    rmSync(file, { force: true });
  }
  throw new Error(`could not write ${file}: another npm start keeps writing it`);
}

/** Rewrites this process's record (its status); readers never see a half-written file. */
export function updateStackRecord(record: StackRecord): void {
  const file = stackRecordFile(record.dataDir);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

/** Removes the record if it is this process's. */
export function removeStackRecord(dataDir: string, pid = process.pid): void {
  if (readStackRecord(dataDir)?.pid === pid) rmSync(stackRecordFile(dataDir), { force: true });
}
