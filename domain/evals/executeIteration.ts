import { setImmediate as nextTurnOfLoop } from 'node:timers/promises';
import { OperationFailure } from '../failures.js';
import {
  newTraceId,
  type ClientAnswers,
  type IsolatedSession,
  type McpOperations,
  type TraceContext,
} from '../mcp/index.js';
import { AgentRunFailure, runAgent, type AgentRecord } from '../models/agentLoop.js';
import { TraceRecorder, type TraceSpan } from '../models/trace.js';
import { resolveModel } from '../models/catalog.js';
import { createLanguageModel } from '../models/providers.js';
import { costOf, sumCosts } from '../models/prices.js';
import type { RateLimitGates } from '../models/rateLimits.js';
import type { AgentTool } from '../models/tools.js';
import { budgetedCheck, CheckBudget, ITERATION_CHECK_BUDGET_MS } from './checkBudget.js';
import { JUDGE_PROMPT_VERSION, judgeAnswer } from './judge.js';
import { checkOutput, DEFAULT_OUTPUT_CHECK, type OutputCheck, type OutputCheckResult } from './outputCheck.js';
import type { RunContext } from './runContext.js';
import { scoreToolCalls, type ActualToolCall, type ExpectedToolCall, type ToolCallScore } from './scoring.js';
import { IterationScripts } from './elicitationScript.js';
import { IterationQuestions, type TracedQuestion } from './iterationQuestions.js';
import { boundTrace } from './traceBounds.js';
import type { SavedServer } from '../catalog/server.js';
import type { BatchIteration, IterationCompletion } from './iteration.js';
import type { CaseElicitation } from './case.js';
import { normalizeSurface, surfaceHash } from '../mcp/surface.js';
import type { SurfaceSighting } from '../ports/surfaceStore.js';

/** What an errored iteration's row keeps in `error_details` (besides what the caller adds: provider, model). */
export interface FailureDetails {
  reason: string;
  /** the MCP failure code, for a server's failure */
  code?: string;
  /** the provider's or the server's HTTP status */
  status?: number;
  /** the attempt (of the iteration's batch) at which the iteration was recorded as failed */
  attempt: number;
  /** UNSCRIPTED_QUESTION: the name of the question the script had no answer for (when it has one), and its tool */
  question?: string;
  toolName?: string;
}

/**
 * What an iteration's trace keeps besides the agent's record: the W3C trace id its MCP requests carried, and the
 * questions its servers asked (iterationQuestions.ts).
 */
export interface IterationTraceFacts {
  traceId: string;
  questions?: TracedQuestion[];
  questionsOmitted?: number;
}

const DEFAULT_MAX_STEPS = 10;
/** OpenAI's rule for function names; other providers accept a superset. */
const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Why an iteration could not complete: the model (or the run's model settings) or the servers' tools failed, or a
 * server asked a question the case's script has no answer for (`script`). `failure` is what failed, for the retry
 * policy; `record` what the model did until then.
 */
export class IterationFailure extends Error {
  override readonly name = 'IterationFailure';

  constructor(
    readonly stage: 'model' | 'tools' | 'script',
    readonly failure: unknown,
    readonly record?: AgentRecord,
    /** the provider the model was called through, once known */
    readonly provider?: string,
    /** the model that failed, when not the iteration's own (a judge model) */
    readonly model?: string,
    /** the trace id and questions of an iteration whose tools were called */
    readonly facts?: IterationTraceFacts,
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
): Promise<{ tools: ListedTool[]; mcpName: Map<string, string>; surfaces: SurfaceSighting[] }> {
  const tools: ListedTool[] = [];
  const mcpName = new Map<string, string>();
  const surfaces: SurfaceSighting[] = [];
  for (const server of servers) {
    const listed = await mcp.listAllTools(server, { signal });
    // The surface this listing showed (normalized and hashed once per listing), for the run to record.
    const surface = normalizeSurface(listed);
    surfaces.push({ serverId: server.id, hash: surfaceHash(surface), surface });
    for (const tool of listed) {
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
  return { tools, mcpName, surfaces };
}

/**
 * Whether the run's iterations share this server's sessions: when the run (its suite) or an operator (the server's
 * setting) chose so. Otherwise every iteration gets fresh sessions, so that no iteration sees another's state.
 */
export const sharesSessions = (ctx: RunContext, server: SavedServer): boolean =>
  ctx.run.iterationIsolation === 'shared' || server.iterationIsolation === 'shared';

/**
 * The listed tools as one iteration calls them: a server that asks for input during a call is answered by the
 * iteration's questions (the case's or the turn's script, else the profile's policy), and one that asks to sample
 * gets the run's model. A server whose sessions are not shared is called on the iteration's own session
 * (`session`). Every call carries the iteration's trace context (`trace`).
 */
function iterationTools(
  mcp: McpOperations,
  listed: ListedTool[],
  questions: IterationQuestions,
  sessionFor: (server: SavedServer) => IsolatedSession | undefined,
  trace: TraceContext,
): AgentTool[] {
  return listed.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    call: async (args, { signal, sample, toolCallId, promptIndex }) => {
      const elicit = questions.forCall({ toolCallId, toolName: tool.name, promptIndex });
      const answers: ClientAnswers = { sample, elicit };
      const session = sessionFor(tool.server);
      const result = await mcp.callTool(tool.server, tool.mcpName, args, { signal, answers, session, trace });
      return { content: result.content, isError: result.isError === true, structuredContent: result.structuredContent };
    },
  }));
}

/** One user prompt of an iteration with what it expects: a single-prompt case is one turn. */
export interface IterationTurn {
  prompt: string;
  expectedToolCalls: ExpectedToolCall[];
  expectedOutput: string | null;
  outputCheck: OutputCheck | null;
  /** answers the questions asked during this turn instead of the case's elicitation */
  elicitation: CaseElicitation | null;
}

/** The iteration's turns: the case's `turns`, else one from the planned query and expectations. */
export function iterationTurns(iteration: BatchIteration): IterationTurn[] {
  if (iteration.turns && iteration.turns.length > 0)
    return iteration.turns.map((turn) => ({
      prompt: turn.prompt,
      expectedToolCalls: turn.expectedToolCalls,
      expectedOutput: turn.expectedOutput ?? null,
      outputCheck: turn.outputCheck ?? null,
      elicitation: turn.elicitation ?? null,
    }));
  return [
    {
      prompt: iteration.query,
      expectedToolCalls: (iteration.expectedToolCalls ?? []) as ExpectedToolCall[],
      expectedOutput: iteration.expectedOutput ?? null,
      outputCheck: iteration.outputCheck ?? null,
      elicitation: null,
    },
  ];
}

/** One `prompts[]` entry of the trace: a turn's tool-call score and output check, `passed` only when both pass. */
export interface PromptResult {
  promptIndex: number;
  prompt: string;
  expectedToolCalls: ExpectedToolCall[];
  actualToolCalls: unknown[];
  passed: boolean;
  missing: unknown[];
  unexpected: unknown[];
  argumentMismatches: ToolCallScore['argumentMismatches'];
  reasons: string[];
  /** the turn's answer */
  finalText: string;
  /** absent when the turn has no expectedOutput */
  outputCheck?: OutputCheckResult;
}

function promptResult(
  index: number,
  turn: IterationTurn,
  actual: unknown[],
  text: string,
  score: ToolCallScore,
  output: OutputCheckResult | undefined,
): PromptResult {
  const outputReason = output && !output.passed ? [`Output check (${output.mode}): ${output.reason ?? 'failed'}`] : [];
  return {
    promptIndex: index,
    prompt: turn.prompt,
    expectedToolCalls: turn.expectedToolCalls,
    actualToolCalls: actual,
    passed: score.passed && (output?.passed ?? true),
    missing: score.missing,
    unexpected: score.unexpected,
    argumentMismatches: score.argumentMismatches,
    reasons: [...score.reasons, ...outputReason],
    finalText: text,
    ...(output && { outputCheck: output }),
  };
}

function buildTrace(record: AgentRecord, prompts: PromptResult[], judgeSpans: TraceSpan[], facts: IterationTraceFacts) {
  return {
    traceVersion: 1 as const,
    ...facts,
    messages: record.messages,
    spans: [...record.spans, ...judgeSpans],
    prompts,
    finalText: record.text,
    finishReason: record.finishReason,
    steps: record.steps,
  };
}

/**
 * Runs one iteration: the model with the servers' tools (one conversation through the case's turns), then, turn by
 * turn, the deterministic scorer and the output check (a judge model for `judge` checks). A completed iteration is
 * returned, passed only when every turn's tool calls and output check pass; a model or server failure, or a judge
 * reply that is no verdict, is thrown as an IterationFailure, and the retry policy decides whether it is retried or
 * recorded (failedOutcome).
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
    /** the run's budget for output checks in this worker (checkBudget.ts), besides the iteration's own */
    checkBudget?: CheckBudget;
  },
): Promise<IterationCompletion> {
  const startedAt = Date.now();
  const turns = iterationTurns(iteration);
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

  // Opened at the first call to a server that is not shared, and closed (its processes stopped) when the iteration
  // ends, however it ends.
  let session: IsolatedSession | undefined;
  const sessionFor = (server: SavedServer) =>
    sharesSessions(ctx, server) ? undefined : (session ??= deps.mcp.isolatedSession());
  // One W3C trace per iteration (a span per request): a server's own spans join the iteration by its id.
  const trace: TraceContext = { traceId: newTraceId() };
  const questions = new IterationQuestions(
    new IterationScripts(
      iteration.elicitation,
      turns.map((t) => t.elicitation),
    ),
    () => Date.now() - startedAt,
  );
  const facts = (): IterationTraceFacts => ({ traceId: trace.traceId, ...questions.trace() });
  // A question no script answers decides the iteration: it fails, naming the question, whatever came after.
  const unscripted = (record: AgentRecord | undefined) =>
    questions.unscripted &&
    new IterationFailure('script', questions.unscripted, record, resolved.provider, undefined, facts());
  let record: AgentRecord;
  try {
    record = await runAgent({
      model: createLanguageModel(resolved),
      system: advanced.system,
      prompt: turns.length === 1 ? turns[0].prompt : turns.map((t) => t.prompt),
      tools: iterationTools(deps.mcp, tools.tools, questions, sessionFor, trace),
      maxSteps: advanced.maxSteps ?? DEFAULT_MAX_STEPS,
      temperature: advanced.temperature,
      toolChoice: advanced.toolChoice,
      signal: options.signal,
      startedAt,
      rateLimitGate: options.rateLimits?.gate(ctx.run.id, resolved.provider),
      halted: () => questions.unscripted !== undefined,
    });
  } catch (error) {
    const partial = error instanceof AgentRunFailure ? error.record : undefined;
    // A cancelled run stays a cancellation, whatever its servers asked.
    if (!options.signal.aborted) {
      const failure = unscripted(partial);
      if (failure) throw failure;
    }
    throw new IterationFailure('model', error, partial, resolved.provider, undefined, facts());
  } finally {
    // Not waited for: the pool tracks the closing processes, and the iteration's outcome does not depend on them.
    void session?.close();
  }
  const failedByScript = unscripted(record);
  if (failedByScript) throw failedByScript;

  const toActual = (calls: AgentRecord['toolCalls']) =>
    calls.map((c) => ({
      toolName: tools.mcpName.get(c.toolName) ?? c.toolName,
      arguments: c.arguments,
      isError: c.isError,
    }));
  const graded = await gradeTurns(ctx, iteration, {
    turns,
    answers: turns.map((_, index) => ({
      actual: toActual(record.turns?.[index]?.toolCalls ?? []),
      text: record.turns?.[index]?.text ?? '',
    })),
    record,
    facts,
    startedAt,
    signal: options.signal,
    rateLimits: options.rateLimits,
    checkBudget: options.checkBudget,
  });
  const { prompts, judgeUsage } = graded;
  const actual = toActual(record.toolCalls);
  const usage = {
    inputTokens: record.usage.inputTokens + judgeUsage.inputTokens,
    outputTokens: record.usage.outputTokens + judgeUsage.outputTokens,
    totalTokens: record.usage.totalTokens + judgeUsage.inputTokens + judgeUsage.outputTokens,
    cachedInputTokens: (record.usage.cachedInputTokens ?? 0) + judgeUsage.cachedInputTokens,
  };
  // The agent's tokens at its model's price, the judge's at the judge's: unknown when either price is.
  const costUsd = sumCosts([
    costOf(record.usage, ctx.prices(resolved.provider, resolved.modelName)),
    judgeUsage.costUsd,
  ]);
  return {
    status: 'completed',
    result: prompts.every((p) => p.passed) ? 'passed' : 'failed',
    model: iteration.model,
    provider: resolved.provider,
    durationMs: Date.now() - startedAt,
    usage,
    costUsd,
    actualToolCalls: actual.map((a, i) => ({ ...a, durationMs: record.toolCalls[i].durationMs })),
    // why a completed iteration failed is in the trace (prompts[].reasons); `error` is for iterations that broke
    error: null,
    trace: boundTrace(buildTrace(record, prompts, graded.judgeSpans, facts())),
  };
}

/** What a turn answered: its tool calls (by their MCP names) and its text. */
export interface TurnAnswer {
  actual: ActualToolCall[];
  text: string;
}

/** The turns' grades: each prompt's result, and what the judge spent (its spans and tokens). */
export interface GradedTurns {
  prompts: PromptResult[];
  judgeSpans: TraceSpan[];
  judgeUsage: JudgeUsage;
}

/**
 * Grades each turn's answer against what the turn expects: the deterministic scorer on its tool calls, then its
 * output check (a judge model for `judge` checks). The one grading path: a run's iteration grades the conversation
 * it just had (executeIteration), a re-grade the conversation recorded by an earlier run (regrade.ts). A judge reply
 * that is no verdict, or a judge the run cannot use, is thrown as an IterationFailure (with `record`, when there is
 * one, and the judge's spans).
 */
export async function gradeTurns(
  ctx: RunContext,
  iteration: BatchIteration,
  input: {
    turns: IterationTurn[];
    /** one per turn, in order */
    answers: TurnAnswer[];
    /** the conversation's record, when it was had now: a judge failure keeps it */
    record?: AgentRecord;
    facts: () => IterationTraceFacts;
    startedAt: number;
    signal: AbortSignal;
    rateLimits?: RateLimitGates;
    checkBudget?: CheckBudget;
  },
): Promise<GradedTurns> {
  const advanced = iteration.advancedConfig ?? {};
  const judgeTrace = new TraceRecorder(() => Date.now() - input.startedAt);
  const judgeUsage: JudgeUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0 };
  const prompts: PromptResult[] = [];
  const checkBudgets = [new CheckBudget(ITERATION_CHECK_BUDGET_MS, 'this iteration')];
  if (input.checkBudget) checkBudgets.push(input.checkBudget);
  for (const [index, turn] of input.turns.entries()) {
    const { actual, text } = input.answers[index] ?? { actual: [], text: '' };
    const score = scoreToolCalls({
      expected: turn.expectedToolCalls,
      actual,
      isNegativeTest: iteration.isNegativeTest,
      matchOptions: iteration.matchOptions ?? undefined,
      failOnToolError: advanced.failOnToolError,
    });
    let output: OutputCheckResult | undefined;
    const expected = turn.expectedOutput;
    if (expected !== null) {
      const check = turn.outputCheck ?? DEFAULT_OUTPUT_CHECK;
      output =
        check.mode === 'judge'
          ? await judgeTurn(ctx, iteration, {
              turn,
              text,
              check,
              record: input.record,
              trace: judgeTrace,
              facts: input.facts,
              usage: judgeUsage,
              signal: input.signal,
              rateLimits: input.rateLimits,
            })
          : budgetedCheck(checkBudgets, { mode: check.mode, expected }, () => checkOutput(text, expected, check));
      // Each check is one slice of the event loop: other iterations (other organizations') run between them.
      await nextTurnOfLoop();
    }
    prompts.push(promptResult(index, turn, actual, text, score, output));
  }
  return { prompts, judgeSpans: judgeTrace.spans, judgeUsage };
}

/** The judge's tokens in an iteration, and what they cost at the judge model's price (null: unknown). */
export interface JudgeUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number | null;
}

/**
 * Grades one turn's answer with the judge model: the suite's, else the case's. A model the run cannot use, a
 * provider failure or a reply that is no verdict is thrown as the iteration's failure, with the agent's record and
 * the judge's span, for the retry policy.
 */
async function judgeTurn(
  ctx: RunContext,
  iteration: BatchIteration,
  input: {
    turn: IterationTurn;
    text: string;
    check: OutputCheck;
    /** the conversation had now (absent for a re-grade: its record is stored) */
    record?: AgentRecord;
    trace: TraceRecorder;
    /** the iteration's trace id and questions, for a failure's trace */
    facts: () => IterationTraceFacts;
    usage: JudgeUsage;
    signal: AbortSignal;
    /** the judge's requests wait at the run's gate for its provider, as the agent's do */
    rateLimits?: RateLimitGates;
  },
): Promise<OutputCheckResult> {
  const judge = ctx.judgeModel ?? { model: iteration.model ?? '', provider: iteration.provider ?? undefined };
  const resolved = resolveModel({ model: judge.model, provider: judge.provider ?? null, ...ctx.modelAccess });
  const withJudgeSpans = (): AgentRecord | undefined =>
    input.record && { ...input.record, spans: [...input.record.spans, ...input.trace.spans] };
  if (!resolved.ok)
    throw new IterationFailure(
      'model',
      new OperationFailure('VALIDATION_ERROR', `judge model: ${resolved.message}`, resolved.details),
      withJudgeSpans(),
      judge.provider,
      judge.model,
      input.facts(),
    );
  try {
    const { verdict, usage } = await judgeAnswer(
      createLanguageModel(resolved),
      {
        question: input.turn.prompt,
        answer: input.text,
        expected: input.turn.expectedOutput ?? '',
        rubric: input.check.rubric,
      },
      {
        signal: input.signal,
        trace: input.trace,
        rateLimitGate: input.rateLimits?.gate(ctx.run.id, resolved.provider),
      },
    );
    input.usage.inputTokens += usage.inputTokens;
    input.usage.outputTokens += usage.outputTokens;
    input.usage.cachedInputTokens += usage.cachedInputTokens;
    input.usage.costUsd = sumCosts([
      input.usage.costUsd,
      costOf(usage, ctx.prices(resolved.provider, resolved.modelName)),
    ]);
    return {
      mode: 'judge',
      passed: verdict.pass,
      expected: input.turn.expectedOutput ?? '',
      ...(!verdict.pass && { reason: `the judge failed the answer: ${verdict.reason}` }),
      verdict,
      judgePromptVersion: JUDGE_PROMPT_VERSION,
      judgeModel: `${resolved.provider}/${resolved.modelName}`,
    };
  } catch (error) {
    throw new IterationFailure('model', error, withJudgeSpans(), resolved.provider, resolved.modelName, input.facts());
  }
}

/**
 * An iteration that broke, as recorded once the retry policy said so: status `failed`, the reason in `error` and
 * `error_details` (the policy's facts, plus the model and provider for a failure of the model), whatever trace
 * exists.
 */
export function failedOutcome(
  ctx: RunContext,
  iteration: BatchIteration,
  failure: IterationFailure,
  decision: { message: string; details: FailureDetails },
  durationMs: number,
): IterationCompletion {
  const error = failure.stage === 'tools' ? `could not list the servers' tools: ${decision.message}` : decision.message;
  const record = failure.record;
  const provider = failure.provider ?? iteration.provider;
  const errorDetails =
    failure.stage === 'model'
      ? { ...decision.details, provider, model: failure.model ?? iteration.model }
      : decision.details;
  const usage = record?.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  // The record is the agent's: its tokens cost what the iteration's model costs (unknown when it cannot be resolved).
  const resolved = resolveModel({ model: iteration.model ?? '', provider: iteration.provider, ...ctx.modelAccess });
  return {
    status: 'failed',
    result: 'failed',
    model: iteration.model,
    provider,
    durationMs,
    usage,
    costUsd: resolved.ok ? costOf(usage, ctx.prices(resolved.provider, resolved.modelName)) : null,
    actualToolCalls:
      record?.toolCalls.map((c) => ({ toolName: c.toolName, arguments: c.arguments, isError: c.isError })) ?? [],
    error,
    errorDetails,
    trace: boundTrace({
      traceVersion: 1,
      ...failure.facts,
      messages: record?.messages ?? [],
      spans: record?.spans ?? [],
      prompts: [],
      error,
    }),
  };
}
