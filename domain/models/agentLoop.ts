/**
 * The model side of one eval iteration: the prompt, the MCP tools, and the model calling them until it answers or
 * runs out of steps. Everything that happened is returned as one JSON-serializable record (messages, tool calls,
 * steps, usage, spans), also when the loop fails part-way (AgentRunFailure.record).
 */
import {
  ProtocolErrorCode,
  ProtocolError,
  type CreateMessageRequest,
  type CreateMessageResult,
} from '@modelcontextprotocol/client';
import {
  generateText,
  stepCountIs,
  wrapLanguageModel,
  type LanguageModelMiddleware,
  type ModelMessage,
  type StepResult,
  type ToolSet,
} from 'ai';
import { SAMPLING_REJECTED } from '../mcp/clientRequests.js';
import { classifyModelError, type ModelErrorClassification } from './failures.js';
import type { ChatModel } from './providers.js';
import { gateModelCalls, RateLimitGate } from './rateLimits.js';
import { answerSampling } from './sampling.js';
import { toArguments, toToolSet, type AgentTool, type ToolExecution, type ToolResult } from './tools.js';
import { TraceRecorder, type TraceSpan } from './trace.js';

export type { AgentTool, ToolCallOptions, ToolResult } from './tools.js';
export type { TraceSpan } from './trace.js';

/**
 * The AI SDK's own retries of an eval run's model calls (the agent's turns, the servers' sampling requests, the
 * judge): none. Retries are Temporal's: the retry policy (activities/retryPolicy.ts) decides from the failure, and
 * Temporal retries the batch with its backoff, or after the provider's delay; SDK retries would multiply them. A
 * rate limit (429, 529) is not retried either: the rate-limit gate (rateLimits.ts) holds the request until the
 * provider's reset, or leaves the failure to the retry policy.
 */
export const MODEL_CALL_RETRIES = 0;

/** Sampling requests the servers of one iteration may have the model answer; a server that loops gets refused. */
export const MAX_SAMPLING_REQUESTS = 25;

export type AgentToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; toolName: string };

/** Most user prompts one conversation may hold (a multi-turn case's turns). */
export const MAX_CONVERSATION_TURNS = 20;

export interface AgentRunOptions {
  model: ChatModel;
  system?: string;
  /**
   * The user prompt, or the prompts of a conversation: each is sent once the model answered the one before (its
   * tool loop included), with the whole history, so the model sees one conversation.
   */
  prompt: string | readonly string[];
  tools: readonly AgentTool[];
  maxSteps: number;
  temperature?: number;
  toolChoice?: AgentToolChoice;
  /** Cancels the run: aborts the in-flight model request and is passed to every tool call. */
  signal?: AbortSignal;
  /** Milliseconds clock (default Date.now). */
  clock?: () => number;
  /** Clock reading that span times count from (default: when runAgent starts), e.g. the iteration's start. */
  startedAt?: number;
  /**
   * The run's gate for this model's provider, shared with its other lanes (rateLimits.ts); by default one of this
   * loop's own, so a 429 still waits for the provider's reset.
   */
  rateLimitGate?: RateLimitGate;
  /**
   * Ends the conversation once it says so, after the step that is running (its tool calls finish): no further step or
   * prompt. An eval iteration whose outcome is already decided (a question its script has no answer for) stops so.
   */
  halted?: () => boolean;
}

export interface AgentToolCall {
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  isError: boolean;
  durationMs: number;
  result: ToolResult;
  stepIndex: number;
}

export interface AgentStep {
  index: number;
  startMs: number;
  endMs: number;
  inputTokens: number;
  outputTokens: number;
  /** Names of the tools called in this step, in the model's order. */
  toolCalls: string[];
  finishReason: string;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** of the input tokens, those the provider read from its prompt cache (0 when it reports none) */
  cachedInputTokens?: number;
}

/** One user prompt of the conversation and what the model did about it. */
export interface AgentTurn {
  prompt: string;
  /** the tool calls made while answering this prompt, in the model's order */
  toolCalls: AgentToolCall[];
  /** this prompt's final answer ('' when it ended on tool calls or failed) */
  text: string;
  finishReason: string;
  stepLimitReached: boolean;
}

export interface AgentRecord {
  /** The conversation: system, user, then assistant and tool messages as the AI SDK models them. */
  messages: unknown[];
  /** In the order the model made them, across steps. */
  toolCalls: AgentToolCall[];
  steps: AgentStep[];
  usage: TokenUsage;
  /** The final answer's text ('' when the loop ended on tool calls or failed). */
  text: string;
  /** AI SDK finish reason of the last step ('stop', 'tool-calls', 'length', ...), or 'error'. */
  finishReason: string;
  /** The model still wanted to call tools when maxSteps ran out. */
  stepLimitReached: boolean;
  durationMs: number;
  /** `llm` spans of the model's turns and of the servers' sampling requests (named `sampling`), `tool` and `step` spans */
  spans: TraceSpan[];
  /**
   * Each user prompt's share, in order (one entry for a single prompt). `toolCalls`, `text` and `finishReason` above
   * are the whole conversation's calls and its last prompt's answer. A failed loop lists the prompts it reached.
   * (Always set by runAgent.)
   */
  turns?: AgentTurn[];
}

/**
 * The loop failed (model/provider error or cancellation); `record` holds what happened up to then. What follows
 * (retry, or a failed iteration) is the retry policy's decision (activities/retryPolicy.ts), from `failure.kind`.
 */
export class AgentRunFailure extends Error {
  override readonly name = 'AgentRunFailure';

  constructor(
    readonly failure: ModelErrorClassification,
    readonly record: AgentRecord,
    options?: { cause?: unknown },
  ) {
    super(failure.message, options);
  }
}

export async function runAgent(options: AgentRunOptions): Promise<AgentRecord> {
  if (!Number.isInteger(options.maxSteps) || options.maxSteps < 1)
    throw new RangeError('maxSteps must be an integer >= 1');
  const prompts = typeof options.prompt === 'string' ? [options.prompt] : [...options.prompt];
  if (prompts.length < 1 || prompts.length > MAX_CONVERSATION_TURNS)
    throw new RangeError(`a conversation has 1 to ${MAX_CONVERSATION_TURNS} prompts`);
  const clock = options.clock ?? Date.now;
  const origin = options.startedAt ?? clock();
  const trace = new TraceRecorder(() => clock() - origin);
  const startMs = trace.now();
  const signal = options.signal ?? new AbortController().signal;
  const executions = new Map<string, ToolExecution>();
  /** the steps of each prompt reached so far */
  const turnSteps: StepResult<ToolSet>[][] = [];
  const turnEnds: Array<{ text: string; finishReason: string }> = [];
  const stepTimes: Array<{ startMs: number; endMs: number }> = [];
  /** the conversation the next prompt is sent after: each earlier prompt and the model's messages answering it */
  const history: ModelMessage[] = [];
  const sampling = { requests: 0, inputTokens: 0, outputTokens: 0 };
  // Every request of the loop (its turns and the servers' sampling requests) waits at the provider's gate.
  const gate = options.rateLimitGate ?? new RateLimitGate(options.model.provider.split('.')[0]!, clock);
  const gated = gateModelCalls(gate, trace, { signal, clock });
  const record = (finishReason: string): AgentRecord =>
    buildRecord({
      system: options.system,
      prompts,
      turnSteps,
      turnEnds,
      stepTimes,
      executions,
      trace,
      startMs,
      finishReason,
      maxSteps: options.maxSteps,
      sampling,
    });

  /** A server's sampling request during a tool call, answered by the run's model: a span, and tokens in the usage. */
  const sample = async (
    params: CreateMessageRequest['params'],
    requestSignal: AbortSignal,
    parentId: string,
  ): Promise<CreateMessageResult> => {
    if (++sampling.requests > MAX_SAMPLING_REQUESTS) {
      throw new ProtocolError(
        SAMPLING_REJECTED,
        `sampling request declined: at most ${MAX_SAMPLING_REQUESTS} per eval iteration`,
      );
    }
    const span = trace.start('llm', 'sampling', { modelId: options.model.modelId }, parentId);
    const callSignal = AbortSignal.any([signal, requestSignal]);
    try {
      const model = wrapLanguageModel({ model: options.model, middleware: gated });
      const { result, usage } = await answerSampling(model, params, {
        signal: callSignal,
        // a failed sampling request is the server's to handle: it is answered with a JSON-RPC error
        maxRetries: MODEL_CALL_RETRIES,
      });
      sampling.inputTokens += usage.inputTokens;
      sampling.outputTokens += usage.outputTokens;
      trace.end(span, 'ok', usage);
      return result;
    } catch (error) {
      trace.end(span, callSignal.aborted ? 'cancelled' : 'error');
      if (error instanceof ProtocolError) throw error;
      // The server is told what kind of failure it was, never the provider's words (they are about our account).
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `the run's model could not answer the sampling request (${classifyModelError(error, callSignal).kind})`,
      );
    }
  };

  // The gate outside the timing: each `llm` span is one request, each wait before it a `rate-limit` span.
  const model = wrapLanguageModel({ model: options.model, middleware: [gated, timeModelCalls(trace)] });
  const tools = toToolSet(options.tools, {
    signal,
    trace,
    executions,
    stepIndex: () => stepTimes.length - 1,
    promptIndex: () => turnSteps.length - 1,
    sample,
  });
  const halted = () => options.halted?.() === true;
  try {
    let finishReason = 'stop';
    for (const text of prompts) {
      if (halted()) break;
      const steps: StepResult<ToolSet>[] = [];
      turnSteps.push(steps);
      const result = await generateText({
        model,
        system: options.system,
        // The first prompt alone is sent as a prompt (as a single-prompt run always was), later ones after the history.
        ...(history.length === 0
          ? { prompt: text }
          : { messages: [...history, { role: 'user' as const, content: text }] }),
        tools,
        toolChoice: options.toolChoice,
        temperature: options.temperature,
        maxRetries: MODEL_CALL_RETRIES,
        abortSignal: signal,
        stopWhen: [stepCountIs(options.maxSteps), halted],
        prepareStep: () => {
          trace.startStep(stepTimes.length);
          stepTimes.push({ startMs: trace.now(), endMs: trace.now() });
          return undefined;
        },
        onStepFinish: (step) => {
          steps.push(step);
          for (const part of step.content) {
            // Refused before running (unknown tool, unparseable arguments): a zero-length failed tool span.
            if (part.type === 'tool-error' && !executions.has(part.toolCallId)) {
              trace.end(trace.start('tool', part.toolName, { toolName: part.toolName }), 'error');
            }
          }
          stepTimes[stepTimes.length - 1]!.endMs = trace.now();
          const usage = { inputTokens: step.usage.inputTokens ?? 0, outputTokens: step.usage.outputTokens ?? 0 };
          trace.endStep(signal.aborted ? 'cancelled' : 'ok', usage);
        },
      });
      turnEnds.push({ text: result.text, finishReason: result.finishReason });
      history.push({ role: 'user', content: text }, ...result.response.messages);
      finishReason = result.finishReason;
    }
    return record(finishReason);
  } catch (error) {
    const failure = classifyModelError(error, signal);
    trace.fail(failure.message, failure.kind === 'aborted' ? 'cancelled' : 'error');
    throw new AgentRunFailure(failure, record('error'), { cause: error });
  }
}

/** Times every model call attempt as an `llm` span (retries included), under the current step. */
function timeModelCalls(trace: TraceRecorder): LanguageModelMiddleware {
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, model, params }) => {
      const span = trace.start('llm', model.modelId, { modelId: model.modelId });
      try {
        const result = await doGenerate();
        const { inputTokens, outputTokens } = result.usage;
        trace.end(span, 'ok', { inputTokens: inputTokens.total, outputTokens: outputTokens.total });
        return result;
      } catch (error) {
        trace.end(span, params.abortSignal?.aborted ? 'cancelled' : 'error');
        throw error;
      }
    },
  };
}

interface RecordParts {
  system: string | undefined;
  prompts: string[];
  /** the steps of each prompt reached, in order */
  turnSteps: StepResult<ToolSet>[][];
  /** how each prompt that the model finished answering ended */
  turnEnds: Array<{ text: string; finishReason: string }>;
  stepTimes: Array<{ startMs: number; endMs: number }>;
  executions: Map<string, ToolExecution>;
  trace: TraceRecorder;
  startMs: number;
  finishReason: string;
  maxSteps: number;
  /** tokens the model spent answering the servers' sampling requests */
  sampling: { inputTokens: number; outputTokens: number };
}

function buildRecord(parts: RecordParts): AgentRecord {
  const { trace } = parts;
  const steps = parts.turnSteps.flat();
  const turnCalls = collectToolCalls(parts);
  const agentSteps = steps.map((step, index): AgentStep => ({
    index,
    ...parts.stepTimes[index]!,
    inputTokens: step.usage.inputTokens ?? 0,
    outputTokens: step.usage.outputTokens ?? 0,
    toolCalls: step.toolCalls.map((call) => call.toolName),
    finishReason: step.finishReason,
  }));
  const inputTokens = sum(agentSteps.map((s) => s.inputTokens)) + parts.sampling.inputTokens;
  const outputTokens = sum(agentSteps.map((s) => s.outputTokens)) + parts.sampling.outputTokens;
  const cachedInputTokens = sum(steps.map((s) => s.usage.inputTokenDetails?.cacheReadTokens ?? 0));
  const stepLimitReached = (turn: StepResult<ToolSet>[]) =>
    turn.length >= parts.maxSteps && turn.at(-1)?.finishReason === 'tool-calls';
  const turns = parts.turnSteps.map((turnSteps, i): AgentTurn => ({
    prompt: parts.prompts[i]!,
    toolCalls: turnCalls[i]!,
    text: parts.turnEnds[i]?.text ?? '',
    finishReason: parts.turnEnds[i]?.finishReason ?? 'error',
    stepLimitReached: stepLimitReached(turnSteps),
  }));
  const transcript: unknown[] = parts.system !== undefined ? [{ role: 'system', content: parts.system }] : [];
  for (const [i, turnSteps] of parts.turnSteps.entries())
    transcript.push({ role: 'user', content: parts.prompts[i] }, ...(turnSteps.at(-1)?.response.messages ?? []));
  return {
    // A JSON round trip: the SDK's message objects may hold class instances or undefined fields.
    messages: JSON.parse(JSON.stringify(transcript)) as unknown[],
    toolCalls: turnCalls.flat(),
    steps: agentSteps,
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, cachedInputTokens },
    text: turns.at(-1)?.text ?? '',
    finishReason: parts.finishReason,
    stepLimitReached: stepLimitReached(parts.turnSteps.at(-1) ?? []),
    durationMs: trace.now() - parts.startMs,
    spans: trace.spans.map((span) => ({ ...span })),
    turns,
  };
}

/**
 * Tool calls in the model's order, by prompt. Calls the SDK refused before running (unknown tool, arguments that
 * are not JSON) are kept as errors: scoring must see every call the model made. Calls of a step that never
 * finished (the loop failed during it) come last, with the last prompt reached.
 */
function collectToolCalls({ turnSteps, executions }: RecordParts): AgentToolCall[][] {
  const seen = new Set<string>();
  let stepIndex = 0;
  const byTurn = turnSteps.map((steps) => {
    const calls: AgentToolCall[] = [];
    const push = (execution: ToolExecution, result: ToolResult): void => {
      seen.add(execution.toolCallId);
      calls.push({ ...execution, isError: result.isError === true, result });
    };
    for (const step of steps) {
      for (const part of step.content) {
        if (part.type !== 'tool-call') continue;
        const ran = executions.get(part.toolCallId);
        if (ran?.result) {
          push(ran, ran.result);
          continue;
        }
        // Refused before running, or cut short by cancellation: the SDK's tool-error says why.
        const error = step.content.find((p) => p.type === 'tool-error' && p.toolCallId === part.toolCallId);
        const message = error?.type === 'tool-error' ? errorText(error.error) : 'the tool call did not finish';
        const call = ran ?? {
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          arguments: toArguments(part.input),
          stepIndex,
          durationMs: 0,
        };
        push(call, { content: [{ type: 'text', text: message }], isError: true });
      }
      stepIndex++;
    }
    return calls;
  });
  const last = byTurn.at(-1);
  for (const execution of executions.values()) {
    if (seen.has(execution.toolCallId) || !last) continue;
    const result: ToolResult = execution.result ?? { content: [{ type: 'text', text: 'cancelled' }], isError: true };
    last.push({ ...execution, isError: result.isError === true, result });
  }
  return byTurn;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
