import type { BatchIteration, IterationOutcome } from '../../db/evalIterations.js';
import type { SavedServer } from '../../db/servers.js';
import type { ClientAnswers, ElicitationAnswer, McpOperations } from '../mcp/index.js';
import { AgentRunFailure, runAgent, type AgentRecord } from '../models/agentLoop.js';
import { resolveModel } from '../models/catalog.js';
import { createLanguageModel } from '../models/providers.js';
import type { AgentTool } from '../models/tools.js';
import type { RunContext } from './runContext.js';
import { scoreToolCalls, type ExpectedToolCall, type ToolCallScore } from './scoring.js';

const DEFAULT_MAX_STEPS = 10;
/** OpenAI's rule for function names; other providers accept a superset. */
const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** A failure worth another attempt (the server or the model was unavailable), as opposed to a recorded failed iteration. */
export class RetryableIterationError extends Error {
  override readonly name = 'RetryableIterationError';
}

/** A tool of one of the run's servers, as the model sees it (`name`) and as its server knows it (`mcpName`). */
export interface ListedTool {
  server: SavedServer;
  name: string;
  mcpName: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * The tools of every server of the run, as the model sees them. A name used by two servers, or one the providers
 * refuse, is exposed as `<server>__<tool>`; scoring always sees the MCP tool name.
 */
export async function collectTools(mcp: McpOperations, servers: SavedServer[], signal: AbortSignal): Promise<{ tools: ListedTool[]; mcpName: Map<string, string> }> {
  const tools: ListedTool[] = [];
  const mcpName = new Map<string, string>();
  for (const server of servers) {
    for (const tool of await mcp.listAllTools(server, { signal })) {
      const plain = !mcpName.has(tool.name) && toolNamePattern.test(tool.name);
      const exposed = plain ? tool.name : `${server.name.replace(/[^a-zA-Z0-9_-]/g, '_')}__${tool.name.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);
      if (mcpName.has(exposed)) continue;
      mcpName.set(exposed, tool.name);
      tools.push({ server, name: exposed, mcpName: tool.name, description: tool.description, inputSchema: tool.inputSchema });
    }
  }
  return { tools, mcpName };
}

/**
 * The listed tools as one iteration calls them: a server that asks for input during a call is answered with the
 * case's scripted elicitation (else the profile's policy), and one that asks to sample gets the run's model.
 */
function iterationTools(mcp: McpOperations, listed: ListedTool[], elicitation: ElicitationAnswer | null): AgentTool[] {
  return listed.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    call: async (args, { signal, sample }) => {
      const answers: ClientAnswers = { sample, ...(elicitation ? { elicitation } : {}) };
      const result = await mcp.callTool(tool.server, tool.mcpName, args, { signal, answers });
      return { content: result.content, isError: result.isError === true, structuredContent: result.structuredContent };
    },
  }));
}

function buildTrace(query: string, record: AgentRecord, expected: ExpectedToolCall[], actual: unknown[], score: ToolCallScore) {
  return {
    traceVersion: 1 as const,
    messages: record.messages,
    spans: record.spans,
    prompts: [{
      promptIndex: 0,
      prompt: query,
      expectedToolCalls: expected,
      actualToolCalls: actual,
      passed: score.passed,
      missing: score.missing,
      unexpected: score.unexpected,
      argumentMismatches: score.argumentMismatches,
      reasons: score.reasons,
    }],
    finalText: record.text,
    finishReason: record.finishReason,
    steps: record.steps,
  };
}

/**
 * Runs one iteration: the model with the servers' tools, then the deterministic scorer. Failures of the model
 * or the servers that another attempt could fix throw RetryableIterationError unless this is the last attempt;
 * everything else becomes a failed iteration with its error and whatever trace exists.
 */
export async function executeIteration(
  deps: { mcp: McpOperations },
  ctx: RunContext,
  iteration: BatchIteration,
  options: { signal: AbortSignal; lastAttempt: boolean; tools: () => Promise<{ tools: ListedTool[]; mcpName: Map<string, string> }> },
): Promise<IterationOutcome> {
  const startedAt = Date.now();
  const expected = (iteration.expected_tool_calls ?? []) as ExpectedToolCall[];
  const advanced = iteration.advanced_config ?? {};
  const failed = (error: string, record?: AgentRecord, errorDetails?: unknown): IterationOutcome => ({
    status: 'failed',
    result: 'failed',
    model: iteration.model,
    provider: iteration.provider,
    durationMs: Date.now() - startedAt,
    usage: record?.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    actualToolCalls: record?.toolCalls.map((c) => ({ toolName: c.toolName, arguments: c.arguments, isError: c.isError })) ?? [],
    error,
    errorDetails,
    trace: { traceVersion: 1, messages: record?.messages ?? [], spans: record?.spans ?? [], prompts: [], error },
  });

  const resolved = resolveModel({ model: iteration.model ?? '', provider: iteration.provider, ...ctx.modelAccess });
  if (!resolved.ok) return failed(resolved.message, undefined, resolved.details);

  let tools: Awaited<ReturnType<typeof options.tools>>;
  try {
    tools = await options.tools();
  } catch (error) {
    if (options.signal.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const { code, details } = error as { code?: string; details?: { reason?: unknown; retryable?: unknown } };
    // An outage may pass; a server that answered with an error (or refused our credentials) will answer the same.
    const transient = (code === 'SERVER_UNREACHABLE' || code === 'TIMEOUT') && details?.retryable !== false;
    if (!options.lastAttempt && transient) throw new RetryableIterationError(message);
    return failed(`could not list the servers' tools: ${message}`, undefined, { code, ...(typeof details?.reason === 'string' ? { reason: details.reason } : {}) });
  }

  let record: AgentRecord;
  try {
    record = await runAgent({
      model: createLanguageModel(resolved),
      system: advanced.system,
      prompt: iteration.query,
      tools: iterationTools(deps.mcp, tools.tools, iteration.elicitation),
      maxSteps: advanced.maxSteps ?? DEFAULT_MAX_STEPS,
      temperature: advanced.temperature,
      toolChoice: advanced.toolChoice,
      signal: options.signal,
      startedAt,
    });
  } catch (error) {
    if (options.signal.aborted) throw error;
    if (error instanceof AgentRunFailure) {
      if (error.retryable && !options.lastAttempt) throw new RetryableIterationError(error.message);
      return failed(error.message, error.record, { kind: error.failure.kind, status: error.failure.status });
    }
    throw error;
  }

  const actual = record.toolCalls.map((c) => ({ toolName: tools.mcpName.get(c.toolName) ?? c.toolName, arguments: c.arguments, isError: c.isError }));
  const score = scoreToolCalls({
    expected,
    actual,
    isNegativeTest: iteration.is_negative_test,
    matchOptions: iteration.match_options ?? undefined,
    failOnToolError: advanced.failOnToolError,
  });
  return {
    status: 'completed',
    result: score.passed ? 'passed' : 'failed',
    model: iteration.model,
    provider: resolved.provider,
    durationMs: Date.now() - startedAt,
    usage: record.usage,
    actualToolCalls: actual.map((a, i) => ({ ...a, durationMs: record.toolCalls[i].durationMs })),
    // why a completed iteration failed is in the trace (prompts[].reasons); `error` is for iterations that broke
    error: null,
    trace: buildTrace(iteration.query, record, expected, actual, score),
  };
}
