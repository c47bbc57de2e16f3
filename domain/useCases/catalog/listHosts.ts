import { requireProject } from '../../access/project.js';
import type { Host } from '../../catalog/host.js';
import type { HostStore } from '../../ports/hostStore.js';
import type { Principal } from '../../principal.js';

/** A project's hosts, oldest first, header values redacted. */
export function listHosts(deps: { hosts: HostStore }) {
  return async function listHosts(input: { principal: Principal; projectId: string }): Promise<Host[]> {
    const project = await requireProject(deps.hosts, input.principal, input.projectId);
    return await deps.hosts.list(project.id);
  };
}

export type ListHosts = ReturnType<typeof listHosts>;
