import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { DEFAULT_RUNWAY_URL, loadRunwayCliConfig, type RunwayCliConfig } from '../../runtime/config.js';
import { createRunwayClient, RunwayApiError } from '../../api/client.js';
import { ExitCode, UsageError, type Action, type CliContext } from './context.js';
import { evalCommands } from './evals.js';
import { ingestCommand } from './ingest.js';
import { serverCommands } from './servers.js';
import { runningStack } from '../stackRecord.js';

/** The exit codes, as `runway --help` shows them (docs/CLI.md says the same). */
const EXIT_CODES = `
Exit codes:
  0    done; for evals run and evals show, the run passed; for ingest, the saved results passed
  1    the outcome is a failure: a run that failed, was cancelled or timed out (evals run, evals show), saved
       results that failed (ingest), a tool call that returned isError (servers call), a server that is not
       ready (servers doctor)
  2    the command could not do its work: usage, configuration, or an error reply from the API
  3    evals show: the run has not finished yet
  130  interrupted (SIGINT/SIGTERM); evals run cancels its run and writes its report first`;

export interface GlobalOptions {
  url?: string;
  project?: string;
  json?: boolean;
}

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Which Runway the CLI talks to, and how it chose it (named when it cannot reach it). */
export interface RunwayTarget {
  url: string;
  source: string;
  hint: string;
}

/**
 * --url; else RUNWAY_URL; else the API of the `npm start` that runs in RUNWAY_DATA_DIR (its stack.json: a stack
 * started on another PORT is found from another shell); else DEFAULT_RUNWAY_URL.
 */
export function runwayTarget(url: string | undefined, settings: RunwayCliConfig): RunwayTarget {
  if (url) return { url, source: 'from --url', hint: 'check --url' };
  if (settings.RUNWAY_URL) return { url: settings.RUNWAY_URL, source: 'from RUNWAY_URL', hint: 'check RUNWAY_URL' };
  const running = runningStack(settings.RUNWAY_DATA_DIR);
  if (running)
    return {
      url: running.url,
      source: `the npm start running in ${running.dataDir} (pid ${running.pid})`,
      hint: running.status === 'starting' ? 'it is still starting: try again in a moment' : 'is it stopping?',
    };
  return {
    url: DEFAULT_RUNWAY_URL,
    source: `the default (RUNWAY_URL is unset and no npm start runs in ${settings.RUNWAY_DATA_DIR})`,
    hint: 'set RUNWAY_URL to your Runway, or start one with `npm start`',
  };
}

/** A request that never reached Runway: names where the CLI went, and why there. */
class UnreachableError extends Error {}

export function contextFor(
  command: Command,
  io: Pick<CliContext, 'env' | 'stdout' | 'stderr'>,
): CliContext & { target: RunwayTarget } {
  const options = command.optsWithGlobals<GlobalOptions>();
  const settings = loadRunwayCliConfig(io.env);
  const target = runwayTarget(options.url, settings);
  const apiKey = settings.RUNWAY_API_KEY;
  if (!apiKey)
    throw new UsageError(
      'RUNWAY_API_KEY is not set: export an sk_ key (an operator creates one with `npm run -s admin -- key create`)',
    );
  if (!apiKey.startsWith('sk_'))
    throw new UsageError('RUNWAY_API_KEY does not look like an API key (it should start with sk_)');
  const note = (line: string) => void io.stderr.write(`${line}\n`);
  const client = createRunwayClient({
    baseUrl: target.url,
    apiKey,
    userAgent: `runway-cli/${version}`,
    onRetry: (event) => note(`[runway] ${event.reason}; retrying in ${(event.delayMs / 1000).toFixed(1)}s`),
  });
  return {
    client,
    target,
    // `default` is the organization's default project on every route.
    projectId: options.project ?? settings.RUNWAY_PROJECT_ID,
    json: options.json === true,
    ...io,
    print: (line = '') => void io.stdout.write(`${line}\n`),
    note,
  };
}

export function createProgram(
  io: Pick<CliContext, 'env' | 'stdout' | 'stderr'>,
  setExitCode: (code: number) => void,
): Command {
  const program = new Command('runway')
    .description(
      'Runway from the command line and CI: operate saved MCP servers, run evals, ingest test results.\n' +
        'Configured by RUNWAY_URL (default: the API of the `npm start` running in RUNWAY_DATA_DIR, else\n' +
        'http://localhost:3000), RUNWAY_API_KEY (an sk_ key) and RUNWAY_PROJECT_ID.',
    )
    .version(version)
    .addOption(new Option('--url <url>', 'Runway URL (env RUNWAY_URL)'))
    .addOption(
      new Option(
        '-p, --project <projectId>',
        "project id, or `default` for the organization's default project (env RUNWAY_PROJECT_ID)",
      ),
    )
    .addOption(new Option('--json', 'print machine-readable JSON on stdout'))
    .addHelpText('after', EXIT_CODES)
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) })
    .exitOverride();

  /** Wraps a command's work: builds the context, maps errors to exit codes. */
  const run =
    (action: Action) =>
    async (...received: unknown[]) => {
      const command = received.at(-1) as Command;
      const context = contextFor(command, io);
      try {
        setExitCode(await action(context, command));
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
        if (!(error instanceof TypeError && error.message === 'fetch failed')) throw error;
        const { url, source, hint } = context.target;
        throw new UnreachableError(
          `cannot reach Runway at ${url} (${cause?.code ?? cause?.message ?? 'network error'}), ${source}: ${hint}`,
        );
      }
    };
  serverCommands(program, run);
  evalCommands(program, run);
  ingestCommand(program, run);
  return program;
}

/** Parses argv, runs the command, and answers the exit code (never throws). */
export async function runCli(
  argv: string[],
  // The environment is passed in whole: the settings are read from it through loadRunwayCliConfig, and
  // --model-key-env reads the variables a user names.
  io: Pick<CliContext, 'env' | 'stdout' | 'stderr'> = {
    // eslint-disable-next-line no-restricted-properties -- the process's environment, handed to the CLI to read as above
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
  },
): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const program = createProgram(io, (code) => (exitCode = code));
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here too.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.error;
    }
    io.stderr.write(`error: ${describeError(error)}\n`);
    return ExitCode.error;
  }
}

export function describeError(error: unknown): string {
  if (error instanceof RunwayApiError) {
    const details = error.details ? ` ${JSON.stringify(error.details)}` : '';
    return `${error.code} (HTTP ${error.status}): ${error.message}${details}${error.requestId ? ` [request ${error.requestId}]` : ''}`;
  }
  if (error instanceof UsageError || error instanceof UnreachableError) return error.message;
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (error instanceof TypeError && error.message === 'fetch failed')
    return `cannot reach Runway (${cause?.code ?? cause?.message ?? 'network error'}); check RUNWAY_URL`;
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'Runway did not answer in time';
  return error instanceof Error ? error.message : String(error);
}
