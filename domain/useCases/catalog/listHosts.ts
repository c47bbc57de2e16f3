import type { Db } from '../../../db/connection.js';
import { listHosts as readHosts, toHost } from '../../../db/hosts.js';
import { requireProject } from '../../access/project.js';
import type { Host } from '../../catalog/host.js';
import type { Principal } from '../../principal.js';

/** A project's hosts, oldest first, header values redacted. */
export function listHosts(deps: { sql: Db }) {
  return async function listHosts(input: { principal: Principal; projectId: string }): Promise<Host[]> {
    const project = await requireProject(deps.sql, input.principal, input.projectId);
    return (await readHosts(deps.sql, project.id)).map(toHost);
  };
}

export type ListHosts = ReturnType<typeof listHosts>;
