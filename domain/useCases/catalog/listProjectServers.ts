import { requireProject } from '../../access/project.js';
import type { ListedServer } from '../../catalog/server.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { Principal } from '../../principal.js';

/** A project's saved MCP servers, oldest first, without their secrets (none is opened to list them). */
export function listProjectServers(deps: { servers: ServerStore }) {
  return async function listProjectServers(input: {
    principal: Principal;
    projectId: string;
  }): Promise<ListedServer[]> {
    const project = await requireProject(deps.servers, input.principal, input.projectId);
    return await deps.servers.list(project.id);
  };
}

export type ListProjectServers = ReturnType<typeof listProjectServers>;
