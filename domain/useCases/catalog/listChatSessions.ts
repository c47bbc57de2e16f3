import { requireProject } from '../../access/project.js';
import { chatSessionStatuses, type ChatSession } from '../../catalog/chat.js';
import { refused } from '../../failures.js';
import type { CatalogStore } from '../../ports/catalogStore.js';
import type { Principal } from '../../principal.js';

/**
 * Opaque, tamper-evident page cursors bound to the list they came from (the API's CursorCodec): anything but a
 * cursor encoded for `scope` is refused by decode.
 */
export interface PageCursors {
  encode(scope: string, position: unknown): string;
  decode<T>(scope: string, cursor: string): T;
}

interface Position {
  lastActivityAt: number;
  id: string;
}

/**
 * One page of the chat sessions the key can see (a private session only its own user sees), most recently active
 * first, and the cursor of the next page when there is one.
 */
export function listChatSessions(deps: { catalog: CatalogStore; cursors: PageCursors }) {
  return async function listChatSessions(input: {
    principal: Principal;
    /** one project's sessions: a project the key cannot see is 404 */
    projectId?: string;
    /** what the caller asked for (`active` when it asked nothing); null, or a status no session has, selects none */
    status: string | null;
    /** a nextCursor of this list (same project and status) */
    cursor?: string;
    /**
     * how the real product's client pages: an epoch-ms upper bound on lastActivityAt, or a nextCursor (`cursor`
     * wins over it)
     */
    before?: { epochMs: number } | { cursor: string };
    limit: number;
  }): Promise<{ sessions: ChatSession[]; nextCursor?: string }> {
    const { catalog, cursors } = deps;
    if (input.projectId !== undefined) await requireProject(catalog, input.principal, input.projectId);
    const status = chatSessionStatuses.find((known) => known === input.status);
    if (status === undefined) return { sessions: [] };
    const scope = `chat-sessions:${input.projectId ?? '*'}:${status}`;
    const decode = (cursor: string) => cursors.decode<Position>(scope, cursor);
    const beforeCursor = input.before && 'cursor' in input.before ? input.before.cursor : undefined;
    let after: Position | undefined;
    if (input.cursor !== undefined) after = decode(input.cursor);
    else if (beforeCursor !== undefined) {
      try {
        after = decode(beforeCursor);
      } catch {
        throw refused(
          'before is neither an epoch-ms instant nor a nextCursor of this list (same projectId and status)',
          { reason: 'INVALID_CURSOR', parameter: 'before' },
        );
      }
    }
    const rows = await catalog.chatSessions(input.principal, {
      projectId: input.projectId,
      status,
      before: input.before && 'epochMs' in input.before ? input.before.epochMs : undefined,
      after,
      limit: input.limit + 1,
    });
    const sessions = rows.slice(0, input.limit);
    const last = sessions.at(-1);
    return {
      sessions,
      ...(rows.length > input.limit && last
        ? { nextCursor: cursors.encode(scope, { lastActivityAt: last.lastActivityAt.getTime(), id: last.id }) }
        : {}),
    };
  };
}

export type ListChatSessions = ReturnType<typeof listChatSessions>;
