import { OperationFailure } from '../../failures.js';
import type { McpOperations } from '../../mcp/index.js';
import type { SavedServer } from '../../catalog/server.js';

/** A tool of one of the suite's servers, by its MCP name (the name expectations and scoring use). */
export interface SuiteTool {
  serverId: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface UnreachableServer {
  serverId: string;
  name: string;
  code: string;
  message: string;
}

export interface SuiteTools {
  tools: SuiteTool[];
  /** servers that could not be listed: their tools are left out */
  unreachable: UnreachableServer[];
}

/**
 * Every tool of the suite's servers, through the same MCP operations an eval run uses. A server that cannot be
 * listed is left out and reported; when none can be, the first server's failure is thrown as it is (its code:
 * SERVER_UNREACHABLE, OAUTH_REQUIRED, TIMEOUT, ...). A name two servers share is kept once, the first server's,
 * as a run's tool list does.
 */
export async function listSuiteTools(
  mcp: McpOperations,
  servers: readonly SavedServer[],
  signal?: AbortSignal,
): Promise<SuiteTools> {
  const listed = await Promise.allSettled(servers.map((server) => mcp.listAllTools(server, { signal })));
  const tools: SuiteTool[] = [];
  const unreachable: UnreachableServer[] = [];
  const seen = new Set<string>();
  for (const [i, outcome] of listed.entries()) {
    const server = servers[i];
    if (outcome.status === 'rejected') {
      const failure = outcome.reason;
      unreachable.push({
        serverId: server.id,
        name: server.name,
        code: failure instanceof OperationFailure ? failure.code : 'INTERNAL_ERROR',
        message: failure instanceof Error ? failure.message : String(failure),
      });
      continue;
    }
    for (const tool of outcome.value) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      tools.push({
        serverId: server.id,
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
      });
    }
  }
  if (servers.length > 0 && unreachable.length === servers.length) {
    const first = (listed[0] as PromiseRejectedResult).reason;
    if (!(first instanceof OperationFailure)) throw first;
    const message =
      servers.length === 1
        ? first.message
        : `none of the suite's ${servers.length} servers could be listed; ${servers[0].name}: ${first.message}`;
    throw new OperationFailure(first.code, message, { ...first.details, unreachableServers: unreachable });
  }
  return { tools, unreachable };
}
