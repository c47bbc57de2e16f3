import type { Chatbox, ChatboxMode, ChatSession, ChatSessionStatus } from '../domain/catalog/chat.js';
import type { ChatSessionFilter } from '../domain/ports/catalogStore.js';
import type { Principal } from '../domain/principal.js';
import type { Db } from './connection.js';
import { newId } from '../domain/ids.js';
import { camelRow, camelRows, type Camel, type RowIsNoun, type Same } from './rows.js';

// Chat sessions and chatboxes: records the hosted app writes; this service reads them (the CLI can create them).
// Their rows map to the domain's nouns (domain/catalog/chat.ts) by camelRow, checked to be exactly them (RowIsNoun).

export interface ChatSessionRow {
  id: string;
  project_id: string;
  user_id: string;
  title: string | null;
  status: ChatSessionStatus;
  visibility: 'private' | 'project';
  is_pinned: boolean;
  is_unread: boolean;
  last_activity_at: Date;
  created_at: Date;
}

type _ChatSessionIsRow = RowIsNoun<Same<Camel<ChatSessionRow>, ChatSession>>;

/** Sessions in projects the key can see; a private session only for its own user. */
export async function listChatSessions(
  sql: Db,
  principal: Principal,
  filter: ChatSessionFilter,
): Promise<ChatSession[]> {
  const after = filter.after;
  return camelRows(
    await sql<ChatSessionRow[]>`
    SELECT s.* FROM chat_sessions s
    JOIN projects p ON p.id = s.project_id
    LEFT JOIN project_members pm ON pm.project_id = p.id AND pm.user_id = ${principal.userId}
    WHERE p.organization_id = ${principal.organizationId}
      AND (p.visibility = 'organization' OR ${principal.orgRole} IN ('owner', 'admin') OR pm.user_id IS NOT NULL)
      AND (s.visibility = 'project' OR s.user_id = ${principal.userId})
      AND s.status = ${filter.status}
      ${filter.projectId ? sql`AND s.project_id = ${filter.projectId}` : sql``}
      ${
        after
          ? sql`AND (s.last_activity_at, s.id) < (${new Date(after.lastActivityAt)}, ${after.id})`
          : filter.before !== undefined
            ? sql`AND s.last_activity_at < ${new Date(filter.before)}`
            : sql``
      }
    ORDER BY s.last_activity_at DESC, s.id DESC
    LIMIT ${filter.limit}`,
  );
}

export async function createChatSession(
  sql: Db,
  input: {
    projectId: string;
    userId: string;
    title?: string | null;
    status?: ChatSessionStatus;
    visibility?: 'private' | 'project';
    isPinned?: boolean;
    lastActivityAt?: Date;
  },
) {
  const [row] = await sql<{ id: string }[]>`
    INSERT INTO chat_sessions (id, project_id, user_id, title, status, visibility, is_pinned, last_activity_at)
    VALUES (${newId('chat')}, ${input.projectId}, ${input.userId}, ${input.title ?? null}, ${input.status ?? 'active'},
            ${input.visibility ?? 'private'}, ${input.isPinned ?? false}, ${input.lastActivityAt ?? new Date()})
    RETURNING id`;
  return row;
}

export interface ChatboxRow {
  id: string;
  project_id: string;
  name: string;
  description: string;
  host_id: string | null;
  host_style: string;
  mode: ChatboxMode;
  model_id: string;
  system_prompt: string;
  temperature: number;
  require_tool_approval: boolean;
  server_ids: string[];
  link_path: string;
  created_at: Date;
  updated_at: Date;
  host_name: string | null;
  servers: { id: string; name: string; url: string | null; useOAuth: boolean }[];
}

type _ChatboxIsRow = RowIsNoun<Same<Camel<ChatboxRow>, Chatbox>>;

const chatboxSelect = (sql: Db) => sql`
  SELECT c.*, h.name AS host_name,
    COALESCE((SELECT json_agg(json_build_object('id', s.id, 'name', s.name, 'url', s.url, 'useOAuth', s.use_oauth)
                              ORDER BY array_position(c.server_ids, s.id))
              FROM servers s WHERE s.id = ANY(c.server_ids) AND s.project_id = c.project_id), '[]') AS servers
  FROM chatboxes c LEFT JOIN hosts h ON h.id = c.host_id`;

export async function listChatboxes(sql: Db, projectId: string): Promise<Chatbox[]> {
  return camelRows(
    await sql<ChatboxRow[]>`${chatboxSelect(sql)} WHERE c.project_id = ${projectId} ORDER BY c.created_at, c.id`,
  );
}

export async function findChatbox(sql: Db, projectId: string, chatboxId: string): Promise<Chatbox | undefined> {
  const [row] = await sql<
    ChatboxRow[]
  >`${chatboxSelect(sql)} WHERE c.id = ${chatboxId} AND c.project_id = ${projectId}`;
  return camelRow(row);
}

export async function createChatbox(
  sql: Db,
  input: {
    projectId: string;
    name: string;
    description?: string;
    hostId?: string | null;
    hostStyle?: string;
    mode?: ChatboxRow['mode'];
    modelId: string;
    systemPrompt?: string;
    temperature?: number;
    requireToolApproval?: boolean;
    serverIds?: string[];
  },
) {
  const id = newId('cbx');
  const [row] = await sql<{ id: string }[]>`
    INSERT INTO chatboxes (id, project_id, name, description, host_id, host_style, mode, model_id, system_prompt,
                           temperature, require_tool_approval, server_ids, link_path)
    VALUES (${id}, ${input.projectId}, ${input.name}, ${input.description ?? ''}, ${input.hostId ?? null},
            ${input.hostStyle ?? 'mcpjam'}, ${input.mode ?? 'project_members'}, ${input.modelId},
            ${input.systemPrompt ?? ''}, ${input.temperature ?? 0.7}, ${input.requireToolApproval ?? false},
            ${input.serverIds ?? []}, ${`/chatbox/${id}`})
    RETURNING id`;
  return row;
}
