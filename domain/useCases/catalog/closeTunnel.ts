import { tunnelsNotOffered } from '../../catalog/tunnels.js';
import { notFound } from '../../failures.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { Principal } from '../../principal.js';

/** Revoking a tunnel's grant: not offered either, once the project and its server are found. */
export function closeTunnel(deps: { servers: ServerStore }) {
  return async function closeTunnel(input: {
    principal: Principal;
    projectId: string;
    serverId: string;
  }): Promise<never> {
    const { projectVisible, server } = await deps.servers.findInVisibleProject(
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
