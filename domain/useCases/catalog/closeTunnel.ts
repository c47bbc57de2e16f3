import type { Db } from '../../../db/connection.js';
import { findServerInVisibleProject } from '../../../db/servers.js';
import { tunnelsNotOffered } from '../../catalog/tunnels.js';
import { notFound } from '../../failures.js';
import type { Principal } from '../../principal.js';

/** Revoking a tunnel's grant: not offered either, once the project and its server are found. */
export function closeTunnel(deps: { sql: Db }) {
  return async function closeTunnel(input: {
    principal: Principal;
    projectId: string;
    serverId: string;
  }): Promise<never> {
    const { projectVisible, server } = await findServerInVisibleProject(
      deps.sql,
      input.principal,
      input.projectId,
      input.serverId,
    );
    if (!projectVisible) throw notFound('project', { projectId: input.projectId });
    if (!server) throw notFound('server', { serverId: input.serverId });
    throw tunnelsNotOffered();
  };
}

export type CloseTunnel = ReturnType<typeof closeTunnel>;
