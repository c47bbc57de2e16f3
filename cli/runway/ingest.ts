import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { Option, type Command } from 'commander';
import type { IngestFormat } from '../../api/client.js';
import { ExitCode, UsageError, type Action } from './context.js';
import { percent } from './table.js';

const contentTypes: Record<IngestFormat, string> = {
  'junit-xml': 'application/xml',
  'jest-json': 'application/json',
  'vitest-json': 'application/json',
};

/**
 * The suite a file's results are saved under when --suite-name is not given. A JUnit report names its suite
 * itself (`<testsuites name>`, else the first `<testsuite name>`), and the server reads it there; Jest and Vitest
 * JSON reports name nothing, so the file does: `weather-evals.json` is the suite `weather-evals`.
 */
function suiteNameFor(format: IngestFormat, file: string): string | undefined {
  if (format === 'junit-xml') return undefined;
  return basename(file, extname(file)).trim() || undefined;
}

/**
 * `runway ingest FILE --format ...`: saves test results produced elsewhere as a finalized eval run. Mints a
 * single-use upload URL for the format, then PUTs the file to it; the server parses it. The same file ingested
 * again is the same run (the server names the run after the content unless --external-run-id names it).
 */
export function ingestCommand(program: Command, run: (action: Action) => (...args: unknown[]) => Promise<void>): void {
  program
    .command('ingest')
    .description(
      'save a JUnit XML, Jest JSON or Vitest JSON results file as an eval run; exits 0 only when the saved results passed',
    )
    .argument('<file>')
    .addOption(
      new Option('--format <format>', "the file's format").choices(Object.keys(contentTypes)).makeOptionMandatory(),
    )
    .option(
      '--suite-name <name>',
      'the suite the run is saved under (default: for JUnit, the name the report gives; for Jest and Vitest JSON, the file name without its extension)',
    )
    .option(
      '--external-run-id <id>',
      "your id for this run (e.g. the CI job's): ingesting again with the same id returns the same run (default: derived from the file's content, so the same file is one run)",
    )
    .addHelpText(
      'after',
      "\nExit codes: 0 the results were saved and passed; 1 they were saved and failed (the run's result is failed); 2 the command could not run (nothing was saved).",
    )
    .action(
      run(async (ctx, command) => {
        const options = command.opts<{ format: IngestFormat; suiteName?: string; externalRunId?: string }>();
        const file = command.args[0];
        let content: Buffer;
        try {
          content = await readFile(file);
        } catch (error) {
          throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
        }
        const suiteName = options.suiteName ?? suiteNameFor(options.format, file);
        const { uploadUrl } = await ctx.client.ingest.uploadUrl(ctx.projectId, {
          format: options.format,
          ...(suiteName ? { suiteName } : {}),
          ...(options.externalRunId ? { externalRunId: options.externalRunId } : {}),
        });
        const saved = await ctx.client.ingest.upload(uploadUrl, content, contentTypes[options.format]);
        if (ctx.json) {
          ctx.print(JSON.stringify(saved, null, 2));
        } else if (saved.runId) {
          const s = saved.summary;
          const counts = s ? `, ${s.passed} of ${s.total} passed (${percent(s.passRate)})` : '';
          const again = saved.reused ? ' (already ingested: the same run as before, unchanged)' : '';
          ctx.print(
            `ingested ${basename(file)}: run ${saved.runId} (suite ${saved.suiteId}) ${saved.result ?? ''}${counts}${again}`,
          );
        } else {
          ctx.print(`uploaded ${basename(file)}: ${saved.storageId}`);
        }
        return saved.result === 'failed' ? ExitCode.failed : ExitCode.ok;
      }),
    );
}
