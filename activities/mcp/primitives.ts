import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * The contract's shapes of listed primitives (api.md "Tool", "Prompt", "Resource entry"). Required strings are
 * filled with '' when a server leaves them out; optional MCP fields are passed on only when present.
 */
export interface ToolEntry {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface PromptEntry {
  name: string;
  title?: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
}

export interface ResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
}

export interface ResourceTemplateEntry {
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
}

const title = (value: { title?: string }) => (value.title !== undefined ? { title: value.title } : {});

export const toToolEntry = (tool: Tool): ToolEntry => ({
  name: tool.name,
  ...title(tool),
  description: tool.description ?? '',
  inputSchema: tool.inputSchema,
  ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
  ...(tool.annotations ? { annotations: tool.annotations } : {}),
});

export const toPromptEntry = (prompt: Prompt): PromptEntry => ({
  name: prompt.name,
  ...title(prompt),
  description: prompt.description ?? '',
  arguments: (prompt.arguments ?? []).map((a) => ({ name: a.name, description: a.description ?? '', required: a.required ?? false })),
});

export const toResourceEntry = (resource: Resource): ResourceEntry => ({
  uri: resource.uri,
  name: resource.name,
  ...title(resource),
  description: resource.description ?? '',
  mimeType: resource.mimeType ?? '',
});

export const toResourceTemplateEntry = (template: ResourceTemplate): ResourceTemplateEntry => ({
  uriTemplate: template.uriTemplate,
  name: template.name,
  ...title(template),
  description: template.description ?? '',
  mimeType: template.mimeType ?? '',
});
