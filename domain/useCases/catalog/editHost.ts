import type { HostStore } from '../../ports/hostStore.js';
import { requireProject } from '../../access/project.js';
import type { GivenHostConfig, Host } from '../../catalog/host.js';
import { requireHostServers, savingHost } from '../../catalog/hostChecks.js';
import { notFound } from '../../failures.js';
import type { Principal } from '../../principal.js';

/**
 * Renames a host and/or replaces its config. A header value given as the redaction marker keeps the stored value;
 * headers the new config leaves out are dropped.
 */
export function editHost(deps: { hosts: HostStore }) {
  return async function editHost(input: {
    principal: Principal;
    projectId: string;
    hostId: string;
    name?: string;
    config?: GivenHostConfig;
  }): Promise<Host> {
    const { hosts } = deps;
    const project = await requireProject(hosts, input.principal, input.projectId);
    if (input.config) await requireHostServers(hosts, project.id, input.config);
    const host = await savingHost(hosts.update(project.id, input.hostId, { name: input.name, config: input.config }));
    if (!host) throw notFound('host', { hostId: input.hostId });
    return host;
  };
}

export type EditHost = ReturnType<typeof editHost>;
