import type { Command } from 'commander';
import type { CallToolResult, DoctorReport, Server } from '../../api/client.js';
import { collect } from '../options.js';
import { ExitCode, UsageError, type Action, type CliContext } from './context.js';
import { formatTable } from './table.js';
import { conformanceCommand } from './conformance.js';
import { surfaceCommands } from './surfaces.js';

/** A saved server named by id or by name (names are what people remember; ids are what the API takes). */
export async function resolveServer(ctx: CliContext, ref: string): Promise<Server> {
  const { items } = await ctx.client.servers.list(ctx.projectId);
  const byId = items.find((s) => s.id === ref);
  if (byId) return byId;
  const byName = items.filter((s) => s.name === ref);
  if (byName.length === 1) return byName[0];
  if (byName.length > 1)
    throw new UsageError(`several servers are named "${ref}" (${byName.map((s) => s.id).join(', ')}); give the id`);
  const known = items.map((s) => `${s.name} (${s.id})`).join(', ') || 'none';
  throw new UsageError(`no server "${ref}" in project ${ctx.projectId}; servers: ${known}`);
}

/** `--param key=value`: the value is JSON when it parses as JSON (numbers, booleans, objects), else a string. */
function parseParams(json: string | undefined, pairs: string[]): Record<string, unknown> {
  let params: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new UsageError('--params must be a JSON object');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new UsageError('--params must be a JSON object');
    params = parsed as Record<string, unknown>;
  }
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--param expects key=value, got "${pair}"`);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    params[pair.slice(0, at)] = value;
  }
  return params;
}

function printToolResult(ctx: CliContext, result: CallToolResult): void {
  for (const block of result.content) {
    if (block.type === 'text' && typeof block.text === 'string') ctx.print(block.text);
    else ctx.print(JSON.stringify(block));
  }
  if (result.structuredContent) ctx.print(JSON.stringify(result.structuredContent, null, 2));
}

export function serverCommands(program: Command, run: (action: Action) => (...args: unknown[]) => Promise<void>): void {
  const servers = program.command('servers').description('saved MCP servers of the project');
  surfaceCommands(servers, run);

  servers
    .command('list')
    .description("the project's saved servers")
    .action(
      run(async (ctx) => {
        const { items } = await ctx.client.servers.list(ctx.projectId);
        if (ctx.json) ctx.print(JSON.stringify(items, null, 2));
        else if (items.length === 0) ctx.print(`no servers in project ${ctx.projectId}`);
        else
          ctx.print(
            formatTable(
              ['ID', 'NAME', 'TRANSPORT', 'ENABLED', 'OAUTH', 'URL'],
              items.map((s) => [
                s.id,
                s.name,
                s.transportType,
                s.enabled ? 'yes' : 'no',
                s.useOAuth ? 'yes' : 'no',
                s.url,
              ]),
            ),
          );
        return ExitCode.ok;
      }),
    );

  servers
    .command('tools')
    .description('every tool of a server (all pages)')
    .argument('<server>', 'server id or name')
    .action(
      run(async (ctx, command) => {
        const server = await resolveServer(ctx, command.args[0]);
        const tools = await ctx.client.servers.allTools(ctx.projectId, server.id);
        if (ctx.json) ctx.print(JSON.stringify(tools, null, 2));
        else
          ctx.print(
            formatTable(
              ['TOOL', 'DESCRIPTION'],
              tools.map((t) => [t.name, t.description]),
              { maxWidth: 100 },
            ),
          );
        return ExitCode.ok;
      }),
    );

  servers
    .command('call')
    .description('call a tool and print its result; exits 1 when the tool reports an error (isError)')
    .argument('<server>', 'server id or name')
    .argument('<tool>', 'tool name, exactly as listed')
    .option('--params <json>', 'the arguments as one JSON object')
    .option('--param <key=value>', 'one argument (repeatable); the value is parsed as JSON when it can be', collect, [])
    .action(
      run(async (ctx, command) => {
        const options = command.opts<{ params?: string; param: string[] }>();
        const params = parseParams(options.params, options.param);
        const server = await resolveServer(ctx, command.args[0]);
        const result = await ctx.client.servers.callTool(ctx.projectId, server.id, command.args[1], params);
        if (ctx.json) ctx.print(JSON.stringify(result, null, 2));
        else printToolResult(ctx, result);
        if (result.isError) {
          ctx.note(`the tool reported an error (isError)`);
          return ExitCode.failed;
        }
        return ExitCode.ok;
      }),
    );

  servers
    .command('doctor')
    .description('probe, connect, initialize and list everything, each step timed; exits 1 unless the server is ready')
    .argument('<server>', 'server id or name')
    .action(
      run(async (ctx, command) => {
        const server = await resolveServer(ctx, command.args[0]);
        const report = await ctx.client.servers.doctor(ctx.projectId, server.id);
        if (ctx.json) {
          ctx.print(JSON.stringify(report, null, 2));
        } else {
          ctx.print(
            `${report.target.name} (${report.target.serverId}, ${report.target.transportType}${report.target.url ? ` ${report.target.url}` : ''})`,
          );
          ctx.print(
            formatTable(
              ['CHECK', 'STATUS', 'MS', 'DETAIL'],
              Object.entries(report.checks).map(([name, check]) => [
                name,
                check.status,
                Math.round(check.durationMs),
                check.detail,
              ]),
              { align: ['left', 'left', 'right', 'left'], maxWidth: 90 },
            ),
          );
          ctx.print(
            `status: ${report.status}  (tools ${report.tools.length}, resources ${report.resources.length}, prompts ${report.prompts.length})`,
          );
          if (report.error) ctx.print(`error: ${report.error.code}: ${report.error.message}`);
          if (report.lint) printLint(ctx, report.lint);
        }
        return report.status === 'ready' ? ExitCode.ok : ExitCode.failed;
      }),
    );

  conformanceCommand(servers, run);
}

/** The doctor's tool lint: counts, then one row per finding (the span's text escaped, as the API gives it). */
function printLint(ctx: { print(line: string): void }, lint: NonNullable<DoctorReport['lint']>): void {
  const { counts, findings, omitted } = lint;
  ctx.print(`tool lint: ${counts.error} error(s), ${counts.warning} warning(s)`);
  if (findings.length === 0) return;
  ctx.print(
    formatTable(
      ['SEVERITY', 'RULE', 'TOOL', 'WHERE', 'FINDING'],
      findings.map((f) => [
        f.severity,
        f.rule,
        f.tool,
        `${f.field}${f.pointer ? ` ${f.pointer}` : ''}${f.span ? ` [${f.span.start}-${f.span.end}]` : ''}`,
        f.message,
      ]),
      { maxWidth: 90 },
    ),
  );
  if (omitted > 0) ctx.print(`(${omitted} more findings not shown)`);
  if (lint.incomplete) ctx.print(`(${lint.incomplete.reason})`);
}
