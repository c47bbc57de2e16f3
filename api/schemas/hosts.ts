import { z } from 'zod';
import { hostTemplateIds } from '../hostTemplates.js';
import { clientRootsSchema } from './clientProfile.js';
import { collection, epochMs, id, projectParams } from './common.js';

/*
 * Hosts: a named profile of an MCP client application (model plus capability profile) that a project uses to test
 * how its MCP servers behave in that client. The config is the real product's host config v2, stored as given: the
 * product's editor and templates put many keys in it (host context, styles, MCP Apps sandbox, ...) that Runway has
 * no use for, and a client that reads a host back must get them all. So the config is an open object, at every
 * depth: Runway checks only the members it reads (below), each where it is, and keeps everything else untouched.
 * The request body around the config stays strict (unknownFields.ts). Bodies are bounded as a whole (body.ts).
 */

const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^\P{Cc}*$/u, 'must not contain control characters');

const maxKeys = (max: number) => (value: Record<string, unknown>) => Object.keys(value).length <= max;

/** A capability object as MCP declares them (`{}` or with options), open. */
const capabilityObject = z.looseObject({});

/** The `clientInfo` (MCP `Implementation`) a client sends in `initialize`: Runway's MCP client introduces itself so. */
export const hostClientInfoSchema = z
  .looseObject({
    name: text(200).meta({ description: 'clientInfo.name exactly as the client sends it, e.g. `claude-ai`' }),
    version: text(100),
    title: text(200).optional().meta({ description: 'human-readable name (MCP 2025-06-18 and later)' }),
  })
  .meta({ id: 'HostClientInfo' });

/**
 * MCP `ClientCapabilities` as the host declares them in `initialize`. Runway declares `roots`, `sampling` and
 * `elicitation` from them (docs/MCP-CLIENT.md), so those are checked; the rest (`tasks`, `extensions`, ...) is kept.
 */
export const hostClientCapabilitiesSchema = z
  .looseObject({
    roots: z.looseObject({ listChanged: z.boolean().optional() }).optional(),
    sampling: capabilityObject.optional().meta({ description: 'e.g. `{}` or `{ context: {}, tools: {} }`' }),
    elicitation: z
      .looseObject({ form: capabilityObject.optional(), url: capabilityObject.optional() })
      .optional()
      .meta({ description: '`{}` means form mode only; `{ form: {}, url: {} }` declares both modes (2025-11-25)' }),
  })
  .meta({ id: 'HostClientCapabilities' });

/** The MCP client profile: what the client sends in `initialize` besides its capabilities. */
export const hostMcpProfileSchema = z
  .looseObject({
    initialize: z
      .looseObject({
        clientInfo: hostClientInfoSchema.optional(),
        supportedProtocolVersions: z
          .array(text(64))
          .min(1)
          .max(20)
          .optional()
          .meta({ description: 'MCP protocol revisions the client offers, e.g. `["2025-11-25", "2025-06-18"]`' }),
      })
      .optional(),
  })
  .meta({
    id: 'HostMcpProfile',
    description: '`{ profileVersion: 1, initialize: { clientInfo, supportedProtocolVersions }, apps }`',
  });

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
  .looseObject({
    headers: z
      .record(
        headerName,
        z
          .string()
          .max(8192)
          .regex(/^\P{Cc}*$/u, 'header values must not contain control characters'),
      )
      .refine(maxKeys(50), 'at most 50 headers')
      .superRefine((headers, ctx) => {
        for (const name of Object.keys(headers)) {
          if (reservedHeaders.has(name.toLowerCase())) {
            ctx.addIssue({
              code: 'custom',
              path: [name],
              message: `header ${name} is managed by the transport and cannot be set`,
            });
          }
        }
      })
      .optional()
      .meta({
        description:
          'extra HTTP headers sent to HTTP MCP servers. Values are secrets: stored encrypted and returned as `"[redacted]"`; ' +
          'sending `"[redacted]"` back keeps the stored value, a header left out is removed.',
      }),
    requestTimeout: z
      .number()
      .int()
      .min(1_000)
      .max(MAX_REQUEST_TIMEOUT_MS)
      .optional()
      .meta({ description: 'milliseconds a request to a server may take' }),
  })
  .meta({ id: 'HostConnectionDefaults' });

export const hostConfigSchema = z
  .looseObject({
    modelId: z
      .string()
      .max(200)
      .optional()
      .meta({ description: '`<provider>/<name>` hosted catalog id, a provider-native id, or empty (none chosen)' }),
    serverIds: z
      .array(id)
      .max(100)
      .refine((ids) => new Set(ids).size === ids.length, 'serverIds must not repeat')
      .optional()
      .meta({ description: "ids of the project's servers the host connects to" }),
    connectionDefaults: hostConnectionDefaultsSchema.optional(),
    clientCapabilities: hostClientCapabilitiesSchema.optional(),
    mcpProfile: hostMcpProfileSchema.optional(),
    roots: clientRootsSchema.optional().meta({
      description:
        'Runway: what roots/list answers in eval runs of suites with this host (roots are then declared). For a stdio server ' +
        'each root must lie inside a root an operator allowed for it (else 400, details.reason ROOT_NOT_ALLOWED, where the ' +
        'host is used with it or names it in serverIds); remote servers get them as given',
    }),
  })
  .refine((config) => Object.keys(config).length > 0, 'config must have at least one property')
  .meta({
    id: 'HostConfig',
    description:
      'Host config v2, stored and returned as given (header values aside, returned as `"[redacted]"`). Runway checks only ' +
      'the members listed here; every other key (`hostStyle`, `systemPrompt`, `temperature`, `hostContext`, ...) is kept as is.',
  });

export type HostConfig = z.infer<typeof hostConfigSchema>;

export const hostTemplateIdSchema = z.enum(hostTemplateIds).meta({ id: 'HostTemplateId' });

const hostName = z.string().trim().min(1).max(200);

const isEmptyConfig = (value: unknown) =>
  value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);

/** `config: {}` and `config: null` count as no config at all. */
const optionalConfig = z.preprocess((value) => (isEmptyConfig(value) ? undefined : value), hostConfigSchema.optional());

export const hostParams = projectParams.extend({ hostId: id });

export const hostThemeSchema = z.enum(['light', 'dark']);

export const createHostBody = z
  .strictObject({
    name: hostName,
    template: hostTemplateIdSchema.optional().meta({ description: 'a built-in template id; give this or `config`' }),
    config: optionalConfig.meta({ description: 'a full host config v2, stored as given; give this or `template`' }),
    theme: hostThemeSchema
      .optional()
      .meta({ description: "with a template: the seeded config's `hostContext.theme` (default light)" }),
  })
  .superRefine((body, ctx) => {
    const hasTemplate = body.template !== undefined;
    const hasConfig = body.config !== undefined;
    if (body.theme !== undefined && !hasTemplate)
      ctx.addIssue({ code: 'custom', path: ['theme'], message: 'theme applies to a template only' });
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
    config: optionalConfig.meta({ description: 'a full host config v2; replaces the current one' }),
  })
  .refine((body) => body.name !== undefined || body.config !== undefined, {
    message: 'give at least one of name or config',
    path: [],
  })
  .meta({
    id: 'UpdateHostBody',
    description: 'at least one of `name` or `config`; `config` replaces the whole config',
  });

export type UpdateHostBody = z.infer<typeof updateHostBody>;

const hostConfigId = z.string().meta({
  description:
    'content address of the host config: `hcfg_` + base64url(SHA-256(canonical JSON of `config` as returned, header values ' +
    'redacted)), canonical JSON being RFC 8785 (sorted keys, no whitespace). Equal configs have equal ids.',
});

export const hostSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    hostConfigId,
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
    hostConfigId,
    config: z
      .record(z.string(), z.unknown())
      .meta({ description: 'the host config v2 as stored, header values redacted' }),
    createdAt: epochMs,
    updatedAt: epochMs,
  })
  .meta({ id: 'Host' });

export type HostDetail = z.infer<typeof hostDetailSchema>;

export const hostDeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'HostDeleted' });
