import { z } from 'zod';
import { hostTemplateIds } from '../hostTemplates.js';
import { clientRootsSchema } from './clientProfile.js';
import { collection, epochMs, id, projectParams } from './common.js';

/*
 * Hosts: a named profile of an MCP client application (model plus capability profile) that a project uses to test
 * how its MCP servers behave in that client. The config is user input, so every string, array, record and number
 * is bounded. Every object is strict: an unknown key is a 400 with a hint (unknownFields.ts), never dropped, so a
 * misspelt capability or header setting cannot leave a host declaring less than its writer meant.
 */

const JSON_OBJECT_LIMIT = 8 * 1024;

const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^\P{Cc}*$/u, 'must not contain control characters');

/** A free-form capability object (e.g. `sampling`, `elicitation.form`), bounded in serialized size. */
const capabilityObject = z
  .record(z.string().min(1).max(200), z.unknown())
  .refine((value) => JSON.stringify(value).length <= JSON_OBJECT_LIMIT, `must serialize to at most ${JSON_OBJECT_LIMIT} characters`);

const maxKeys = (max: number) => (value: Record<string, unknown>) => Object.keys(value).length <= max;

/** `YYYY-MM-DD`, the form of every MCP protocol revision. */
export const protocolVersionSchema = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be an MCP protocol revision such as 2025-06-18')
  .meta({ description: 'MCP protocol revision, YYYY-MM-DD', examples: ['2025-11-25'] });

/** The `clientInfo` (MCP `Implementation`) the host sends in `initialize`. */
export const hostClientInfoSchema = z
  .strictObject({
    name: text(200).meta({ description: 'clientInfo.name exactly as the client sends it, e.g. `claude-ai`' }),
    version: text(100),
    title: text(200).optional().meta({ description: 'human-readable name (MCP 2025-06-18 and later)' }),
    websiteUrl: z.url({ protocol: /^https?$/ }).max(2000).optional(),
  })
  .meta({ id: 'HostClientInfo' });

const extensionId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/, 'must be an extension id such as io.modelcontextprotocol/ui');

/** MCP `ClientCapabilities` as the host declares them in `initialize`. */
export const hostClientCapabilitiesSchema = z
  .strictObject({
    roots: z.strictObject({ listChanged: z.boolean().optional() }).optional(),
    sampling: capabilityObject.optional().meta({ description: 'e.g. `{}` or `{ context: {}, tools: {} }`' }),
    elicitation: z
      .strictObject({ form: capabilityObject.optional(), url: capabilityObject.optional() })
      .optional()
      .meta({ description: '`{}` means form mode only; `{ form: {}, url: {} }` declares both modes (2025-11-25)' }),
    tasks: capabilityObject.optional().meta({ description: 'task-augmented requests the client supports (2025-11-25)' }),
    experimental: z
      .record(z.string().min(1).max(200), capabilityObject)
      .refine(maxKeys(32), 'at most 32 experimental capabilities')
      .optional(),
    extensions: z
      .record(extensionId, capabilityObject)
      .refine(maxKeys(32), 'at most 32 extensions')
      .optional()
      .meta({ description: 'e.g. `{ "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } }`' }),
  })
  .meta({ id: 'HostClientCapabilities' });

const headerName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a valid HTTP header name');

/** Headers the transport manages itself; a config that sets them would break the connection. */
const reservedHeaders = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'upgrade',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

export const MAX_REQUEST_TIMEOUT_MS = 600_000;

export const hostConnectionDefaultsSchema = z
  .strictObject({
    headers: z
      .record(headerName, z.string().max(8192).regex(/^\P{Cc}*$/u, 'header values must not contain control characters'))
      .refine(maxKeys(50), 'at most 50 headers')
      .superRefine((headers, ctx) => {
        for (const name of Object.keys(headers)) {
          if (reservedHeaders.has(name.toLowerCase())) {
            ctx.addIssue({ code: 'custom', path: [name], message: `header ${name} is managed by the transport and cannot be set` });
          }
        }
      })
      .meta({
        description:
          'extra HTTP headers sent to HTTP MCP servers. Values are secrets: stored encrypted and returned as `"[redacted]"`; ' +
          'sending `"[redacted]"` back keeps the stored value, a header left out is removed.',
      }),
    requestTimeoutMs: z.number().int().min(1_000).max(MAX_REQUEST_TIMEOUT_MS),
  })
  .meta({ id: 'HostConnectionDefaults' });

export const hostTransportSchema = z.enum(['stdio', 'streamable-http', 'sse']);

export const hostConfigSchema = z
  .strictObject({
    hostStyle: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a short slug such as claude or chatgpt')
      .meta({ description: 'which client the host behaves like, e.g. `claude`, `chatgpt`' }),
    modelId: z
      .string()
      .min(1)
      .max(200)
      .regex(/^\S+$/, 'must not contain whitespace')
      .meta({ description: '`<provider>/<name>` hosted catalog id, or a provider-native id' }),
    systemPrompt: z.string().max(32_000),
    temperature: z.number().min(0).max(2),
    requireToolApproval: z.boolean().meta({ description: 'the client asks the user before it runs a tool' }),
    serverIds: z
      .array(id)
      .max(100)
      .refine((ids) => new Set(ids).size === ids.length, 'serverIds must not repeat')
      .meta({ description: "ids of the project's servers the host connects to" }),
    clientInfo: hostClientInfoSchema,
    protocolVersions: z
      .array(protocolVersionSchema)
      .min(1)
      .max(10)
      .refine((versions) => versions.every((v, i) => i === 0 || versions[i - 1] > v), 'protocolVersions must be newest first, without repeats')
      .meta({ description: 'MCP protocol revisions the client offers, newest first; the first is sent in `initialize`' }),
    clientCapabilities: hostClientCapabilitiesSchema,
    connectionDefaults: hostConnectionDefaultsSchema,
    roots: clientRootsSchema
      .optional()
      .meta({ description: 'what roots/list answers in eval runs of suites with this host (roots are then declared)' }),
    // Descriptive extras, all optional.
    transports: z
      .array(hostTransportSchema)
      .min(1)
      .max(3)
      .refine((t) => new Set(t).size === t.length, 'transports must not repeat')
      .optional()
      .meta({ description: 'MCP transports the client can use' }),
    ui: z
      .strictObject({
        mcpApps: z.boolean().optional().meta({ description: 'renders MCP Apps (`ui://` resources, text/html;profile=mcp-app)' }),
        openAiAppsSdk: z.boolean().optional().meta({ description: 'renders OpenAI Apps SDK widgets (`openai/outputTemplate`, window.openai)' }),
        displayModes: z
          .array(z.enum(['inline', 'fullscreen', 'pip']))
          .max(3)
          .refine((m) => new Set(m).size === m.length, 'displayModes must not repeat')
          .optional(),
      })
      .optional(),
    limits: z
      .strictObject({
        maxTools: z.number().int().min(1).max(10_000).optional().meta({ description: 'tools the client passes to the model at most' }),
      })
      .optional(),
  })
  .meta({ id: 'HostConfig' });

export type HostConfig = z.infer<typeof hostConfigSchema>;

export const hostTemplateIdSchema = z.enum(hostTemplateIds).meta({ id: 'HostTemplateId' });

const hostName = z.string().trim().min(1).max(200);

const isEmptyConfig = (value: unknown) =>
  value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);

/** `config: {}` and `config: null` count as no config at all. */
const optionalConfig = z.preprocess((value) => (isEmptyConfig(value) ? undefined : value), hostConfigSchema.optional());

export const hostParams = projectParams.extend({ hostId: id });

export const createHostBody = z
  .strictObject({
    name: hostName,
    template: hostTemplateIdSchema.optional().meta({ description: 'a built-in template id; give this or `config`' }),
    config: optionalConfig.meta({ description: 'a full host config; give this or `template`' }),
    theme: z
      .enum(['light', 'dark'])
      .optional()
      .meta({ description: 'with a template, as the real product takes it; Runway renders no widgets, so it changes nothing' }),
  })
  .superRefine((body, ctx) => {
    const hasTemplate = body.template !== undefined;
    const hasConfig = body.config !== undefined;
    if (body.theme !== undefined && !hasTemplate) ctx.addIssue({ code: 'custom', path: ['theme'], message: 'theme applies to a template only' });
    if (hasTemplate && hasConfig) {
      ctx.addIssue({ code: 'custom', path: ['template'], message: 'give either template or config, not both' });
    } else if (!hasTemplate && !hasConfig) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `give exactly one of template (one of ${hostTemplateIds.join(', ')}) or a non-empty config`,
      });
    }
  })
  .meta({ id: 'CreateHostBody', description: 'exactly one of `template` or a non-empty `config`' });

export type CreateHostBody = z.infer<typeof createHostBody>;

/** PATCH: `config` replaces the whole config, so it is a full config, never a partial one. */
export const updateHostBody = z
  .strictObject({
    name: hostName.optional(),
    config: optionalConfig.meta({ description: 'a full host config; replaces the current one' }),
  })
  .refine((body) => body.name !== undefined || body.config !== undefined, { message: 'give at least one of name or config', path: [] })
  .meta({ id: 'UpdateHostBody', description: 'at least one of `name` or `config`; `config` replaces the whole config' });

export type UpdateHostBody = z.infer<typeof updateHostBody>;

export const hostSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    modelId: z.string(),
    serverCount: z.number().int(),
    createdAt: epochMs,
    updatedAt: epochMs,
  })
  .meta({ id: 'HostSummary' });

export type HostSummary = z.infer<typeof hostSummarySchema>;

export const hostListSchema = collection(hostSummarySchema, 'HostList');

export const hostDetailSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    config: hostConfigSchema,
    createdAt: epochMs,
    updatedAt: epochMs,
  })
  .meta({ id: 'Host' });

export type HostDetail = z.infer<typeof hostDetailSchema>;

export const hostDeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'HostDeleted' });
