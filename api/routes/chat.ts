import type { Config } from '../../runtime/config.js';
import type { Chatbox } from '../../domain/catalog/chat.js';
import type { GetChatbox } from '../../domain/useCases/catalog/getChatbox.js';
import type { ListChatboxes } from '../../domain/useCases/catalog/listChatboxes.js';
import type { ListChatSessions } from '../../domain/useCases/catalog/listChatSessions.js';
import { notFound } from '../errors.js';
import { publicOrigin } from '../publicUrl.js';
import { defineRoute } from '../route.js';
import {
  chatboxDetailSchema,
  chatboxParams,
  chatboxSummarySchema,
  chatSessionSchema,
  chatSessionsQuery,
  namesOne,
} from '../schemas/catalog.js';
import { collection, projectParams } from '../schemas/common.js';

export function chatRoutes(deps: {
  listChatSessions: ListChatSessions;
  listChatboxes: ListChatboxes;
  getChatbox: GetChatbox;
  /** PUBLIC_URL: the origin of chatbox links */
  config: Pick<Config, 'PUBLIC_URL'>;
}) {
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
        // A value that is no id names no project: the 404 of an unknown one (without asking the database).
        if (query.projectId !== undefined && !namesOne(query.projectId))
          throw notFound('project', { projectId: query.projectId });
        const { sessions, nextCursor } = await deps.listChatSessions({
          principal,
          projectId: query.projectId,
          // A status no session has selects none (the real product's document lists no 400 here); so does a
          // repeated parameter, which is no one value.
          status: Array.isArray(query.status) ? null : (query.status ?? 'active'),
          cursor: query.cursor,
          before: query.before,
          limit: query.limit,
        });
        return {
          items: sessions.map((s) => ({
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
          ...(nextCursor !== undefined ? { nextCursor } : {}),
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
        const chatboxes = await deps.listChatboxes({ principal, projectId: params.projectId });
        return { items: chatboxes.map((c) => summary(c, publicOrigin(deps.config, req))) };
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
        const chatbox = await deps.getChatbox({ principal, ...params });
        return {
          ...summary(chatbox, publicOrigin(deps.config, req)),
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
