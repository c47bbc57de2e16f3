import type { Db } from '../../../db/connection.js';
import { listChatboxes as readChatboxes } from '../../../db/catalog.js';
import { requireProject } from '../../access/project.js';
import type { Chatbox } from '../../catalog/chat.js';
import type { Principal } from '../../principal.js';

/** A project's published chatboxes, oldest first. */
export function listChatboxes(deps: { sql: Db }) {
  return async function listChatboxes(input: { principal: Principal; projectId: string }): Promise<Chatbox[]> {
    const project = await requireProject(deps.sql, input.principal, input.projectId);
    return await readChatboxes(deps.sql, project.id);
  };
}

export type ListChatboxes = ReturnType<typeof listChatboxes>;
