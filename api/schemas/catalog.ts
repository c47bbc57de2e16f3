import { z } from 'zod';
import { epochMsQuery, int4Query } from '../../db/columnLimits.js';
import { epochMs, id } from './common.js';

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

export const projectsQuery = z.strictObject({ organizationId: id.optional() });

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
  })
  .meta({ id: 'Server', description: 'A saved MCP server. STDIO command, args, env and raw headers are never exposed.' });

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
  projectId: id.optional(),
  status: z.enum(['active', 'archived']).default('active'),
  limit: int4Query({ min: 1, max: 200 }).default(50),
  before: epochMsQuery().optional().meta({ description: 'epoch-ms upper bound on lastActivityAt (years 1 to 9999)' }),
  cursor: z.string().max(2000).optional(),
});

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
    hostId: z.string(),
    hostName: z.string(),
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
