import type { ServerStore } from '../domain/ports/serverStore.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import type { Db } from './connection.js';
import { findProject } from './projects.js';
import {
  findServerInVisibleProject,
  getServerRefsByNames,
  listStoredServers,
  protocolOf,
  recordServerProtocol,
  toSavedServer,
} from './servers.js';

/**
 * The saved servers' storage (domain/ports/serverStore.ts) on a pool or a transaction of it: the queries of this
 * folder. `box` opens a found server's secrets, once its checks passed (`open()`).
 */
export function createServerStore(sql: Db, box: SecretBox): ServerStore {
  return {
    visibleProject: (principal, projectId) => findProject(sql, principal, projectId),
    list: async (projectId) =>
      (await listStoredServers(sql, projectId)).map((s) => ({
        id: s.id,
        projectId: s.projectId,
        name: s.name,
        enabled: s.enabled,
        transportType: s.transportType,
        url: s.url,
        useOAuth: s.useOauth,
        hasClientSecret: s.clientSecretEnc !== null,
        oauthScopes: s.oauthScopes,
        protocol: protocolOf(s),
        createdAt: s.createdAt,
        updatedAt: s.updatedAt,
      })),
    findInVisibleProject: async (principal, projectId, serverId) => {
      const {
        projectVisible,
        projectId: visibleId,
        server,
      } = await findServerInVisibleProject(sql, principal, projectId, serverId);
      return {
        projectVisible,
        projectId: visibleId,
        server: server && {
          id: server.id,
          name: server.name,
          enabled: server.enabled,
          open: () => toSavedServer(box, server),
        },
      };
    },
    serversNamed: (projectId, names) => getServerRefsByNames(sql, projectId, names),
    recordProtocol: (serverId, protocol) => recordServerProtocol(sql, serverId, protocol),
  };
}
