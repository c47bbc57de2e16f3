import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The installed executable (package.json "bin"), run as a user or a CI job runs it. */
export const RUNWAY_BIN = fileURLToPath(new URL('../../cli/runway/bin.js', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  /** wall time of the whole process */
  ms: number;
}

/**
 * Runs `runway ...args` in `cwd` with only PATH, HOME and `env` (nothing of the test's own environment leaks in),
 * killed after 2 minutes.
 */
export function runway(args: string[], env: Record<string, string | undefined>, cwd: string): Promise<Finished> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNWAY_BIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}
