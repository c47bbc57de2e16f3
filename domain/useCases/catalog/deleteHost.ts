import { requireProject } from '../../access/project.js';
import { notFound } from '../../failures.js';
import type { HostStore } from '../../ports/hostStore.js';
import type { Principal } from '../../principal.js';

/** Deletes a host of a project. */
export function deleteHost(deps: { hosts: HostStore }) {
  return async function deleteHost(input: { principal: Principal; projectId: string; hostId: string }): Promise<void> {
    const project = await requireProject(deps.hosts, input.principal, input.projectId);
    if (!(await deps.hosts.delete(project.id, input.hostId))) throw notFound('host', { hostId: input.hostId });
  };
}

export type DeleteHost = ReturnType<typeof deleteHost>;
