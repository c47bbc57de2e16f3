import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Option, type Command } from 'commander';
import type { IngestFormat } from '../../api/client.js';
import { ExitCode, UsageError, type Action } from './program.js';
import { percent } from './table.js';

const contentTypes: Record<IngestFormat, string> = {
  'junit-xml': 'application/xml',
  'jest-json': 'application/json',
  'vitest-json': 'application/json',
};

/**
 * `runway ingest FILE --format ...`: saves test results produced elsewhere as a finalized eval run. Mints a
 * single-use upload URL for the format, then PUTs the file to it; the server parses it. Exits 0 once the results
 * are saved, whatever they say (the test runner already failed the job when tests failed).
 */
export function ingestCommand(program: Command, run: (action: Action) => (...args: unknown[]) => Promise<void>): void {
  program
    .command('ingest')
    .description('save a JUnit XML, Jest JSON or Vitest JSON results file as an eval run')
    .argument('<file>')
    .addOption(new Option('--format <format>', 'the file\'s format').choices(Object.keys(contentTypes)).makeOptionMandatory())
    .option('--suite-name <name>', 'the suite the run is saved under (default: from the file)')
    .action(run(async (ctx, command) => {
      const options = command.opts<{ format: IngestFormat; suiteName?: string }>();
      const file = command.args[0];
      let content: Buffer;
      try {
        content = await readFile(file);
      } catch (error) {
        throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
      }
      const { uploadUrl } = await ctx.client.ingest.uploadUrl(ctx.projectId, { format: options.format, ...(options.suiteName ? { suiteName: options.suiteName } : {}) });
      const saved = await ctx.client.ingest.upload(uploadUrl, content, contentTypes[options.format]);
      if (ctx.json) {
        ctx.print(JSON.stringify(saved, null, 2));
      } else if (saved.runId) {
        const s = saved.summary;
        ctx.print(`ingested ${basename(file)}: run ${saved.runId} (suite ${saved.suiteId}) ${saved.result ?? ''}${s ? `, ${s.passed} of ${s.total} passed (${percent(s.passRate)})` : ''}`);
      } else {
        ctx.print(`uploaded ${basename(file)}: ${saved.storageId}`);
      }
      return ExitCode.ok;
    }));
}
