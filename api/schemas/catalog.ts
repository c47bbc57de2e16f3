import { z } from 'zod';
import { EPOCH_MS_MAX, EPOCH_MS_MIN } from '../../domain/columnLimits.js';
import { epochMs, id } from './common.js';
import { clampedLimit } from './pageLimit.js';

export const projectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    icon: z.string(),
    organizationId: z.string(),
    visibility: z.string(),
    role: z.string().meta({ description: "the key owner's role in the project" }),
    createdAt: epochMs,
    updatedAt: epochMs,
  })
  .meta({ id: 'Project' });

/**
 * A list filter's value, taken as given and never refused (issue 29 item 12: the real product's document lists no 400
 * for the lists that take one, GET /projects and GET /chat-sessions): the route reads a value that no resource has as
 * selecting none. A repeated parameter is no one value, so it selects none either.
 */
const filterValue = (description: string) =>
  // Empty reads as not given, as an empty `limit` does.
  z
    .preprocess((raw) => (raw === '' ? undefined : raw), z.union([z.string(), z.array(z.string())]).optional())
    .meta({ description });

/** A filter value that can name a resource: one value, shaped like an id (anything else names none). */
export const namesOne = (value: string | string[] | undefined): value is string =>
  typeof value === 'string' && id.safeParse(value).success;

export const projectsQuery = z.strictObject({
  organizationId: filterValue(
    "the key's organization lists its projects; any other value (another organization, no id at all) lists none",
  ),
});

export const serverSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    transportType: z.string(),
    useOAuth: z.boolean(),
    hasClientSecret: z.boolean(),
    projectId: z.string(),
    url: z.string(),
    oauthScopes: z.array(z.string()),
    createdAt: epochMs,
    updatedAt: epochMs,
    protocol: z
      .object({
        era: z.enum(['modern', 'legacy']).meta({
          description:
            '`modern`: MCP 2026-07-28 (server/discover, stateless); `legacy`: the initialize handshake (2025-11-25 and earlier)',
        }),
        version: z.string().meta({ description: 'the protocol revision negotiated' }),
        seenAt: epochMs,
      })
      .nullable()
      .meta({ description: 'the protocol the server last spoke to Runway (when a session opened); null until then' }),
  })
  .meta({
    id: 'Server',
    description: 'A saved MCP server. STDIO command, args, env and raw headers are never exposed.',
  });

export const chatSessionSchema = z
  .object({
    id: z.string(),
    title: z.string().nullable(),
    status: z.enum(['active', 'archived']),
    projectId: z.string(),
    visibility: z.enum(['private', 'project']),
    lastActivityAt: epochMs,
    createdAt: epochMs,
    isPinned: z.boolean(),
    isUnread: z.boolean(),
  })
  .meta({ id: 'ChatSession' });

export const chatSessionsQuery = z.strictObject({
  projectId: filterValue(
    "one project's sessions; a project the key cannot reach (or a value that is no id) is 404 NOT_FOUND",
  ),
  status: filterValue(
    '`active` (default) or `archived`; any other value (or the parameter repeated) matches no session: an empty page',
  ),
  limit: clampedLimit({ max: 200, fallback: 50 }),
  before: z
    .string()
    .max(2000)
    .optional()
    .transform((value) => (value === undefined ? undefined : pagePosition(value)))
    .meta({
      description:
        "the previous page's `nextCursor` (how the real product's client pages), or an epoch-ms upper bound on lastActivityAt (an instant past the year 9999 bounds nothing, one before the year 1 everything)",
    }),
  cursor: z.string().max(2000).optional().meta({ description: "the previous page's `nextCursor`; wins over `before`" }),
});

/**
 * `before` is either an instant (digits: epoch milliseconds) or a cursor (anything else, decoded by the route, so
 * a malformed one is the same 400 INVALID_CURSOR as in `cursor`). Our cursors are base64url with a dot, never
 * only digits, so the two cannot be confused.
 */
function pagePosition(value: string): { epochMs: number } | { cursor: string } {
  if (!/^-?\d+$/.test(value)) return { cursor: value };
  // An instant past what the column holds bounds nothing more than its last one (issue 29 item 12: no 400 here).
  return { epochMs: Math.min(EPOCH_MS_MAX, Math.max(EPOCH_MS_MIN, Number(value))) };
}

const chatboxLink = z.object({ path: z.string(), url: z.string() });

export const chatboxSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    serverCount: z.number(),
    serverNames: z.array(z.string()),
    projectId: z.string(),
    description: z.string(),
    hostStyle: z.string(),
    hostId: z.string().nullable().meta({ description: 'the host the chatbox publishes; null when it has none' }),
    hostName: z.string().nullable().meta({ description: "that host's name; null when the chatbox has no host" }),
    mode: z.enum(['project_members', 'invited_only', 'anyone_with_link']),
    link: chatboxLink,
    createdAt: epochMs,
    updatedAt: epochMs,
  })
  .meta({ id: 'ChatboxSummary' });

export const chatboxDetailSchema = chatboxSummarySchema
  .extend({
    modelId: z.string(),
    systemPrompt: z.string(),
    temperature: z.number(),
    requireToolApproval: z.boolean(),
    servers: z.array(z.object({ id: z.string(), name: z.string(), url: z.string().nullable(), useOAuth: z.boolean() })),
  })
  .meta({ id: 'Chatbox' });

export const chatboxParams = z.object({ projectId: id, chatboxId: id });
