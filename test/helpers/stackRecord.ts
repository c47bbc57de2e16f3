import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StackRecord } from '../../cli/stackRecord.js';

/**
 * A data folder whose `stack.json` says an `npm start` runs there (cli/stackRecord.ts), with a live process of
 * that command line standing in for it: what the CLIs of another shell find while a stack runs.
 */
export async function fakeRunningStack(
  record: Partial<StackRecord> & Pick<StackRecord, 'url' | 'databaseUrl' | 'embeddedDatabase'>,
): Promise<{ dataDir: string; record: StackRecord; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'runway-stack-record-'));
  chmodSync(dataDir, 0o755);
  const standIn = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)', '--', 'scripts/start.ts'], {
    stdio: 'ignore',
  });
  await new Promise((resolve) => standIn.once('spawn', resolve));
  const full: StackRecord = {
    pid: standIn.pid!,
    startedAt: new Date().toISOString(),
    status: 'ready',
    dataDir,
    apiUrl: `${record.url}/api/v1`,
    consoleUrl: `${record.url}/console/`,
    temporalAddress: '127.0.0.1:7233',
    temporalUiUrl: null,
    ...record,
  };
  writeFileSync(join(dataDir, 'stack.json'), JSON.stringify(full, null, 2));
  return {
    dataDir,
    record: full,
    async stop() {
      const exited = new Promise((resolve) => standIn.once('exit', resolve));
      standIn.kill('SIGKILL');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
