import { z } from 'zod';
import type { Truncation } from './replyBudget.js';

/*
 * Listed primitives go to the caller as the server sent them: the MCP schemas grow (a tool's `execution`, `icons`,
 * `_meta`, new annotation hints) faster than any client, and clients ignore what they do not know. So the lists
 * are read with schemas of our own that check the fields the contract relies on and keep every other key, where
 * the SDK's schemas would drop them. Then the contract's required strings are filled with '' when a server leaves
 * them out (api.md "Tool", "Prompt", "Resource entry"); nothing else is added or removed.
 */

const jsonObject = z.record(z.string(), z.unknown());
const text = z.string().optional();

const listedTool = z.looseObject({
  name: z.string(),
  title: text,
  description: text,
  inputSchema: jsonObject,
  outputSchema: jsonObject.optional(),
  annotations: jsonObject.optional(),
});

const listedPrompt = z.looseObject({
  name: z.string(),
  title: text,
  description: text,
  arguments: z
    .array(z.looseObject({ name: z.string(), description: text, required: z.boolean().optional() }))
    .optional(),
});

const listedResource = z.looseObject({
  uri: z.string(),
  name: z.string(),
  title: text,
  description: text,
  mimeType: text,
});

const listedResourceTemplate = z.looseObject({
  uriTemplate: z.string(),
  name: z.string(),
  title: text,
  description: text,
  mimeType: text,
});

const nextCursor = z.string().optional();

/** Results of the list requests (client.request takes them instead of the SDK's ListToolsResultSchema, ...). */
export const listResultSchemas = {
  tools: z.looseObject({ tools: z.array(listedTool), nextCursor }),
  prompts: z.looseObject({ prompts: z.array(listedPrompt), nextCursor }),
  resources: z.looseObject({ resources: z.array(listedResource), nextCursor }),
  resourceTemplates: z.looseObject({ resourceTemplates: z.array(listedResourceTemplate), nextCursor }),
};

type ListedTool = z.output<typeof listedTool>;
type ListedPrompt = z.output<typeof listedPrompt>;
type ListedResource = z.output<typeof listedResource>;
type ListedResourceTemplate = z.output<typeof listedResourceTemplate>;

/** Whatever else the server sent with a primitive, passed on as it came. */
interface Sent {
  [key: string]: unknown;
}

export interface ToolEntry extends Sent {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface PromptEntry extends Sent {
  name: string;
  title?: string;
  description: string;
  arguments: (Sent & { name: string; description: string; required: boolean })[];
}

export interface ResourceEntry extends Sent {
  uri: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
}

export interface ResourceTemplateEntry extends Sent {
  uriTemplate: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
}

/** One page of a list; nextCursor is the server's own cursor (the API wraps it in ours). */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
  /** the page held more than a reply may (limits.serverReplyBytes): the items that did not fit are left out */
  truncated?: Truncation;
}

export const toToolEntry = (tool: ListedTool): ToolEntry => ({ ...tool, description: tool.description ?? '' });

export const toPromptEntry = (prompt: ListedPrompt): PromptEntry => ({
  ...prompt,
  description: prompt.description ?? '',
  arguments: (prompt.arguments ?? []).map((a) => ({
    ...a,
    description: a.description ?? '',
    required: a.required ?? false,
  })),
});

export const toResourceEntry = (resource: ListedResource): ResourceEntry => ({
  ...resource,
  description: resource.description ?? '',
  mimeType: resource.mimeType ?? '',
});

export const toResourceTemplateEntry = (template: ListedResourceTemplate): ResourceTemplateEntry => ({
  ...template,
  description: template.description ?? '',
  mimeType: template.mimeType ?? '',
});
