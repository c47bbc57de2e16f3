import type { SavedServer } from '../../catalog/server.js';
import { OperationFailure, notFound } from '../../failures.js';
import { hostClientProfile, requireAllowedRoots, type McpOperations } from '../../mcp/index.js';
import { requireServers } from '../../evals/serverSelection.js';
import { lint, lintSuite, type LintFinding, type LintReport } from '../../mcp/lint/index.js';
import type { ServerDirectory } from '../../ports/serverDirectory.js';
import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireVisibleProject } from '../../access/visibleProject.js';
import type { Principal } from '../../principal.js';

/** Servers of one suite linted at once: a suite of many servers does not open them all together. */
export const SUITE_LINT_PARALLELISM = 4;
/** Servers of one suite linted at most: the suite's first ones (in its order); the others are named as not linted. */
export const SUITE_LINT_MAX_SERVERS = 20;
/** How long listing one server's tools may take, on top of its own connect and initialize timeouts. */
export const SUITE_LINT_SERVER_MS = 30_000;

export interface LintedServer {
  serverId: string;
  name: string;
  /** listed: its tools were listed and linted; failed: they could not be (error); skipped: past the cap */
  status: 'listed' | 'failed' | 'skipped';
  toolCount: number;
  lint: LintReport | null;
  error: { code: string; message: string } | null;
}

export interface SuiteToolLint {
  suiteId: string;
  servers: LintedServer[];
  /** rules across the suite's servers: a tool name two or more of them list */
  findings: LintFinding[];
}

/**
 * Tool lint of every server of a suite (docs/SERVER-CHECKS.md "Tool lint"): each server's own findings, and the
 * tool names its servers share. The servers are asked as the suite's runs ask them (with its host's client profile),
 * through the same MCP operations; one that cannot be listed is reported, not fatal.
 */
export function lintSuiteTools(deps: { suites: SuiteStore; servers: ServerDirectory; mcp: McpOperations }) {
  return async function lintSuiteTools(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
  }): Promise<SuiteToolLint> {
    const { suites, mcp } = deps;
    const project = await requireVisibleProject(suites, input.principal, input.projectId);
    const suite = await suites.find(project.id, input.suiteId);
    if (!suite) throw notFound('eval suite', { suiteId: input.suiteId });
    // Checked as a run checks them (saved, enabled), then opened with the host's client profile, as runs ask.
    const saved = suite.serverIds.length === 0 ? [] : await requireServers(deps.servers, project.id, suite.serverIds);
    const host = suite.hostId === null ? undefined : await suites.host(project.id, suite.hostId);
    const profile = host ? hostClientProfile(host.config) : undefined;
    if (profile) requireAllowedRoots(profile, saved);
    const servers = profile ? saved.map((s) => ({ ...s, clientProfile: profile })) : saved;
    const linted = servers.slice(0, SUITE_LINT_MAX_SERVERS);
    const results: { server: LintedServer; names: { name: string }[] }[] = new Array(linted.length);
    let next = 0;
    const worker = async () => {
      while (next < linted.length) {
        const i = next++;
        results[i] = await lintServer(mcp, linted[i]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(SUITE_LINT_PARALLELISM, linted.length) }, worker));
    const skipped: LintedServer[] = servers.slice(SUITE_LINT_MAX_SERVERS).map((server) => ({
      serverId: server.id,
      name: server.name,
      status: 'skipped',
      toolCount: 0,
      lint: null,
      error: null,
    }));
    const findings = lintSuite(
      results
        .filter((r) => r.server.status === 'listed')
        .map((r) => ({ serverId: r.server.serverId, name: r.server.name, tools: r.names })),
    );
    return { suiteId: suite.id, servers: [...results.map((r) => r.server), ...skipped], findings };
  };
}

async function lintServer(
  mcp: McpOperations,
  server: SavedServer,
): Promise<{ server: LintedServer; names: { name: string }[] }> {
  const base = { serverId: server.id, name: server.name };
  try {
    // validate opens (or reuses) the pooled session, bounded by the server's own timeouts, and says its revision.
    const { initInfo } = await mcp.validate(server);
    const tools = await mcp.listAllTools(server, { signal: AbortSignal.timeout(SUITE_LINT_SERVER_MS) });
    return {
      server: {
        ...base,
        status: 'listed',
        toolCount: tools.length,
        lint: lint(tools, { protocolRevision: initInfo?.protocolVersion ?? null, serverName: server.name }),
        error: null,
      },
      names: tools.map((t) => ({ name: t.name })),
    };
  } catch (error) {
    const failure =
      error instanceof OperationFailure
        ? { code: error.code, message: error.message }
        : error instanceof Error && error.name === 'TimeoutError'
          ? { code: 'TIMEOUT', message: `listing the tools took more than ${SUITE_LINT_SERVER_MS} ms` }
          : { code: 'INTERNAL_ERROR', message: 'listing the tools failed unexpectedly' };
    return { server: { ...base, status: 'failed', toolCount: 0, lint: null, error: failure }, names: [] };
  }
}

export type LintSuiteTools = ReturnType<typeof lintSuiteTools>;
