import { spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { OperationFailure } from '../../failures.js';

/**
 * The official suite as a child process: its own process group (so it and anything it starts end together), the
 * safe default environment only (never the worker's: it holds the database URL and the encryption key), its output
 * kept to a bounded tail, killed at the check's deadline or when the check is cancelled.
 */

export interface SuiteRun {
  nodePath: string;
  /** the package's dist/index.js */
  entry: string;
  /** the bridge's URL */
  url: string;
  revision: string;
  outputDir: string;
  scenarioTimeoutMs: number;
  /** the whole run's limit */
  timeoutMs: number;
  signal?: AbortSignal;
  /** a scenario finished (the suite said where it saved its results) */
  onScenarioDone?: (done: number) => void;
}

export interface SuiteExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** the end of its stdout and stderr, OUTPUT_TAIL_BYTES each */
  stdout: string;
  stderr: string;
  pid: number;
  /** the suite's own words for scenarios it could not run to the end ("Failed to run scenario <name>: <why>") */
  scenarioErrors: Map<string, string>;
}

export const OUTPUT_TAIL_BYTES = 64 * 1024;
const MAX_LINE_CHARS = 4096;
const MAX_SCENARIO_ERRORS = 200;
/** How the suite says a scenario threw before it could write its checks. */
const SCENARIO_ERROR = /^Failed to run scenario (\S+): (.*)$/;

/** Keeps the last `limit` bytes written. */
class Tail {
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(readonly limit: number) {}

  push(chunk: Buffer) {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size > this.limit && this.#chunks.length > 1) this.#size -= this.#chunks.shift()!.length;
    if (this.#size > this.limit) {
      this.#chunks = [this.#chunks[0].subarray(this.#chunks[0].length - this.limit)];
      this.#size = this.limit;
    }
  }

  text() {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

/** Runs the suite's server scenarios to the end, or kills its process group at the deadline or on abort. */
export async function runSuite(run: SuiteRun): Promise<SuiteExit> {
  run.signal?.throwIfAborted();
  const child = spawn(
    run.nodePath,
    [
      run.entry,
      'server',
      '--url',
      run.url,
      '--requirements',
      run.revision,
      '-o',
      run.outputDir,
      '--timeout',
      String(run.scenarioTimeoutMs),
    ],
    {
      cwd: run.outputDir,
      env: { ...getDefaultEnvironment(), NO_COLOR: '1' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stdout = new Tail(OUTPUT_TAIL_BYTES);
  const stderr = new Tail(OUTPUT_TAIL_BYTES);
  let done = 0;
  const scenarioErrors = new Map<string, string>();
  const readLines = (tail: Tail) => {
    let pending = '';
    return (chunk: Buffer) => {
      tail.push(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!.slice(-MAX_LINE_CHARS);
      for (const line of lines) {
        if (line.startsWith('Results saved to ')) run.onScenarioDone?.(++done);
        const failed = SCENARIO_ERROR.exec(line);
        if (failed && scenarioErrors.size < MAX_SCENARIO_ERRORS && !scenarioErrors.has(failed[1]))
          scenarioErrors.set(failed[1], failed[2].slice(0, MAX_LINE_CHARS));
      }
    };
  };
  child.stdout.on('data', readLines(stdout));
  child.stderr.on('data', readLines(stderr));

  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  let stoppedBy: 'timeout' | 'abort' | undefined;
  const timer = setTimeout(() => {
    stoppedBy = 'timeout';
    killGroup();
  }, run.timeoutMs);
  const onAbort = () => {
    stoppedBy ??= 'abort';
    killGroup();
  };
  run.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      // Once the suite itself exits, whatever it started goes too (so its pipes close and 'close' comes).
      child.once('exit', killGroup);
      child.once('close', (code, sig) => resolve([code, sig]));
    });
    if (stoppedBy === 'timeout')
      throw new OperationFailure('TIMEOUT', `the conformance check did not finish within ${run.timeoutMs} ms`, {
        reason: 'CONFORMANCE_TIMEOUT',
        timeoutMs: run.timeoutMs,
      });
    if (stoppedBy === 'abort') throw run.signal?.reason ?? new Error('aborted');
    return { exitCode, signal, stdout: stdout.text(), stderr: stderr.text(), pid: child.pid!, scenarioErrors };
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener('abort', onAbort);
    // Whatever the suite started and left behind ends with it.
    killGroup();
  }
}
