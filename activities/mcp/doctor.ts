import type { SavedServer } from '../../db/servers.js';
import { OperationFailure } from '../errors.js';
import type { InitInfo, McpConnection } from './connection.js';
import type { PromptEntry, ResourceEntry, ResourceTemplateEntry, ToolEntry } from './primitives.js';
import { probeHttp, probeStdio, type OAuthDiscovery } from './probe.js';
import type { McpTimeouts } from './timeouts.js';

export interface DoctorCheck {
  status: 'ok' | 'error' | 'skipped';
  detail: string;
  durationMs: number;
}

type CheckName = 'probe' | 'connection' | 'initialization' | 'capabilities' | 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

export interface DoctorReport {
  status: 'ready' | 'oauth_required' | 'partial' | 'error';
  generatedAt: string;
  target: { projectId: string; serverId: string; name: string; transportType: string; url: string | null };
  checks: Record<CheckName, DoctorCheck>;
  initInfo: InitInfo | null;
  tools: ToolEntry[];
  resources: ResourceEntry[];
  resourceTemplates: ResourceTemplateEntry[];
  prompts: PromptEntry[];
  oauth: OAuthDiscovery | null;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
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
 * instead of throwing: once the server is found the reply is always a report (HTTP 200).
 */
export async function runDoctor(server: SavedServer, timeouts: McpTimeouts, steps: DoctorSteps): Promise<DoctorReport> {
  const report: DoctorReport = {
    status: 'ready',
    generatedAt: new Date().toISOString(),
    target: { projectId: server.projectId, serverId: server.id, name: server.name, transportType: server.transportType, url: server.url },
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
  };

  const probeStarted = Date.now();
  const probe = server.transportType === 'stdio' ? await probeStdio(server) : await probeHttp(server, timeouts.connectMs + timeouts.initializeMs);
  report.checks.probe = { status: probe.ok ? 'ok' : 'error', detail: probe.detail, durationMs: Date.now() - probeStarted };
  report.oauth = probe.oauth;
  if (probe.oauth?.required && !(await steps.hasGrant())) {
    report.status = 'oauth_required';
    report.error = { code: 'OAUTH_REQUIRED', message: `server '${server.name}' needs an OAuth grant: import tokens with /oauth/import-tokens` };
    return report;
  }

  const timings = { connectMs: 0, initializeMs: 0 };
  const connectStarted = Date.now();
  let connection: McpConnection;
  try {
    connection = await steps.connect(timings);
  } catch (error) {
    const failure = error instanceof OperationFailure ? error : new OperationFailure('INTERNAL_ERROR', 'connecting failed unexpectedly');
    const elapsed = Date.now() - connectStarted;
    if (failure.details?.phase === 'initialize' || failure.code === 'OAUTH_REQUIRED') {
      report.checks.connection = { status: 'ok', detail: 'transport started', durationMs: timings.connectMs };
      report.checks.initialization = { status: 'error', detail: failure.message, durationMs: Math.max(0, elapsed - timings.connectMs) };
    } else {
      report.checks.connection = { status: 'error', detail: failure.message, durationMs: elapsed };
    }
    // Without a session nothing else can be checked: that is an unusable server, not a partial one.
    report.status = failure.code === 'OAUTH_REQUIRED' ? 'oauth_required' : 'error';
    report.error = { code: failure.code, message: failure.message, ...(failure.details ? { details: failure.details } : {}) };
    return report;
  }

  try {
    const { initInfo } = connection;
    report.initInfo = initInfo;
    report.checks.connection = { status: 'ok', detail: `connected over ${initInfo.transport}${connection.pid ? ` (pid ${connection.pid})` : ''}`, durationMs: timings.connectMs };
    report.checks.initialization = {
      status: 'ok',
      detail: `protocol ${initInfo.protocolVersion ?? 'unknown'}; ${initInfo.serverInfo ? `${initInfo.serverInfo.name} ${initInfo.serverInfo.version}` : 'no server info'}`,
      durationMs: timings.initializeMs,
    };
    const declared = Object.keys(initInfo.capabilities);
    report.checks.capabilities = { status: 'ok', detail: declared.length ? `declares ${declared.join(', ')}` : 'declares no capabilities', durationMs: 0 };

    const caps = initInfo.capabilities;
    await check(report, 'tools', caps.tools, () => steps.listTools(connection), (items) => (report.tools = items));
    await check(report, 'resources', caps.resources, () => steps.listResources(connection), (items) => (report.resources = items));
    await check(report, 'resourceTemplates', caps.resources, () => steps.listResourceTemplates(connection), (items) => (report.resourceTemplates = items));
    await check(report, 'prompts', caps.prompts, () => steps.listPrompts(connection), (items) => (report.prompts = items));
  } finally {
    await connection.close().catch(() => {});
  }

  const failed = Object.values(report.checks).some((c) => c.status === 'error');
  report.status = failed ? 'partial' : 'ready';
  return report;
}

/** One primitive list: skipped when the capability is not declared, else timed and counted. */
async function check<T>(report: DoctorReport, name: CheckName, declared: unknown, list: () => Promise<T[]>, keep: (items: T[]) => void): Promise<void> {
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
    report.error ??= error instanceof OperationFailure ? { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } : null;
  }
}
