import { setTimeout as sleep } from 'node:timers/promises';
import { Option, type Command } from 'commander';
import type { z } from 'zod';
import type { Collection } from '../../api/client.js';
import type { conformanceCheckSchema, conformanceCheckSummarySchema } from '../../api/schemas/conformance.js';
import { CONFORMANCE_REVISIONS } from '../../domain/mcp/conformance/report.js';
import { ExitCode, UsageError, type Action, type CliContext } from './context.js';
import { resolveServer } from './servers.js';
import { formatTable } from './table.js';

type ConformanceCheck = z.output<typeof conformanceCheckSchema>;
type ConformanceCheckSummary = z.output<typeof conformanceCheckSummarySchema>;

const OPEN = new Set(['queued', 'running']);

const positive = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number`);
  return n;
};

const when = (epochMs: number | null) => (epochMs === null ? '' : new Date(epochMs).toISOString());

/** The score, then every failed check with the suite's own message (warnings after them). */
export function printCheck(ctx: CliContext, check: ConformanceCheck): void {
  ctx.print(`conformance check ${check.checkId} (MCP ${check.specVersion}): ${check.status}`);
  if (check.error) ctx.print(`error: ${check.error.code}: ${check.error.message}`);
  const report = check.report;
  if (!report) return;
  const { score } = report;
  ctx.print(
    `score: ${score.value}/100  (${score.passedScenarios} of ${score.scoredScenarios} scored scenarios passed; ${score.passedChecks} checks passed, ${score.failedChecks} failed; suite ${report.suiteVersion})`,
  );
  ctx.print(`how: ${score.method}`);
  const rows = report.scenarios.flatMap((scenario) =>
    scenario.checks
      .filter((c) => c.status === 'failed' || c.status === 'warning')
      .sort((a, b) => (a.status === b.status ? 0 : a.status === 'failed' ? -1 : 1))
      .map((c) => [scenario.name, c.name, c.status, c.message ?? '']),
  );
  if (rows.length === 0) ctx.print('no check failed');
  else ctx.print(formatTable(['SCENARIO', 'CHECK', 'STATUS', 'MESSAGE'], rows, { maxWidth: 100 }));
  const notApplicable = report.scenarios.filter((s) => s.status === 'not_applicable').map((s) => s.name);
  if (notApplicable.length > 0) ctx.print(`not applicable: ${notApplicable.join(', ')}`);
}

function printHistory(ctx: CliContext, checks: ConformanceCheckSummary[]): void {
  if (checks.length === 0) {
    ctx.print('no conformance checks of this server yet');
    return;
  }
  ctx.print(
    formatTable(
      ['CHECK', 'REVISION', 'STATUS', 'SCORE', 'STARTED', 'ERROR'],
      checks.map((c) => [
        c.checkId,
        c.specVersion,
        c.status,
        c.score === null ? '' : String(c.score),
        when(c.createdAt),
        c.error ? `${c.error.code}: ${c.error.message}` : '',
      ]),
      { maxWidth: 100 },
    ),
  );
}

/**
 * `runway servers conformance <server>`: starts a conformance check of the server with the official MCP conformance
 * suite (issue 32); with --wait, polls it and prints the score and the failed checks with the suite's messages;
 * with --history, lists the server's past checks. Exit: 0 started (or, waited for, full marks), 1 completed below
 * 100 or failed/cancelled, 2 refused or an error, 130 interrupted.
 */
export function conformanceCommand(
  servers: Command,
  run: (action: Action) => (...args: unknown[]) => Promise<void>,
): void {
  servers
    .command('conformance')
    .description(
      'check the server against the official MCP conformance suite (a score and each failed check), or list its past checks',
    )
    .argument('<server>', 'server id or name')
    .addOption(
      new Option('--spec-version <revision>', "the protocol revision to check at (default: the server's own)").choices(
        CONFORMANCE_REVISIONS,
      ),
    )
    .option('--wait', 'wait for the check to end and print its score and failed checks')
    .option('--history', "list the server's past checks (newest first) instead of starting one")
    .addOption(
      new Option('--poll-interval <ms>', 'how often to poll the check with --wait')
        .default(2000)
        .argParser(positive('--poll-interval')),
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 the check started (with --wait: it scored 100); 1 with --wait, it scored below 100, failed or was cancelled; 2 the check could not start (a stdio server, one already running, the run cap); 130 interrupted (the check goes on).',
    )
    .action(
      run(async (ctx, command) => {
        const options = command.opts<{
          specVersion?: string;
          wait?: boolean;
          history?: boolean;
          pollInterval: number;
        }>();
        if (options.history && (options.wait || options.specVersion))
          throw new UsageError('--history lists past checks: it takes neither --wait nor --spec-version');
        const server = await resolveServer(ctx, command.args[0]);
        const path = `/projects/${encodeURIComponent(ctx.projectId)}/servers/${encodeURIComponent(server.id)}/conformance`;

        if (options.history) {
          const items: ConformanceCheckSummary[] = [];
          let cursor: string | undefined;
          do {
            const page = await ctx.client.request<Collection<ConformanceCheckSummary>>('GET', path, {
              query: { cursor },
            });
            items.push(...page.items);
            cursor = page.nextCursor;
          } while (cursor);
          if (ctx.json) ctx.print(JSON.stringify(items, null, 2));
          else printHistory(ctx, items);
          return ExitCode.ok;
        }

        let check = await ctx.client.request<ConformanceCheck>('POST', path, {
          body: options.specVersion ? { specVersion: options.specVersion } : {},
        });
        if (!options.wait) {
          if (ctx.json) ctx.print(JSON.stringify(check, null, 2));
          else {
            ctx.print(
              `conformance check ${check.checkId} of ${server.name} (MCP ${check.specVersion}): ${check.status}`,
            );
            ctx.note(`follow it: runway servers conformance ${server.id} --history`);
          }
          return ExitCode.ok;
        }

        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        try {
          ctx.note(`conformance check ${check.checkId} of ${server.name}: ${check.status}`);
          let said = check.status;
          while (OPEN.has(check.status)) {
            try {
              await sleep(options.pollInterval, undefined, { signal: stop.signal });
            } catch (error) {
              if (stop.signal.aborted) {
                ctx.note(`interrupted: check ${check.checkId} goes on`);
                return ExitCode.interrupted;
              }
              throw error;
            }
            check = await ctx.client.request<ConformanceCheck>('GET', `${path}/${encodeURIComponent(check.checkId)}`);
            if (check.status !== said) ctx.note(`conformance check ${check.checkId}: ${(said = check.status)}`);
          }
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
        if (ctx.json) ctx.print(JSON.stringify(check, null, 2));
        else printCheck(ctx, check);
        return check.status === 'completed' && check.score === 100 ? ExitCode.ok : ExitCode.failed;
      }),
    );
}
