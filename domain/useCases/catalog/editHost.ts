import type { Sql } from '../../../db/connection.js';
import { toHost, updateHost } from '../../../db/hosts.js';
import type { SecretBox } from '../../ports/secretBox.js';
import { requireProject } from '../../access/project.js';
import type { GivenHostConfig, Host } from '../../catalog/host.js';
import { requireHostServers, savingHost } from '../../catalog/hostChecks.js';
import { notFound } from '../../failures.js';
import type { Principal } from '../../principal.js';

/**
 * Renames a host and/or replaces its config. A header value given as the redaction marker keeps the stored value;
 * headers the new config leaves out are dropped.
 */
export function editHost(deps: { sql: Sql; box: SecretBox }) {
  return async function editHost(input: {
    principal: Principal;
    projectId: string;
    hostId: string;
    name?: string;
    config?: GivenHostConfig;
  }): Promise<Host> {
    const { sql, box } = deps;
    const project = await requireProject(sql, input.principal, input.projectId);
    if (input.config) await requireHostServers(sql, project.id, input.config);
    const host = await savingHost(
      updateHost(sql, box, project.id, input.hostId, { name: input.name, config: input.config }),
    );
    if (!host) throw notFound('host', { hostId: input.hostId });
    return toHost(host);
  };
}

export type EditHost = ReturnType<typeof editHost>;
