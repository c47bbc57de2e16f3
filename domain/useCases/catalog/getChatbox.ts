import { requireProject } from '../../access/project.js';
import type { Chatbox } from '../../catalog/chat.js';
import { notFound } from '../../failures.js';
import type { CatalogStore } from '../../ports/catalogStore.js';
import type { Principal } from '../../principal.js';

/** One chatbox of a project, with its settings and servers. */
export function getChatbox(deps: { catalog: CatalogStore }) {
  return async function getChatbox(input: {
    principal: Principal;
    projectId: string;
    chatboxId: string;
  }): Promise<Chatbox> {
    const project = await requireProject(deps.catalog, input.principal, input.projectId);
    const chatbox = await deps.catalog.chatbox(project.id, input.chatboxId);
    if (!chatbox) throw notFound('chatbox', { chatboxId: input.chatboxId });
    return chatbox;
  };
}

export type GetChatbox = ReturnType<typeof getChatbox>;
