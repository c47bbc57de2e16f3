import type { HostStore } from '../domain/ports/hostStore.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import type { Sql } from './connection.js';
import { createHost, deleteHost, findHost, listHosts, toHost, updateHost } from './hosts.js';
import { findProject } from './projects.js';
import { getRootFences } from './servers.js';

/**
 * The hosts' storage (domain/ports/hostStore.ts) on the pool (an edit locks its host in a transaction of its own):
 * the queries of this folder. `box` seals and opens the hosts' header values.
 */
export function createHostStore(sql: Sql, box: SecretBox): HostStore {
  return {
    visibleProject: (principal, projectId) => findProject(sql, principal, projectId),
    list: async (projectId) => (await listHosts(sql, projectId)).map(toHost),
    find: async (projectId, hostId) => {
      const row = await findHost(sql, projectId, hostId);
      return row && toHost(row);
    },
    create: async (host) => toHost(await createHost(sql, box, host)),
    update: async (projectId, hostId, changes) => {
      const row = await updateHost(sql, box, projectId, hostId, changes);
      return row && toHost(row);
    },
    delete: (projectId, hostId) => deleteHost(sql, projectId, hostId),
    rootFences: (projectId, serverIds) => getRootFences(sql, projectId, serverIds),
  };
}
