import { basename } from 'node:path';
import { OperationFailure } from '../failures.js';
import type { InitInfo, McpConnection } from './connection.js';
import type { PromptEntry, ResourceEntry, ResourceTemplateEntry, ToolEntry } from './primitives.js';
import { probeHttp, probeStdio, type OAuthDiscovery, type ProbeResult } from './probe.js';
import type { Truncation } from './replyBudget.js';
import type { McpTimeouts } from './timeouts.js';
import type { SavedServer } from '../catalog/server.js';
import { lint, type LintReport } from './lint/index.js';

export interface DoctorCheck {
  status: 'ok' | 'error' | 'skipped';
  detail: string;
  durationMs: number;
}

type CheckName =
  'probe' | 'connection' | 'initialization' | 'capabilities' | 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/** What the transport probe found, before any MCP session (probe.ts). */
export interface DoctorProbe {
  status: 'ok' | 'error';
  detail: string;
  durationMs: number;
  transport: ProbeResult['transport'];
  httpStatus: number | null;
}

/**
 * Whether an MCP session came up (connect and initialize both succeeded): what clients of the real product read
 * as "the server is reachable". skipped: it was not attempted (the server needs an OAuth grant first).
 */
export interface DoctorConnection {
  status: 'connected' | 'error' | 'skipped';
  detail: string;
  durationMs: number;
}

export interface DoctorReport {
  status: 'ready' | 'oauth_required' | 'partial' | 'error';
  generatedAt: string;
  target: { projectId: string; serverId: string; name: string; transportType: string; url: string | null };
  /** the timeouts that applied: the service's defaults, overridden by the server's own */
  timeouts: McpTimeouts;
  /** null until the probe has run (it always runs once the server is found) */
  probe: DoctorProbe | null;
  connection: DoctorConnection;
  /** the capabilities the server declared in its initialize answer; null without a session */
  capabilities: InitInfo['capabilities'] | null;
  checks: Record<CheckName, DoctorCheck>;
  initInfo: InitInfo | null;
  tools: ToolEntry[];
  resources: ResourceEntry[];
  resourceTemplates: ResourceTemplateEntry[];
  prompts: PromptEntry[];
  oauth: OAuthDiscovery | null;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
  /** tool definition lint of the listed tools (lint/): null when the tools were not listed */
  lint: LintReport | null;
  /** the lists held more than a reply may (limits.serverReplyBytes): those named stop where the budget ran out */
  truncated?: Truncation;
}

/** What the doctor needs from the operations: a dedicated session, and every page of each list on it. */
export interface DoctorSteps {
  /** opens a fresh session (not the pooled one, so connect and initialize are really measured); fills `timings` */
  connect(timings: { connectMs: number; initializeMs: number }): Promise<McpConnection>;
  hasGrant(): Promise<boolean>;
  listTools(connection: McpConnection): Promise<ToolEntry[]>;
  listResources(connection: McpConnection): Promise<ResourceEntry[]>;
  listResourceTemplates(connection: McpConnection): Promise<ResourceTemplateEntry[]>;
  listPrompts(connection: McpConnection): Promise<PromptEntry[]>;
}

const skipped = (detail: string): DoctorCheck => ({ status: 'skipped', detail, durationMs: 0 });

/**
 * probe -> connection -> initialization -> capabilities -> each primitive list, every step timed. It reports
 * instead of throwing: once the server is found the reply is always a report (HTTP 200). `dataDir` is where a
 * stdio server without a saved working directory runs.
 */
export async function runDoctor(
  server: SavedServer,
  { timeouts, dataDir }: { timeouts: McpTimeouts; dataDir: string },
  steps: DoctorSteps,
): Promise<DoctorReport> {
  const report: DoctorReport = {
    status: 'ready',
    generatedAt: new Date().toISOString(),
    target: {
      projectId: server.projectId,
      serverId: server.id,
      name: server.name,
      transportType: server.transportType,
      url: server.url,
    },
    timeouts,
    probe: null,
    connection: { status: 'skipped', detail: 'not run', durationMs: 0 },
    capabilities: null,
    checks: {
      probe: skipped('not run'),
      connection: skipped('not run'),
      initialization: skipped('not run'),
      capabilities: skipped('not run'),
      tools: skipped('not run'),
      resources: skipped('not run'),
      resourceTemplates: skipped('not run'),
      prompts: skipped('not run'),
    },
    initInfo: null,
    tools: [],
    resources: [],
    resourceTemplates: [],
    prompts: [],
    oauth: null,
    error: null,
    lint: null,
  };

  const probeStarted = Date.now();
  const probe =
    server.transportType === 'stdio'
      ? await probeStdio(server, dataDir)
      : await probeHttp(server, timeouts.connectMs + timeouts.initializeMs);
  report.probe = {
    status: probe.ok ? 'ok' : 'error',
    detail: probe.detail,
    durationMs: Date.now() - probeStarted,
    transport: probe.transport,
    httpStatus: probe.httpStatus,
  };
  report.checks.probe = { status: report.probe.status, detail: probe.detail, durationMs: report.probe.durationMs };
  report.oauth = probe.oauth;
  if (probe.oauth?.required && !(await steps.hasGrant())) {
    report.connection = {
      status: 'skipped',
      detail: 'not attempted: the server needs an OAuth grant first',
      durationMs: 0,
    };
    report.status = 'oauth_required';
    report.error = {
      code: 'OAUTH_REQUIRED',
      message: `server '${server.name}' needs an OAuth grant: import tokens with /oauth/import-tokens`,
    };
    return report;
  }

  const timings = { connectMs: 0, initializeMs: 0 };
  const connectStarted = Date.now();
  let connection: McpConnection;
  try {
    connection = await steps.connect(timings);
  } catch (error) {
    const failure =
      error instanceof OperationFailure
        ? error
        : new OperationFailure('INTERNAL_ERROR', 'connecting failed unexpectedly');
    const elapsed = Date.now() - connectStarted;
    const detail = explainConnectFailure(server, timeouts, failure);
    if (failure.details?.phase === 'initialize' || failure.code === 'OAUTH_REQUIRED') {
      report.checks.connection = { status: 'ok', detail: 'transport started', durationMs: timings.connectMs };
      report.checks.initialization = { status: 'error', detail, durationMs: Math.max(0, elapsed - timings.connectMs) };
    } else {
      report.checks.connection = { status: 'error', detail, durationMs: elapsed };
    }
    report.connection = { status: 'error', detail, durationMs: elapsed };
    // Without a session nothing else can be checked: that is an unusable server, not a partial one.
    report.status = failure.code === 'OAUTH_REQUIRED' ? 'oauth_required' : 'error';
    report.error = {
      code: failure.code,
      message: failure.message,
      ...(failure.details ? { details: failure.details } : {}),
    };
    return report;
  }

  try {
    const { initInfo } = connection;
    report.initInfo = initInfo;
    report.checks.connection = {
      status: 'ok',
      detail: `connected over ${initInfo.transport}${connection.pid ? ` (pid ${connection.pid})` : ''}`,
      durationMs: timings.connectMs,
    };
    report.checks.initialization = {
      status: 'ok',
      detail: `protocol ${initInfo.protocolVersion ?? 'unknown'} (${eraInWords(initInfo.era)}); ${initInfo.serverInfo ? `${initInfo.serverInfo.name} ${initInfo.serverInfo.version}` : 'no server info'}`,
      durationMs: timings.initializeMs,
    };
    report.connection = {
      status: 'connected',
      detail: report.checks.connection.detail,
      durationMs: timings.connectMs + timings.initializeMs,
    };
    report.capabilities = initInfo.capabilities;
    const declared = Object.keys(initInfo.capabilities);
    report.checks.capabilities = {
      status: 'ok',
      detail: declared.length ? `declares ${declared.join(', ')}` : 'declares no capabilities',
      durationMs: 0,
    };

    const caps = initInfo.capabilities;
    await check(
      report,
      'tools',
      caps.tools,
      () => steps.listTools(connection),
      (items) => (report.tools = items),
    );
    if (report.checks.tools.status === 'ok')
      report.lint = lint(report.tools, { protocolRevision: initInfo.protocolVersion, serverName: server.name });
    await check(
      report,
      'resources',
      caps.resources,
      () => steps.listResources(connection),
      (items) => (report.resources = items),
    );
    await check(
      report,
      'resourceTemplates',
      caps.resources,
      () => steps.listResourceTemplates(connection),
      (items) => (report.resourceTemplates = items),
    );
    await check(
      report,
      'prompts',
      caps.prompts,
      () => steps.listPrompts(connection),
      (items) => (report.prompts = items),
    );
  } finally {
    await connection.close().catch(() => {});
  }

  const failed = Object.values(report.checks).some((c) => c.status === 'error');
  report.status = failed ? 'partial' : 'ready';
  return report;
}

/** One primitive list: skipped when the capability is not declared, else timed and counted. */
async function check<T>(
  report: DoctorReport,
  name: CheckName,
  declared: unknown,
  list: () => Promise<T[]>,
  keep: (items: T[]) => void,
): Promise<void> {
  if (!declared) {
    report.checks[name] = skipped(`the server does not declare ${name === 'resourceTemplates' ? 'resources' : name}`);
    return;
  }
  const started = Date.now();
  try {
    const items = await list();
    keep(items);
    report.checks[name] = { status: 'ok', detail: `${items.length} listed`, durationMs: Date.now() - started };
  } catch (error) {
    const message = error instanceof OperationFailure ? error.message : 'listing failed';
    report.checks[name] = { status: 'error', detail: message, durationMs: Date.now() - started };
    report.error ??=
      error instanceof OperationFailure
        ? { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }
        : null;
  }
}

/** Which protocol era a session is in, and why Runway chose it. */
function eraInWords(era: InitInfo['era']): string {
  if (era === 'modern') return 'the 2026 era: the server answered server/discover, so no initialize handshake';
  if (era === 'legacy') return 'the initialize era: the server does not answer server/discover, so initialize';
  return 'era unknown';
}

/**
 * A failed connect in words an operator can act on: the timeout that ran out (and, for a server started by a package
 * launcher, why a first start is slow and what to raise), and what a stdio server said before it ended. The stderr
 * tail is the caller's to see (it is already redacted), like the failure's details.
 */
function explainConnectFailure(server: SavedServer, timeouts: McpTimeouts, failure: OperationFailure): string {
  const parts = [failure.message];
  const details = failure.details ?? {};
  if (failure.code === 'TIMEOUT' && (details.phase === 'connect' || details.phase === 'initialize')) {
    const limit = details.phase === 'connect' ? timeouts.connectMs : timeouts.initializeMs;
    parts.push(`the ${details.phase} timeout is ${limit} ms`);
    const launcher = packageLauncher(server);
    if (details.phase === 'initialize' && launcher) {
      const fetches = launcher.pullsImages ? 'pull the image' : 'download the package';
      parts.push(
        `the first start of ${launcher.name} may ${fetches}, which can take most of a minute, and a timeout stops it midway; ` +
          `raise the timeout (npm run -s admin -- server update ${server.id} --initialize-timeout-ms 120000) and run doctor again`,
      );
    }
  }
  if (details.reason === 'PROTOCOL_VERSION_UNSUPPORTED') {
    const theirs = Array.isArray(details.serverSupports) ? details.serverSupports.join(', ') : 'none it named';
    parts.push(
      `the server and Runway share no protocol revision (the server speaks ${theirs}); ` +
        'update the server, or its SDK, to a revision Runway speaks (it speaks 2026-07-28 and 2025-11-25 back to 2024-10-07)',
    );
  }
  if (typeof details.exitCode === 'number') parts.push(`the server exited with code ${details.exitCode}`);
  else if (typeof details.signal === 'string') parts.push(`the server was ended by ${details.signal}`);
  if (typeof details.stderr === 'string' && details.stderr !== '')
    parts.push(`its stderr ends with:\n${details.stderr}`);
  return parts.join('; ');
}

/** Commands that fetch what they run on a first start (a cold cache): their first initialize can be slow. */
const LAUNCHERS = new Set(['npx', 'pnpx', 'bunx', 'uvx', 'pipx']);
const IMAGE_RUNNERS = new Set(['docker', 'podman']);
/** `npm exec`, `pnpm dlx`, `uv tool run`, ...: a package manager's subcommand that does the same. */
const LAUNCHING_SUBCOMMANDS: Record<string, string[]> = {
  npm: ['exec', 'x'],
  pnpm: ['dlx', 'exec'],
  yarn: ['dlx'],
  bun: ['x'],
  uv: ['tool'],
};

function packageLauncher(server: SavedServer): { name: string; pullsImages: boolean } | undefined {
  if (server.transportType !== 'stdio' || !server.command) return undefined;
  const command = basename(server.command)
    .toLowerCase()
    .replace(/\.(cmd|exe)$/, '');
  if (LAUNCHERS.has(command)) return { name: command, pullsImages: false };
  if (IMAGE_RUNNERS.has(command)) return { name: command, pullsImages: true };
  const subcommand = server.args[0];
  if (subcommand && LAUNCHING_SUBCOMMANDS[command]?.includes(subcommand))
    return { name: `${command} ${subcommand}`, pullsImages: false };
  return undefined;
}
