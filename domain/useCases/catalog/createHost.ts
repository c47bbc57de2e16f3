import type { HostStore } from '../../ports/hostStore.js';
import { requireProject } from '../../access/project.js';
import type { GivenHostConfig, Host } from '../../catalog/host.js';
import { requireHostServers, savingHost } from '../../catalog/hostChecks.js';
import type { Principal } from '../../principal.js';

/**
 * Creates a host in a project from a config (a template's, or the caller's as given): its servers must be the
 * project's, and its header values are sealed (the host returned shows them redacted).
 */
export function createHost(deps: { hosts: HostStore }) {
  return async function createHost(input: {
    principal: Principal;
    projectId: string;
    name: string;
    /** the built-in template the config came from, if any */
    template: string | null;
    config: GivenHostConfig;
  }): Promise<Host> {
    const { hosts } = deps;
    const project = await requireProject(hosts, input.principal, input.projectId);
    await requireHostServers(hosts, project.id, input.config);
    return await savingHost(
      hosts.create({ projectId: project.id, name: input.name, template: input.template, config: input.config }),
    );
  };
}

export type CreateHost = ReturnType<typeof createHost>;
