import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ENTRY_BUNDLES_ENV, entryArgs } from './entryPoints.js';

/** The installed executable (package.json "bin"), run as a user or a CI job runs it. */
export const RUNWAY_BIN = fileURLToPath(new URL('../../cli/runway/bin.js', import.meta.url));

/**
 * The node arguments that run the CLI: the same program (cli/runway.ts) from the bundle the global setup built, else
 * through the installed executable, which loads it with tsx. The README's test runs `runway` as installed.
 */
export const runwayArgs = (): string[] => (process.env[ENTRY_BUNDLES_ENV] ? entryArgs('cli/runway.ts') : [RUNWAY_BIN]);

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
    const child = spawn(process.execPath, [...runwayArgs(), ...args], {
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
