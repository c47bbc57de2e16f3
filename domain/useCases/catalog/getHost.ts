import { requireProject } from '../../access/project.js';
import type { Host } from '../../catalog/host.js';
import { notFound } from '../../failures.js';
import type { HostStore } from '../../ports/hostStore.js';
import type { Principal } from '../../principal.js';

/** One host of a project with its full config, header values redacted. */
export function getHost(deps: { hosts: HostStore }) {
  return async function getHost(input: { principal: Principal; projectId: string; hostId: string }): Promise<Host> {
    const project = await requireProject(deps.hosts, input.principal, input.projectId);
    const host = await deps.hosts.find(project.id, input.hostId);
    if (!host) throw notFound('host', { hostId: input.hostId });
    return host;
  };
}

export type GetHost = ReturnType<typeof getHost>;
