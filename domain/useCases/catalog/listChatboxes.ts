import { requireProject } from '../../access/project.js';
import type { Chatbox } from '../../catalog/chat.js';
import type { CatalogStore } from '../../ports/catalogStore.js';
import type { Principal } from '../../principal.js';

/** A project's published chatboxes, oldest first. */
export function listChatboxes(deps: { catalog: CatalogStore }) {
  return async function listChatboxes(input: { principal: Principal; projectId: string }): Promise<Chatbox[]> {
    const project = await requireProject(deps.catalog, input.principal, input.projectId);
    return await deps.catalog.chatboxes(project.id);
  };
}

export type ListChatboxes = ReturnType<typeof listChatboxes>;
