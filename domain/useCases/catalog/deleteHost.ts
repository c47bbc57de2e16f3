import type { Db } from '../../../db/connection.js';
import { deleteHost as removeHost } from '../../../db/hosts.js';
import { requireProject } from '../../access/project.js';
import { notFound } from '../../failures.js';
import type { Principal } from '../../principal.js';

/** Deletes a host of a project. */
export function deleteHost(deps: { sql: Db }) {
  return async function deleteHost(input: { principal: Principal; projectId: string; hostId: string }): Promise<void> {
    const project = await requireProject(deps.sql, input.principal, input.projectId);
    if (!(await removeHost(deps.sql, project.id, input.hostId))) throw notFound('host', { hostId: input.hostId });
  };
}

export type DeleteHost = ReturnType<typeof deleteHost>;
