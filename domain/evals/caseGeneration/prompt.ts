/**
 * The fixed prompt a model drafts eval cases from. It is versioned: a change of wording changes what suites get,
 * so it gets a new version, and the version is returned with every generation (`promptVersion`).
 */
import type { SuiteTool } from './suiteTools.js';

export const CASE_GENERATION_PROMPT_VERSION = 'case-generation/1';

/** What one generation may put before the model: the largest servers list hundreds of tools. */
export const promptBounds = {
  /** tools described in the prompt, in the suite's server order */
  maxTools: 50,
  /** characters of one tool's description */
  maxDescriptionChars: 1_000,
  /** characters of one tool's input schema (as JSON); a larger one is summarised by its property names */
  maxSchemaChars: 4_000,
  /** characters of the whole tool list; tools past it are left out */
  maxToolListChars: 60_000,
} as const;

export const CASE_GENERATION_SYSTEM = `You write test cases for an evaluation of AI agents that use the tools of MCP servers.
Each test case is a user request (the query) sent to an agent that can call the tools listed by the user message, and the tool calls the agent is expected to make for it.

Rules:
- A normal case ("isNegative": false) is a realistic request a user would make that needs one or more of the listed tools. It lists every expected call in "expectedToolCalls", in the order the agent should make them.
- A negative case ("isNegative": true) is a request that none of the tools should be used for (small talk, general knowledge, or a task no tool can do). Its "expectedToolCalls" is an empty array: the agent is expected to call no tool.
- "toolName" is exactly one of the listed tool names. Never invent a tool.
- "arguments" is an object that is valid against that tool's input schema: every required property present, the right types, enum values from the enum, no property the schema does not allow. Give the values the query itself states, so the expected arguments follow from the query.
- "title" is short (at most 80 characters) and unique among the cases; "query" is written as the user would write it.
- Vary the cases: different tools, different argument values, different phrasings.
- Answer with one JSON object and nothing else, of the form:
{"cases": [{"title": string, "query": string, "isNegative": boolean, "expectedToolCalls": [{"toolName": string, "arguments": object}]}]}`;

export interface GenerationPrompt {
  version: string;
  system: string;
  prompt: string;
  /** names of the tools the prompt describes */
  toolsInPrompt: string[];
  /** listed tools the bounds left out of the prompt */
  toolsLeftOut: number;
}

/** How many of `count` cases are asked to be negative: about one in four, at least one from two cases on. */
export function negativeCount(count: number): number {
  return count < 2 ? 0 : Math.max(1, Math.round(count / 4));
}

/** The user message: the task, then the tools (name, description, input schema) within the bounds. */
export function buildGenerationPrompt(tools: readonly SuiteTool[], count: number): GenerationPrompt {
  const negatives = negativeCount(count);
  const entries: string[] = [];
  let chars = 0;
  for (const tool of tools.slice(0, promptBounds.maxTools)) {
    const entry = describeTool(tool);
    if (chars + entry.length > promptBounds.maxToolListChars) break;
    entries.push(entry);
    chars += entry.length;
  }
  const toolsInPrompt = tools.slice(0, entries.length).map((t) => t.name);
  const prompt = [
    `Write ${count} test case${count === 1 ? '' : 's'}: ${count - negatives} normal and ${negatives} negative.`,
    '',
    `The tools (${entries.length}):`,
    '',
    ...entries,
  ].join('\n');
  return {
    version: CASE_GENERATION_PROMPT_VERSION,
    system: CASE_GENERATION_SYSTEM,
    prompt,
    toolsInPrompt,
    toolsLeftOut: tools.length - entries.length,
  };
}

function describeTool(tool: SuiteTool): string {
  const description = truncate(tool.description.trim(), promptBounds.maxDescriptionChars) || '(no description)';
  const schema = JSON.stringify(tool.inputSchema);
  return `### ${tool.name}\n${description}\nInput schema: ${schema.length <= promptBounds.maxSchemaChars ? schema : abridgedSchema(tool.inputSchema)}\n`;
}

/**
 * A schema too large to quote, as the names and types of as many of its properties as fit (required ones first):
 * the model still learns what to pass; drafts are checked against the full schema.
 */
function abridgedSchema(inputSchema: Record<string, unknown>): string {
  const properties = (inputSchema.properties ?? {}) as Record<string, { type?: unknown } | undefined>;
  const required = (Array.isArray(inputSchema.required) ? inputSchema.required : []).filter(
    (name): name is string => typeof name === 'string',
  );
  const names = [...new Set([...required, ...Object.keys(properties)])].filter((name) => name in properties);
  const shown: Record<string, { type?: unknown }> = {};
  const budget = promptBounds.maxSchemaChars - 200;
  let chars = 0;
  for (const name of names) {
    const entry = properties[name]?.type === undefined ? {} : { type: properties[name]!.type };
    chars += JSON.stringify(name).length + JSON.stringify(entry).length + 2;
    if (chars > budget) break;
    shown[name] = entry;
  }
  const count = Object.keys(shown).length;
  return JSON.stringify({
    type: 'object',
    properties: shown,
    required: required.filter((name) => name in shown),
    note: `schema abridged: ${count} of ${names.length} properties shown, without their constraints`,
  });
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
