import { unknownServers } from '../evals/serverSelection.js';
import { notFound } from '../failures.js';
import type { FoundServer, ServerStore } from '../ports/serverStore.js';
import type { Principal } from '../principal.js';

/**
 * The saved server a request names, through the project access rule, in one statement (it is on every tools/call): a
 * project the key may not see is 404, and so is a server the project does not have (naming the closest ones). Its
 * secrets stay sealed until the story opens it (`open()`), once its own checks passed.
 */
export async function requireServer(
  servers: Pick<ServerStore, 'findInVisibleProject' | 'serversNamed'>,
  input: { principal: Principal; projectId: string; serverId: string },
): Promise<FoundServer & { projectId: string }> {
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
  return { ...server, projectId: projectId! };
}
