import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Sql } from '../db/connection.js';
import { idempotencyKeyPurge } from '../db/idempotencyKeys.js';
import { createRetentionStore } from '../db/retention.js';
import {
  parseRetentionSetting,
  MAX_RETENTION_DAYS,
  type OrganizationRetention,
  type RetentionDays,
  type RetentionPolicy,
  type RetentionSetting,
} from '../domain/retention/policy.js';
import { applyRetention, type RetentionReport } from '../domain/useCases/retention/applyRetention.js';
import { setRetention, showRetention } from '../domain/useCases/retention/retentionPolicies.js';
import { loadRetentionConfig } from '../runtime/config.js';
import { requireOrganization } from './adminChecks.js';
import type { AdminAction } from './adminLists.js';
import { formatTable } from './runway/table.js';

/*
 * `retention show|set|run` (issue 33): the operator's view of what expires, per organization, and a pass run now.
 * They call the same use cases as the worker's retention schedule, with the deployment's defaults read from the
 * same settings (RETENTION_TRACE_DAYS, RETENTION_RUN_DAYS, RETENTION_BATCH_SIZE: run the CLI with the worker's).
 */

const json = () => new Option('--json', 'print machine-readable JSON');

const setting = (value: string): RetentionSetting => {
  const parsed = parseRetentionSetting(value);
  if (parsed === undefined)
    throw new InvalidArgumentError(
      `a whole number of days from 1 to ${MAX_RETENTION_DAYS}, "forever", or "default" (the deployment's)`,
    );
  return parsed;
};

const batchSize = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new InvalidArgumentError('a whole number from 1 to 10000');
  return n;
};

/** The deployment's defaults and batch size, from the environment (as the worker reads them). */
function deployment(sql: Sql) {
  const settings = loadRetentionConfig();
  const defaults: RetentionPolicy = { traceDays: settings.RETENTION_TRACE_DAYS, runDays: settings.RETENTION_RUN_DAYS };
  return {
    retention: createRetentionStore(sql),
    defaults,
    batchSize: settings.RETENTION_BATCH_SIZE,
    purges: [idempotencyKeyPurge(sql)],
  };
}

const days = (value: RetentionDays) => (value === null ? 'kept for ever' : `${value} days`);
const own = (value: RetentionSetting) => (value === 'default' ? 'default' : 'own');

const describePolicies = (r: { defaults: RetentionPolicy; organizations: OrganizationRetention[] }) =>
  [
    `deployment defaults: traces and artifacts ${days(r.defaults.traceDays)}, runs ${days(r.defaults.runDays)}`,
    r.organizations.length === 0
      ? 'no organizations yet'
      : formatTable(
          ['ORGANIZATION', 'NAME', 'TRACES', 'RUNS'],
          r.organizations.map((o) => [
            o.organizationId,
            o.organizationName,
            `${days(o.effective.traceDays)} (${own(o.own.traceDays)})`,
            `${days(o.effective.runDays)} (${own(o.own.runDays)})`,
          ]),
        ),
  ].join('\n');

const describeReport = (r: RetentionReport) => {
  const verb = r.dryRun ? 'would delete' : 'deleted';
  const kinds = Object.entries(r.counts)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  const orgs = Object.entries(r.byOrganization).map(
    ([org, counts]) =>
      `  ${org}: ${Object.entries(counts)
        .map(([kind, n]) => `${kind} ${n}`)
        .join(', ')}`,
  );
  return [
    `retention ${r.dryRun ? 'dry run' : `run (${r.batches} batches)`}: ${verb} ${kinds}`,
    ...orgs,
    ...(r.dryRun ? ['nothing was deleted (dry run)'] : []),
  ].join('\n');
};

/** `retention show`, `retention set`, `retention run`. */
export function addRetentionCommands(program: Command, action: AdminAction): void {
  const retention = program
    .command('retention')
    .description(
      'what expires and when: iteration traces and artifact blobs after N days, ended runs after M (docs/OPERATIONS.md#retention)',
    );
  retention
    .command('show')
    .description("each organization's retention in effect: its own setting, else the deployment's default")
    .option('--org <organizationId>', 'only this organization')
    .addOption(json())
    .action(
      action<{ org?: string }>(async ({ sql }, o) => {
        const d = deployment(sql);
        if (o.org !== undefined) await requireOrganization(sql, o.org);
        const organizations = await showRetention(d)(o.org === undefined ? {} : { organizationId: o.org });
        return { defaults: d.defaults, organizations };
      }, describePolicies),
    );
  retention
    .command('set')
    .description("set an organization's own retention; a field left out keeps its setting")
    .requiredOption('--org <organizationId>')
    .addOption(
      new Option(
        '--trace-days <days|forever|default>',
        'days iteration traces and uploaded artifacts are kept',
      ).argParser(setting),
    )
    .addOption(
      new Option('--run-days <days|forever|default>', 'days an ended run, with its iterations, is kept').argParser(
        setting,
      ),
    )
    .addOption(json())
    .action(
      action<{ org: string; traceDays?: RetentionSetting; runDays?: RetentionSetting }>(async ({ sql }, o) => {
        if (o.traceDays === undefined && o.runDays === undefined)
          throw new Error('nothing to set: give --trace-days and/or --run-days');
        await requireOrganization(sql, o.org);
        const d = deployment(sql);
        const set = await setRetention(d)({
          organizationId: o.org,
          changes: {
            ...(o.traceDays !== undefined && { traceDays: o.traceDays }),
            ...(o.runDays !== undefined && { runDays: o.runDays }),
          },
        });
        return { defaults: d.defaults, organizations: [set] };
      }, describePolicies),
    );
  retention
    .command('run')
    .description(
      'run a retention pass now, in batches (each its own short transaction); --dry-run counts what it would delete',
    )
    .option('--dry-run', 'count what would be deleted, delete nothing')
    .addOption(new Option('--batch-size <rows>', 'rows per batch (default RETENTION_BATCH_SIZE)').argParser(batchSize))
    .addOption(json())
    .action(
      action<{ dryRun?: boolean; batchSize?: number }>(async ({ sql }, o) => {
        const d = deployment(sql);
        const apply = applyRetention({ ...d, batchSize: o.batchSize ?? d.batchSize });
        return await apply({ dryRun: o.dryRun === true });
      }, describeReport),
    );
}
