import type { CatalogStore } from '../domain/ports/catalogStore.js';
import { getAccount } from './accounts.js';
import { findChatbox, listChatboxes, listChatSessions } from './catalog.js';
import type { Db } from './connection.js';
import { findProject, listProjects } from './projects.js';

/** The catalog's read storage (domain/ports/catalogStore.ts) on a pool or a transaction of it: the queries of this folder. */
export function createCatalogStore(sql: Db): CatalogStore {
  return {
    visibleProject: (principal, projectId) => findProject(sql, principal, projectId),
    projects: (principal) => listProjects(sql, principal),
    account: (principal) => getAccount(sql, principal),
    chatSessions: (principal, filter) => listChatSessions(sql, principal, filter),
    chatboxes: (projectId) => listChatboxes(sql, projectId),
    chatbox: (projectId, chatboxId) => findChatbox(sql, projectId, chatboxId),
  };
}
