import { listChatboxes, findChatbox, listChatSessions, type Chatbox } from '../../db/catalog.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { notFound, validationError } from '../errors.js';
import { publicOrigin } from '../publicUrl.js';
import { defineRoute } from '../route.js';
import {
  chatboxDetailSchema,
  chatboxParams,
  chatboxSummarySchema,
  chatSessionSchema,
  chatSessionStatuses,
  chatSessionsQuery,
  namesOne,
} from '../schemas/catalog.js';
import { collection, projectParams } from '../schemas/common.js';

export function chatRoutes({ sql, cursors, config }: RouteDeps) {
  const summary = (c: Chatbox, origin: string) => ({
    id: c.id,
    name: c.name,
    serverCount: c.servers.length,
    serverNames: c.servers.map((s) => s.name),
    projectId: c.projectId,
    description: c.description,
    hostStyle: c.hostStyle,
    hostId: c.hostId,
    hostName: c.hostName,
    mode: c.mode,
    link: { path: c.linkPath, url: `${origin}${c.linkPath}` },
    createdAt: c.createdAt.getTime(),
    updatedAt: c.updatedAt.getTime(),
  });

  return [
    defineRoute({
      method: 'get',
      path: '/chat-sessions',
      tag: 'Catalog',
      summary: 'Chat sessions, most recently active first',
      query: chatSessionsQuery,
      response: collection(chatSessionSchema),
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, query }) {
        if (query.projectId !== undefined) {
          // A value that is no id names no project: the 404 of an unknown one (without asking the database).
          if (!namesOne(query.projectId)) throw notFound('project', { projectId: query.projectId });
          await requireProject(sql, principal, query.projectId);
        }
        // A status no session has selects none (the real product's document lists no 400 here).
        const status = chatSessionStatuses.find((known) => known === (query.status ?? 'active'));
        if (status === undefined) return { items: [] };
        const scope = `chat-sessions:${query.projectId ?? '*'}:${status}`;
        // The real product's client pages with `before` = the previous nextCursor; `cursor` wins over it.
        const beforeCursor = query.before && 'cursor' in query.before ? query.before.cursor : undefined;
        const decode = (cursor: string) => cursors.decode<{ lastActivityAt: number; id: string }>(scope, cursor);
        let after: { lastActivityAt: number; id: string } | undefined;
        if (query.cursor !== undefined) after = decode(query.cursor);
        else if (beforeCursor !== undefined) {
          try {
            after = decode(beforeCursor);
          } catch {
            throw validationError(
              'before is neither an epoch-ms instant nor a nextCursor of this list (same projectId and status)',
              { reason: 'INVALID_CURSOR', parameter: 'before' },
            );
          }
        }
        const before = query.before && 'epochMs' in query.before ? query.before.epochMs : undefined;
        const rows = await listChatSessions(sql, principal, {
          projectId: query.projectId,
          status,
          before,
          after,
          limit: query.limit + 1,
        });
        const page = rows.slice(0, query.limit);
        const last = page.at(-1);
        return {
          items: page.map((s) => ({
            id: s.id,
            title: s.title,
            status: s.status,
            projectId: s.projectId,
            visibility: s.visibility,
            lastActivityAt: s.lastActivityAt.getTime(),
            createdAt: s.createdAt.getTime(),
            isPinned: s.isPinned,
            isUnread: s.isUnread,
          })),
          ...(rows.length > query.limit && last
            ? { nextCursor: cursors.encode(scope, { lastActivityAt: last.lastActivityAt.getTime(), id: last.id }) }
            : {}),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/chatboxes',
      tag: 'Catalog',
      summary: "The project's published chatboxes",
      params: projectParams,
      response: collection(chatboxSummarySchema),
      errors: ['NOT_FOUND'],
      async handler({ principal, params, req }) {
        const project = await requireProject(sql, principal, params.projectId);
        return { items: (await listChatboxes(sql, project.id)).map((c) => summary(c, publicOrigin(config, req))) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/chatboxes/:chatboxId',
      tag: 'Catalog',
      summary: "One chatbox's settings",
      params: chatboxParams,
      response: chatboxDetailSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params, req }) {
        const project = await requireProject(sql, principal, params.projectId);
        const chatbox = await findChatbox(sql, project.id, params.chatboxId);
        if (!chatbox) throw notFound('chatbox', { chatboxId: params.chatboxId });
        return {
          ...summary(chatbox, publicOrigin(config, req)),
          modelId: chatbox.modelId,
          systemPrompt: chatbox.systemPrompt,
          temperature: chatbox.temperature,
          requireToolApproval: chatbox.requireToolApproval,
          servers: chatbox.servers,
        };
      },
    }),
  ];
}
