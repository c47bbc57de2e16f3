import { requireServer } from '../../access/server.js';
import { refused } from '../../failures.js';
import type { McpOperations } from '../../mcp/index.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { Principal } from '../../principal.js';
import type { SavedServer } from '../../catalog/server.js';

/**
 * An MCP operation on a saved server (validate, tools/call, ...; domain/mcp does the work). The server is found
 * through the project access rule first: one outside the key's reach is 404, whether it exists or not. A disabled
 * server is refused (details.reason SERVER_DISABLED) for every operation that connects to it; the others (checking
 * and importing OAuth tokens) still work, so tokens can be set up before it is enabled.
 */
export function runServerOperation(deps: { servers: ServerStore; mcp: McpOperations }) {
  return async function runServerOperation<T>(
    input: {
      principal: Principal;
      projectId: string;
      serverId: string;
      /** whether the operation connects to the server (false: it only reads or writes what Runway keeps for it) */
      connects: boolean;
    },
    operation: (mcp: McpOperations, server: SavedServer) => Promise<T>,
  ): Promise<T> {
    const { servers, mcp } = deps;
    // The project's access rule and the server in one statement: this is on every tools/call. Its secrets are
    // opened once it passed the checks: a refused request opens none.
    const server = await requireServer(servers, input);
    if (input.connects && !server.enabled) {
      throw refused(`server '${server.name}' is disabled; enable it to run operations on it`, {
        reason: 'SERVER_DISABLED',
        serverId: server.id,
      });
    }
    return await operation(mcp, server.open());
  };
}

export type RunServerOperation = ReturnType<typeof runServerOperation>;
