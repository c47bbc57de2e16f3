import { unknownServers } from '../../evals/serverSelection.js';
import { notFound } from '../../failures.js';
import type { SavedServer } from '../../catalog/server.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { Principal } from '../../principal.js';

/**
 * The saved server a conformance story is about, through the project access rule (as every server operation finds
 * it): a project the key may not see, or a server it does not have, is 404.
 */
export async function findCheckedServer(
  servers: Pick<ServerStore, 'findInVisibleProject' | 'serversNamed'>,
  input: { principal: Principal; projectId: string; serverId: string },
): Promise<{ enabled: boolean; server: () => SavedServer; id: string; name: string; projectId: string }> {
  const { projectVisible, projectId, server } = await servers.findInVisibleProject(
    input.principal,
    input.projectId,
    input.serverId,
  );
  if (!projectVisible) throw notFound('project', { projectId: input.projectId });
  if (!server) {
    const named = await servers.serversNamed(projectId!, [input.serverId]);
    throw unknownServers(projectId!, [input.serverId], named, { serverId: input.serverId });
  }
  return { id: server.id, name: server.name, enabled: server.enabled, projectId: projectId!, server: server.open };
}
