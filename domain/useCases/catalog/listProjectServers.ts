import type { Db } from '../../../db/connection.js';
import { listStoredServers, protocolOf } from '../../../db/servers.js';
import { requireProject } from '../../access/project.js';
import type { ListedServer } from '../../catalog/server.js';
import type { Principal } from '../../principal.js';

/** A project's saved MCP servers, oldest first, without their secrets (none is opened to list them). */
export function listProjectServers(deps: { sql: Db }) {
  return async function listProjectServers(input: {
    principal: Principal;
    projectId: string;
  }): Promise<ListedServer[]> {
    const project = await requireProject(deps.sql, input.principal, input.projectId);
    const servers = await listStoredServers(deps.sql, project.id);
    return servers.map((s) => ({
      id: s.id,
      projectId: s.projectId,
      name: s.name,
      enabled: s.enabled,
      transportType: s.transportType,
      url: s.url,
      useOAuth: s.useOauth,
      hasClientSecret: s.clientSecretEnc !== null,
      oauthScopes: s.oauthScopes,
      protocol: protocolOf(s),
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
    }));
  };
}

export type ListProjectServers = ReturnType<typeof listProjectServers>;
