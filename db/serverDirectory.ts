import type { SecretBox } from '../domain/ports/secretBox.js';
import type { ServerDirectory } from '../domain/ports/serverDirectory.js';
import type { Db } from './connection.js';
import { getSavedServersByIds, getServerRefsByIds, getServerRefsByNames } from './servers.js';

/** A project's saved servers (domain/ports/serverDirectory.ts) on a pool or a transaction; `box` opens their secrets. */
export function createServerDirectory(sql: Db, box: SecretBox): ServerDirectory {
  return {
    serverRefs: (projectId, serverIds) => getServerRefsByIds(sql, projectId, serverIds),
    serversNamed: (projectId, names) => getServerRefsByNames(sql, projectId, names),
    savedServers: (projectId, serverIds) => getSavedServersByIds(sql, box, projectId, serverIds),
  };
}
