import type { Command } from 'commander';
import type { RunwayClient } from '../../api/client.js';

// What every command module shares with the program that registers them; kept apart from program.ts so the
// commands do not import the module that imports them.

/** What the process exits with; CI jobs gate on it. */
export const ExitCode = {
  /** the command did what was asked and, for a run, the run passed */
  ok: 0,
  /** the command worked but the outcome is a failure: a failed run, a tool error, a server that is not ready */
  failed: 1,
  /** the command could not do its work: usage, configuration, or an error reply from the API */
  error: 2,
  /** `evals show`: the run has not finished yet (neither passed nor failed) */
  running: 3,
  /** stopped by SIGINT/SIGTERM (a run being waited for is cancelled first) */
  interrupted: 130,
} as const;

/** A mistake in how the command was called or configured (exit 2, no stack trace). */
export class UsageError extends Error {}

/** Everything a command needs: the API client, the project, and where to write. */
export interface CliContext {
  client: RunwayClient;
  projectId: string;
  json: boolean;
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** human output (tables, summaries) */
  print(line?: string): void;
  /** progress and notices, on stderr so that stdout stays clean for --json */
  note(line: string): void;
}

export type Action = (ctx: CliContext, command: Command) => Promise<number>;
