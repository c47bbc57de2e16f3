/**
 * MCP tools offered to the model. Their input schemas are JSON Schema known only at run time, hence dynamicTool
 * (what the AI SDK's own MCP client uses) with jsonSchema(): the arguments reach the MCP server as the model wrote
 * them, and the server validates them.
 */
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/client';
import { dynamicTool, jsonSchema, type JSONSchema7, type ToolSet } from 'ai';
import type { TraceRecorder } from './trace.js';

/** An MCP tool result, as tools/call returns it. */
export interface ToolResult {
  content: unknown[];
  isError?: boolean;
  structuredContent?: unknown;
}

export interface AgentTool {
  /** Unique within a run; the name the model calls. */
  name: string;
  description?: string;
  /** JSON Schema of the arguments object (MCP `inputSchema`). */
  inputSchema: Record<string, unknown>;
  /** Must honour `signal`: a cancelled run aborts in-flight tool calls through it. */
  call(args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult>;
}

/** Answers a sampling request of the server behind a tool call with the run's model, traced under the call. */
export type SampleWithModel = (
  params: CreateMessageRequest['params'],
  signal: AbortSignal,
) => Promise<CreateMessageResult>;

export interface ToolCallOptions {
  signal: AbortSignal;
  sample: SampleWithModel;
  /** the model's id of this call (as the conversation's messages have it) */
  toolCallId: string;
  /** the user prompt (turn) being answered when the model made the call, from 0 */
  promptIndex: number;
}

/** One tool call as it ran (or was refused before running). */
export interface ToolExecution {
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  stepIndex: number;
  durationMs: number;
  /** Undefined while running, or when the run was cancelled during the call. */
  result?: ToolResult;
}

export interface ToolContext {
  signal: AbortSignal;
  trace: TraceRecorder;
  /** Filled in as calls start, by tool call id. */
  executions: Map<string, ToolExecution>;
  stepIndex(): number;
  /** the user prompt (turn) the model is answering */
  promptIndex(): number;
  /** answers sampling requests with the run's model; `parentId` is the span of the tool call they came from */
  sample(params: CreateMessageRequest['params'], signal: AbortSignal, parentId: string): Promise<CreateMessageResult>;
}

export function toToolSet(tools: readonly AgentTool[], context: ToolContext): ToolSet {
  const set: ToolSet = {};
  for (const agentTool of tools) {
    if (Object.hasOwn(set, agentTool.name)) {
      throw new Error(`two tools are named ${agentTool.name}; tool names must be unique within a run`);
    }
    set[agentTool.name] = dynamicTool({
      description: agentTool.description,
      // OpenAI rejects function parameters without `type: object` and `properties`; MCP allows leaving them out.
      inputSchema: jsonSchema({ type: 'object', properties: {}, ...agentTool.inputSchema } as JSONSchema7),
      execute: (input, { toolCallId }) => runTool(agentTool, toolCallId, input, context),
      toModelOutput: ({ output }) => {
        const result = output as ToolResult;
        const value = toolResultText(result);
        return result.isError ? { type: 'error-text', value } : { type: 'text', value };
      },
    });
  }
  return set;
}

async function runTool(tool: AgentTool, toolCallId: string, input: unknown, context: ToolContext): Promise<ToolResult> {
  const { signal, trace } = context;
  const span = trace.start('tool', tool.name, { toolName: tool.name });
  const execution: ToolExecution = {
    toolCallId,
    toolName: tool.name,
    arguments: toArguments(input),
    stepIndex: context.stepIndex(),
    durationMs: 0,
  };
  context.executions.set(toolCallId, execution);
  let result: ToolResult;
  try {
    const answer = await tool.call(execution.arguments, {
      signal,
      sample: (params, requestSignal) => context.sample(params, requestSignal, span.id),
      toolCallId,
      promptIndex: context.promptIndex(),
    });
    result = { ...answer, content: Array.isArray(answer?.content) ? answer.content : [] };
  } catch (error) {
    if (signal.aborted) {
      execution.durationMs = trace.now() - span.startMs;
      trace.end(span, 'cancelled');
      throw error;
    }
    // A failing tool is something the model should see and react to, as an MCP error result would be.
    result = {
      content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
      isError: true,
    };
  }
  trace.end(span, result.isError ? 'error' : 'ok');
  execution.durationMs = span.endMs - span.startMs;
  execution.result = result;
  return result;
}

export function toArguments(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

/**
 * Chat Completions tool messages carry text only, so a result is sent as its text parts; other parts (images,
 * resources) as JSON with binary data elided, and structuredContent when there is no content at all.
 */
export function toolResultText(result: ToolResult): string {
  if (result.content.length === 0)
    return result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent);
  return result.content.map(partText).join('\n');
}

function partText(part: unknown): string {
  if (part === null || typeof part !== 'object') return String(part);
  const p = part as { type?: unknown; text?: unknown; data?: unknown; resource?: { text?: unknown; blob?: unknown } };
  if (p.type === 'text' && typeof p.text === 'string') return p.text;
  if (p.type === 'resource' && typeof p.resource?.text === 'string') return p.resource.text;
  return JSON.stringify(part, (key, value: unknown) =>
    (key === 'data' || key === 'blob') && typeof value === 'string' ? `<${value.length} base64 characters>` : value,
  );
}
