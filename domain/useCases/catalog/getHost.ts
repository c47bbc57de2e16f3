import type { Db } from '../../../db/connection.js';
import { findHost, toHost } from '../../../db/hosts.js';
import { requireProject } from '../../access/project.js';
import type { Host } from '../../catalog/host.js';
import { notFound } from '../../failures.js';
import type { Principal } from '../../principal.js';

/** One host of a project with its full config, header values redacted. */
export function getHost(deps: { sql: Db }) {
  return async function getHost(input: { principal: Principal; projectId: string; hostId: string }): Promise<Host> {
    const project = await requireProject(deps.sql, input.principal, input.projectId);
    const host = await findHost(deps.sql, project.id, input.hostId);
    if (!host) throw notFound('host', { hostId: input.hostId });
    return toHost(host);
  };
}

export type GetHost = ReturnType<typeof getHost>;
