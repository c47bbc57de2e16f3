import type { BatchIteration, IterationCompletion } from '../../db/evalIterations.js';
import type { SavedServer } from '../../db/servers.js';
import { OperationFailure } from '../failures.js';
import type { ClientAnswers, ElicitationAnswer, McpOperations } from '../mcp/index.js';
import { AgentRunFailure, runAgent, type AgentRecord } from '../models/agentLoop.js';
import { resolveModel } from '../models/catalog.js';
import { createLanguageModel } from '../models/providers.js';
import type { RateLimitGates } from '../models/rateLimits.js';
import type { AgentTool } from '../models/tools.js';
import type { RunContext } from './runContext.js';
import { scoreToolCalls, type ExpectedToolCall, type ToolCallScore } from './scoring.js';

/** What an errored iteration's row keeps in `error_details` (besides what the caller adds: provider, model). */
export interface FailureDetails {
  reason: string;
  /** the MCP failure code, for a server's failure */
  code?: string;
  /** the provider's or the server's HTTP status */
  status?: number;
  /** the attempt (of the iteration's batch) at which the iteration was recorded as failed */
  attempt: number;
}

const DEFAULT_MAX_STEPS = 10;
/** OpenAI's rule for function names; other providers accept a superset. */
const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Why an iteration could not complete: the model (or the run's model settings) or the servers' tools failed.
 * `failure` is what failed, for the retry policy; `record` what the model did until then.
 */
export class IterationFailure extends Error {
  override readonly name = 'IterationFailure';

  constructor(
    readonly stage: 'model' | 'tools',
    readonly failure: unknown,
    readonly record?: AgentRecord,
    /** the provider the model was called through, once known */
    readonly provider?: string,
  ) {
    super(failure instanceof Error ? failure.message : String(failure), { cause: failure });
  }
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
export async function collectTools(
  mcp: McpOperations,
  servers: SavedServer[],
  signal: AbortSignal,
): Promise<{ tools: ListedTool[]; mcpName: Map<string, string> }> {
  const tools: ListedTool[] = [];
  const mcpName = new Map<string, string>();
  for (const server of servers) {
    for (const tool of await mcp.listAllTools(server, { signal })) {
      const plain = !mcpName.has(tool.name) && toolNamePattern.test(tool.name);
      const exposed = plain
        ? tool.name
        : `${server.name.replace(/[^a-zA-Z0-9_-]/g, '_')}__${tool.name.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);
      if (mcpName.has(exposed)) continue;
      mcpName.set(exposed, tool.name);
      tools.push({
        server,
        name: exposed,
        mcpName: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
      });
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

function buildTrace(
  query: string,
  record: AgentRecord,
  expected: ExpectedToolCall[],
  actual: unknown[],
  score: ToolCallScore,
) {
  return {
    traceVersion: 1 as const,
    messages: record.messages,
    spans: record.spans,
    prompts: [
      {
        promptIndex: 0,
        prompt: query,
        expectedToolCalls: expected,
        actualToolCalls: actual,
        passed: score.passed,
        missing: score.missing,
        unexpected: score.unexpected,
        argumentMismatches: score.argumentMismatches,
        reasons: score.reasons,
      },
    ],
    finalText: record.text,
    finishReason: record.finishReason,
    steps: record.steps,
  };
}

/**
 * Runs one iteration: the model with the servers' tools, then the deterministic scorer. A completed iteration is
 * returned (passed or failed by its tool calls); a model or server failure is thrown as an IterationFailure, and the
 * retry policy decides whether it is retried or recorded (failedOutcome).
 */
export async function executeIteration(
  deps: { mcp: McpOperations },
  ctx: RunContext,
  iteration: BatchIteration,
  options: {
    signal: AbortSignal;
    tools: () => Promise<{ tools: ListedTool[]; mcpName: Map<string, string> }>;
    /** the worker's rate-limit gates: the run's lanes wait together for a provider's reset */
    rateLimits?: RateLimitGates;
  },
): Promise<IterationCompletion> {
  const startedAt = Date.now();
  const expected = (iteration.expectedToolCalls ?? []) as ExpectedToolCall[];
  const advanced = iteration.advancedConfig ?? {};

  const resolved = resolveModel({ model: iteration.model ?? '', provider: iteration.provider, ...ctx.modelAccess });
  if (!resolved.ok)
    throw new IterationFailure('model', new OperationFailure('VALIDATION_ERROR', resolved.message, resolved.details));

  let tools: Awaited<ReturnType<typeof options.tools>>;
  try {
    tools = await options.tools();
  } catch (error) {
    throw new IterationFailure('tools', error);
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
      rateLimitGate: options.rateLimits?.gate(ctx.run.id, resolved.provider),
    });
  } catch (error) {
    throw new IterationFailure(
      'model',
      error,
      error instanceof AgentRunFailure ? error.record : undefined,
      resolved.provider,
    );
  }

  const actual = record.toolCalls.map((c) => ({
    toolName: tools.mcpName.get(c.toolName) ?? c.toolName,
    arguments: c.arguments,
    isError: c.isError,
  }));
  const score = scoreToolCalls({
    expected,
    actual,
    isNegativeTest: iteration.isNegativeTest,
    matchOptions: iteration.matchOptions ?? undefined,
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

/**
 * An iteration that broke, as recorded once the retry policy said so: status `failed`, the reason in `error` and
 * `error_details` (the policy's facts, plus the model and provider for a failure of the model), whatever trace
 * exists.
 */
export function failedOutcome(
  iteration: BatchIteration,
  failure: IterationFailure,
  decision: { message: string; details: FailureDetails },
  durationMs: number,
): IterationCompletion {
  const error = failure.stage === 'tools' ? `could not list the servers' tools: ${decision.message}` : decision.message;
  const record = failure.record;
  const provider = failure.provider ?? iteration.provider;
  const errorDetails =
    failure.stage === 'model' ? { ...decision.details, provider, model: iteration.model } : decision.details;
  return {
    status: 'failed',
    result: 'failed',
    model: iteration.model,
    provider,
    durationMs,
    usage: record?.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    actualToolCalls:
      record?.toolCalls.map((c) => ({ toolName: c.toolName, arguments: c.arguments, isError: c.isError })) ?? [],
    error,
    errorDetails,
    trace: { traceVersion: 1, messages: record?.messages ?? [], spans: record?.spans ?? [], prompts: [], error },
  };
}
