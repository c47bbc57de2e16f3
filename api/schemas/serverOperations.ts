import { z } from 'zod';
import { limits } from '../../domain/limits.js';
import { foreignNames } from '../unknownFields.js';
import { elicitationAnswerSchema } from './clientProfile.js';
import { collection, epochMs, serverPathParams } from './common.js';
import { lintReportSchema } from './toolLint.js';

/*
 * Server operations (api.md "Server operations", contract-notes "Server operations"). Request bodies are strict
 * (an unknown field is a 400, unknownFields.ts). Results that the contract says are MCP results "unchanged" are
 * described loosely: their extra fields pass through.
 */

export const serverParams = serverPathParams;

export const listBody = z.strictObject({
  cursor: z.string().max(4000).optional().meta({ description: 'nextCursor of the previous page, unchanged' }),
});

const jsonObject = z.record(z.string(), z.unknown());

export const toolCallBody = foreignNames(
  z.strictObject({
    toolName: z.string().min(1).max(500).meta({ description: 'the tool name exactly as listed (MCP: `name`)' }),
    parameters: jsonObject
      .default({})
      .meta({ description: "arguments matching the tool's inputSchema (MCP: `arguments`)" }),
    elicitation: elicitationAnswerSchema.optional().meta({
      description:
        "how to answer the server's elicitation requests during this call (declares elicitation for it); default: the server's client profile",
    }),
    taskOptions: z
      .looseObject({
        ttl: z
          .number()
          .int()
          .nonnegative()
          .optional()
          .meta({ description: 'how long the server keeps the task, in ms (MCP `task.ttl`)' }),
      })
      .optional()
      .meta({
        description:
          'asks for an MCP task-augmented call (the server answers with a task to poll). Not supported by Runway: a call with it is 422 FEATURE_NOT_SUPPORTED; call without it to get the result directly',
      }),
  }),
  {
    arguments: { use: 'parameters', why: "Runway's name for the MCP `arguments`" },
    name: { use: 'toolName', why: "Runway's name for the MCP `name`" },
  },
);

export const promptGetBody = foreignNames(
  z.strictObject({
    promptName: z.string().min(1).max(500).meta({ description: 'the prompt name exactly as listed (MCP: `name`)' }),
    arguments: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .meta({ description: 'values are sent to the server as strings' }),
  }),
  { name: { use: 'promptName', why: "Runway's name for the MCP `name`" } },
);

export const resourceReadBody = z.strictObject({
  uri: z.string().min(1).max(4000).meta({ description: 'the uri exactly as returned by the resources list' }),
});

const tokenText = z.string().min(1).max(16_384);

export const importTokensBody = z.strictObject({
  serverUrl: z
    .url()
    .max(2000)
    .meta({ description: "the MCP server URL the tokens were issued for; must match the saved server's" }),
  tokens: z.strictObject({
    access_token: tokenText,
    refresh_token: tokenText.optional(),
    expires_in: z
      .number()
      .nonnegative()
      .max(10 * 365 * 24 * 3600)
      .optional()
      .meta({ description: 'seconds from now' }),
    token_type: z.string().max(100).optional(),
    scope: z.string().max(4000).optional(),
    id_token: tokenText
      .optional()
      .meta({ description: 'accepted and not stored: Runway sends access tokens only and reads no OpenID identity' }),
  }),
  clientInformation: z
    .strictObject({ clientId: z.string().min(1).max(2000), clientSecret: z.string().max(4000).optional() })
    .optional()
    .meta({ description: 'the OAuth client the tokens were issued to; without it tokens cannot be refreshed' }),
  authorizationServerUrl: z.url().max(2000).optional().meta({
    description:
      'the authorization server that issued the tokens; must be one the saved server advertises (or the one an operator set), else 400 AUTHORIZATION_SERVER_MISMATCH',
  }),
  oauthResourceUrl: z.url().max(2000).optional().meta({
    description:
      "RFC 8707 resource indicator sent when refreshing; must be the saved server's URL or the resource its metadata names, else 400 RESOURCE_MISMATCH",
  }),
});

/*
 * Listed primitives are passed on as the server sent them (domain/mcp/primitives.ts): beyond the fields below,
 * any key the server sent (`_meta`, `icons`, a tool's `execution`, ...) is there too, so these are open objects.
 */
const SENT_AS_IS = 'as the server sent it: keys beyond these (e.g. _meta, icons) are passed on unchanged';

export const toolSchema = z
  .looseObject({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().meta({ description: "'' when the server gives none" }),
    inputSchema: jsonObject,
    outputSchema: jsonObject.optional().meta({ description: 'present when the tool declares one' }),
    annotations: jsonObject.optional().meta({ description: 'every hint the server sent, known to MCP or not' }),
  })
  .meta({ id: 'Tool', description: `A tool, ${SENT_AS_IS}, e.g. execution (task support)` });

export const promptSchema = z
  .looseObject({
    name: z.string(),
    title: z.string().optional(),
    description: z.string(),
    arguments: z.array(z.looseObject({ name: z.string(), description: z.string(), required: z.boolean() })),
  })
  .meta({ id: 'Prompt', description: `A prompt, ${SENT_AS_IS}` });

export const resourceEntrySchema = z
  .looseObject({
    uri: z.string(),
    name: z.string(),
    title: z.string().optional(),
    description: z.string(),
    mimeType: z.string(),
  })
  .meta({ id: 'ResourceEntry', description: `A resource, ${SENT_AS_IS}` });

const resourceTemplateSchema = z
  .looseObject({
    uriTemplate: z.string(),
    name: z.string(),
    title: z.string().optional(),
    description: z.string(),
    mimeType: z.string(),
  })
  .meta({ id: 'ResourceTemplate', description: `A resource template, ${SENT_AS_IS}` });

/**
 * Present only when the reply holds less than the server sent: what one server operation answers with is bounded
 * (limits.serverReplyBytes), and past it paging stops and a result is cut.
 */
export const truncationSchema = z
  .object({
    reason: z.literal('REPLY_TOO_LARGE'),
    limitBytes: z
      .number()
      .int()
      .meta({ description: `the bytes (of JSON) one operation answers with at most: ${limits.serverReplyBytes}` }),
    originalBytes: z
      .number()
      .optional()
      .meta({ description: "a result's size as the server sent it; the reply holds its beginning" }),
    omittedItems: z.number().int().optional().meta({
      description: "a page's items left out (the last ones); nextCursor, when given, still goes on after the page",
    }),
    lists: z.array(z.string()).optional().meta({
      description: 'the lists that stop where the budget ran out (their later items and pages were not read)',
    }),
  })
  .meta({
    id: 'Truncation',
    description:
      'the reply holds less than the server sent, because what one server operation answers with is bounded; absent when it holds everything',
  });

const truncatedField = { truncated: truncationSchema.optional() };

const page = <T extends z.ZodType>(item: T, name: string) =>
  z.object({ ...collection(item).shape, ...truncatedField }).meta({ id: name });

export const toolListSchema = page(toolSchema, 'ToolList');
export const promptListSchema = page(promptSchema, 'PromptList');
export const resourceListSchema = page(resourceEntrySchema, 'ResourceList');

const initInfoSchema = z
  .object({
    protocolVersion: z.string().nullable().meta({ description: 'the negotiated MCP protocol revision' }),
    era: z.enum(['modern', 'legacy']).nullable().meta({
      description:
        'the protocol era: `modern` (2026-07-28: server/discover, stateless, no initialize) or `legacy` (the initialize handshake, 2025-11-25 and earlier)',
    }),
    serverInfo: z.looseObject({ name: z.string(), version: z.string() }).nullable(),
    capabilities: jsonObject,
    instructions: z.string().nullable(),
    transport: z.enum(['stdio', 'streamable-http', 'sse']).meta({ description: 'the transport actually used' }),
  })
  .meta({ id: 'InitInfo' });

export const validateResultSchema = z
  .object({ success: z.literal(true), status: z.literal('connected'), initInfo: initInfoSchema.nullable() })
  .meta({ id: 'ValidateResult' });

const failureSchema = z.object({ code: z.string(), message: z.string(), details: jsonObject.optional() });

const doctorCheckSchema = z.object({
  status: z.enum(['ok', 'error', 'skipped']),
  detail: z.string(),
  durationMs: z.number(),
});

export const doctorReportSchema = z
  .object({
    status: z.enum(['ready', 'oauth_required', 'partial', 'error']),
    generatedAt: z.string().meta({ description: 'ISO 8601' }),
    target: z.object({
      projectId: z.string(),
      serverId: z.string(),
      name: z.string(),
      transportType: z.string(),
      url: z.string().nullable(),
    }),
    timeouts: z
      .object({
        connectMs: z.number(),
        initializeMs: z.number(),
        requestMs: z.number(),
        maxTotalMs: z.number(),
        resumption: z.object({ maxAttempts: z.number(), maxDelayMs: z.number() }).meta({
          description:
            'how often in a row, and how long in total, a request waits for a closed response stream to be resumed',
        }),
      })
      .meta({
        description:
          "the timeouts that applied: the service's defaults, overridden by the server's own (admin CLI `server update`)",
      }),
    probe: z
      .object({
        status: z.enum(['ok', 'error']),
        detail: z.string(),
        durationMs: z.number(),
        transport: z.enum(['stdio', 'streamable-http', 'sse']).nullable().meta({
          description:
            'the MCP transport found: stdio once its command is found, else the one that answered at the URL',
        }),
        httpStatus: z
          .number()
          .nullable()
          .meta({ description: 'what the URL answered (without a token); null for stdio, or when nothing answered' }),
      })
      .nullable()
      .meta({
        description:
          'the transport probe, before any MCP session: the command (stdio) or the URL (HTTP) and which transport answers there',
      }),
    connection: z
      .object({
        status: z.enum(['connected', 'error', 'skipped']),
        detail: z.string(),
        durationMs: z.number().meta({ description: 'connect and initialize' }),
      })
      .meta({
        description:
          'whether an MCP session came up (connect and initialize succeeded): `connected` means the server is reachable; `skipped` when it was not attempted (an OAuth grant is needed first)',
      }),
    capabilities: jsonObject
      .nullable()
      .meta({ description: 'the capabilities the server declared when initializing; null without a session' }),
    checks: z.object({
      probe: doctorCheckSchema,
      connection: doctorCheckSchema,
      initialization: doctorCheckSchema,
      capabilities: doctorCheckSchema,
      tools: doctorCheckSchema,
      resources: doctorCheckSchema,
      resourceTemplates: doctorCheckSchema,
      prompts: doctorCheckSchema,
    }),
    initInfo: initInfoSchema.nullable(),
    tools: z.array(toolSchema),
    resources: z.array(resourceEntrySchema),
    resourceTemplates: z.array(resourceTemplateSchema),
    prompts: z.array(promptSchema),
    oauth: z
      .object({
        required: z.boolean(),
        wwwAuthenticate: z.string().optional(),
        resourceMetadataUrl: z
          .string()
          .optional()
          .meta({ description: 'RFC 9728 protected-resource metadata that answered' }),
        authorizationServerMetadataUrl: z
          .string()
          .optional()
          .meta({ description: 'RFC 8414 / OIDC metadata that answered' }),
        registrationStrategies: z.array(z.enum(['dcr', 'cimd', 'preregistered'])),
      })
      .nullable(),
    error: failureSchema.nullable(),
    lint: lintReportSchema.nullable().meta({
      description:
        'Runway extension: tool definition lint of the listed tools (docs/SERVER-CHECKS.md "Tool lint"); null when the tools were not listed',
    }),
    ...truncatedField,
  })
  .meta({ id: 'DoctorReport' });

export const oauthRequirementSchema = z
  .object({
    useOAuth: z.boolean().meta({
      description:
        'the server is saved as using OAuth, advertises it, or has an imported grant: calls send a grant, or answer OAUTH_REQUIRED',
    }),
    serverUrl: z.string().nullable(),
    advertisesOAuth: z.boolean().nullable().meta({
      description:
        'whether the server publishes OAuth metadata (RFC 9728 or RFC 8414 at the well-known URLs, or a 401 challenge pointing at it; no MCP request is made); null for stdio and disabled servers, or when it could not be learned',
    }),
    tokenSource: z.enum(['caller', 'client_credentials']).meta({
      description:
        "who obtains the server's tokens: a caller, who completes the browser flow and imports them (/oauth/import-tokens), or Runway itself with the OAuth client_credentials grant (a machine-to-machine server, set up by an operator)",
    }),
    tokens: z
      .object({
        imported: z.boolean().meta({ description: 'false: Runway obtained these tokens itself (client_credentials)' }),
        expiresAt: epochMs.nullable(),
        refreshable: z.boolean().meta({
          description: 'a refresh token and the client it was issued to are known, or Runway obtains new tokens itself',
        }),
        lastRefreshAt: epochMs.nullable(),
        lastError: z.string().nullable().meta({
          description:
            'why the last refresh (or client_credentials request) failed, as a fixed code (e.g. invalid_grant, invalid_client, token_endpoint_http_403, metadata_unreachable); never the remote reply. A machine grant that never got a token shows here with expiresAt and lastRefreshAt null',
        }),
      })
      .nullable(),
  })
  .meta({ id: 'OAuthRequirement' });

export const importTokensResultSchema = z
  .object({ imported: z.literal(true), expiresAt: epochMs.nullable() })
  .meta({ id: 'ImportTokensResult' });

export const callToolResultSchema = z
  .looseObject({
    content: z.array(z.looseObject({ type: z.string() })),
    structuredContent: jsonObject.optional(),
    isError: z.boolean().optional(),
    ...truncatedField,
  })
  .meta({
    id: 'CallToolResult',
    description:
      'the MCP CallToolResult, unchanged (cut to the reply limit, and then `truncated`, when larger); isError true is a tool-level failure (still HTTP 200)',
  });

export const getPromptResultSchema = z
  .looseObject({
    description: z.string().optional(),
    messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })),
    ...truncatedField,
  })
  .meta({
    id: 'GetPromptResult',
    description: 'the MCP GetPromptResult, unchanged (cut to the reply limit, and then `truncated`, when larger)',
  });

export const resourceContentsSchema = z
  .looseObject({
    contents: z.array(
      z.looseObject({
        uri: z.string(),
        mimeType: z.string().optional(),
        text: z.string().optional(),
        blob: z.string().optional(),
      }),
    ),
    ...truncatedField,
  })
  .meta({
    id: 'ResourceContents',
    description: 'the MCP ReadResourceResult, unchanged (cut to the reply limit, and then `truncated`, when larger)',
  });

export const snapshotSchema = z
  .object({
    serverId: z.string(),
    exportedAt: z.string().meta({ description: 'ISO 8601' }),
    tools: z.array(toolSchema),
    resources: z.array(resourceEntrySchema),
    resourceTemplates: z
      .array(resourceTemplateSchema)
      .meta({ description: 'every page; empty when the server has none or does not list them' }),
    prompts: z.array(promptSchema),
    ...truncatedField,
  })
  .meta({ id: 'ServerSnapshot' });
