import type { Db } from '../../../db/connection.js';
import { createHost as insertHost, toHost } from '../../../db/hosts.js';
import type { SecretBox } from '../../ports/secretBox.js';
import { requireProject } from '../../access/project.js';
import type { GivenHostConfig, Host } from '../../catalog/host.js';
import { requireHostServers, savingHost } from '../../catalog/hostChecks.js';
import type { Principal } from '../../principal.js';

/**
 * Creates a host in a project from a config (a template's, or the caller's as given): its servers must be the
 * project's, and its header values are sealed (the host returned shows them redacted).
 */
export function createHost(deps: { sql: Db; box: SecretBox }) {
  return async function createHost(input: {
    principal: Principal;
    projectId: string;
    name: string;
    /** the built-in template the config came from, if any */
    template: string | null;
    config: GivenHostConfig;
  }): Promise<Host> {
    const { sql, box } = deps;
    const project = await requireProject(sql, input.principal, input.projectId);
    await requireHostServers(sql, project.id, input.config);
    const host = await savingHost(
      insertHost(sql, box, { projectId: project.id, name: input.name, template: input.template, config: input.config }),
    );
    return toHost(host);
  };
}

export type CreateHost = ReturnType<typeof createHost>;
