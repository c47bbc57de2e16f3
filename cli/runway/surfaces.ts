import type { Command } from 'commander';
import type { ToolSurfaceDiff } from '../../api/client.js';
import { ExitCode, UsageError, type Action } from './context.js';
import { resolveServer } from './servers.js';
import { formatTable } from './table.js';

const HASH = /^[0-9a-f]{64}$/;
const short = (hash: string) => hash.slice(0, 12);
const when = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const value = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));

/** A diff in lines: tools added, removed, and each changed field (with its JSON pointer inside a schema). */
export function formatSurfaceDiff(reply: ToolSurfaceDiff): string {
  const { diff } = reply;
  const lines = [`Tool surface ${short(reply.from)} -> ${short(reply.to)}`];
  if (diff.added.length + diff.removed.length + diff.changed.length === 0) lines.push('  no change');
  for (const name of diff.added) lines.push(`  + ${name} (added)`);
  for (const name of diff.removed) lines.push(`  - ${name} (removed)`);
  for (const tool of diff.changed) {
    lines.push(`  ~ ${tool.name}`);
    for (const f of tool.fields) lines.push(`      ${f.field}${f.path ?? ''}: ${value(f.before)} -> ${value(f.after)}`);
    if (tool.omittedChanges) lines.push(`      (${tool.omittedChanges} more changes left out)`);
  }
  return lines.join('\n');
}

/**
 * `runway servers surfaces <server>`: the tool surfaces the server showed eval runs and exports, the latest first;
 * with `--diff <from> <to>`, what changed between two (hashes, or their first characters as the list shows them).
 */
export function surfaceCommands(servers: Command, run: (action: Action) => (...args: unknown[]) => Promise<void>) {
  servers
    .command('surfaces')
    .description('the tool surfaces the server showed (runs and exports), or with --diff what changed between two')
    .argument('<server>', 'server id or name')
    .option('--diff <hashes...>', 'two surfaces (hash or a prefix of one from the list): from, then to')
    .option('--limit <n>', 'surfaces to list', '20')
    .action(
      run(async (ctx, command) => {
        const options = command.opts<{ diff?: string[]; limit: string }>();
        const server = await resolveServer(ctx, command.args[0]);
        if (options.diff) {
          if (options.diff.length !== 2) throw new UsageError('--diff takes two surfaces: <from> <to>');
          const listed = options.diff.some((h) => !HASH.test(h))
            ? (await ctx.client.surfaces.list(ctx.projectId, server.id, { limit: 100 })).items
            : [];
          const full = (ref: string) => {
            if (HASH.test(ref)) return ref;
            const matches = listed.filter((s) => s.hash.startsWith(ref.toLowerCase()));
            if (matches.length === 1) return matches[0].hash;
            throw new UsageError(
              matches.length === 0
                ? `no surface of ${server.name} starts with "${ref}"`
                : `"${ref}" names several surfaces; give more of the hash`,
            );
          };
          const reply = await ctx.client.surfaces.diff(
            ctx.projectId,
            server.id,
            full(options.diff[0]),
            full(options.diff[1]),
          );
          ctx.print(ctx.json ? JSON.stringify(reply, null, 2) : formatSurfaceDiff(reply));
          return ExitCode.ok;
        }
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
        const { items } = await ctx.client.surfaces.list(ctx.projectId, server.id, { limit });
        if (ctx.json) ctx.print(JSON.stringify(items, null, 2));
        else if (items.length === 0)
          ctx.print(`no tool surface recorded for ${server.name} yet (eval runs and exports record one)`);
        else
          ctx.print(
            formatTable(
              ['HASH', 'TOOLS', 'FIRST SEEN', 'LAST SEEN', 'RUNS', 'EXPORTS'],
              items.map((s) => [
                short(s.hash),
                `${s.toolCount}${s.truncated ? ' (truncated)' : ''}`,
                when(s.firstSeenAt),
                when(s.lastSeenAt),
                s.runCount,
                s.exportCount,
              ]),
              { align: ['left', 'right', 'left', 'left', 'right', 'right'] },
            ),
          );
        return ExitCode.ok;
      }),
    );
}
