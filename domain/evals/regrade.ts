import { OperationFailure } from '../failures.js';
import { gradeTurns, iterationTurns, IterationFailure, type JudgeUsage, type TurnAnswer } from './executeIteration.js';
import type { CheckBudget } from './checkBudget.js';
import type { RateLimitGates } from '../models/rateLimits.js';
import type { RunContext } from './runContext.js';
import type { BatchIteration, IterationCompletion } from './iteration.js';
import type { ActualToolCall } from './scoring.js';

/**
 * Re-grading (issue 31): a finished run's recorded conversations graded again with the suite's current expectations
 * (expected tool calls, match options, output checks, the judge), through the same grading as a run's iteration
 * (executeIteration.ts gradeTurns). No model of the run and no MCP server is called; a judge check calls its judge.
 */

/** One recorded turn, as the original iteration's trace stored it (`prompts[]`). */
export interface RecordedTurn {
  prompt: string;
  actualToolCalls: ActualToolCall[];
  finalText: string;
}

/** What a re-graded iteration is graded from: its recorded turns, and the recorded conversation's usage and time. */
export interface RecordedConversation {
  turns: RecordedTurn[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The recorded turns of a stored trace's `prompts` (what db/ reads of it, the messages left in Postgres); undefined
 * when the trace holds no graded turn (an iteration that errored before it was graded).
 */
export function recordedTurns(prompts: unknown): RecordedTurn[] | undefined {
  if (!Array.isArray(prompts) || prompts.length === 0) return undefined;
  const turns: RecordedTurn[] = [];
  for (const p of prompts) {
    if (!isRecord(p)) return undefined;
    const calls = Array.isArray(p.actualToolCalls) ? p.actualToolCalls : [];
    turns.push({
      prompt: typeof p.prompt === 'string' ? p.prompt : '',
      finalText: typeof p.finalText === 'string' ? p.finalText : '',
      actualToolCalls: calls.filter(isRecord).map((c) => ({
        toolName: typeof c.toolName === 'string' ? c.toolName : '',
        arguments: isRecord(c.arguments) ? c.arguments : {},
        ...(c.isError === true && { isError: true }),
      })),
    });
  }
  return turns;
}

/**
 * Why the recorded turns cannot be graded against the case's turns as they are now: another number of prompts, or
 * another prompt text (the conversation answered other questions). undefined: they fit.
 */
export function promptsChanged(current: string[], recorded: RecordedTurn[]): string | undefined {
  if (current.length !== recorded.length)
    return `the case now has ${current.length} prompt${current.length === 1 ? '' : 's'}, the recorded conversation answered ${recorded.length}`;
  const index = current.findIndex((prompt, i) => prompt !== recorded[i].prompt);
  if (index >= 0) return `prompt ${index + 1} of the case changed since the recorded conversation`;
  return undefined;
}

/** What a re-graded iteration's stored trace gets besides its new `prompts`: what it was graded from and with. */
export interface RegradeTraceFacts {
  /** the iteration of the original run whose conversation was graded again */
  of: { runId: string; iterationId: string } | null;
  judgeSpans: unknown[];
  judgeUsage: JudgeUsage;
}

/**
 * Grades one iteration of a re-grade run: its recorded turns against the case's turns as they are now. Completed,
 * passed when every turn passes; a judge that fails throws an IterationFailure (for the retry policy) as in a run.
 * Its stored trace keeps the recorded conversation (messages, spans) and gets the new `prompts` and `regrade`
 * (`traceMerge`): only the grades travel through this process. Its usage is the recorded conversation's plus the
 * judge's, its duration the recorded one (what the model took then).
 */
export async function regradeIteration(
  ctx: RunContext,
  iteration: BatchIteration,
  recorded: RecordedTurn[] | undefined,
  options: {
    signal: AbortSignal;
    rateLimits?: RateLimitGates;
    checkBudget?: CheckBudget;
    of: RegradeTraceFacts['of'];
  },
): Promise<IterationCompletion> {
  const startedAt = Date.now();
  const turns = iterationTurns(iteration);
  const notGradable = (message: string) =>
    new IterationFailure('script', new OperationFailure('VALIDATION_ERROR', message, { reason: 'NOT_REGRADABLE' }));
  if (!recorded) throw notGradable('the original iteration recorded no graded conversation');
  const changed = promptsChanged(
    turns.map((t) => t.prompt),
    recorded,
  );
  if (changed) throw notGradable(`cannot re-grade: ${changed}`);
  const answers: TurnAnswer[] = recorded.map((t) => ({ actual: t.actualToolCalls, text: t.finalText }));
  const graded = await gradeTurns(ctx, iteration, {
    turns,
    answers,
    facts: () => ({ traceId: '' }),
    startedAt,
    signal: options.signal,
    rateLimits: options.rateLimits,
    checkBudget: options.checkBudget,
  });
  const judgeTokens = graded.judgeUsage.inputTokens + graded.judgeUsage.outputTokens;
  const regrade: RegradeTraceFacts = {
    of: options.of,
    judgeSpans: graded.judgeSpans,
    judgeUsage: graded.judgeUsage,
  };
  return {
    status: 'completed',
    result: graded.prompts.every((p) => p.passed) ? 'passed' : 'failed',
    model: iteration.model,
    provider: iteration.provider,
    durationMs: iteration.durationMs ?? 0,
    usage: {
      inputTokens: iteration.inputTokens + graded.judgeUsage.inputTokens,
      outputTokens: iteration.outputTokens + graded.judgeUsage.outputTokens,
      totalTokens: iteration.totalTokens + judgeTokens,
      cachedInputTokens: iteration.cachedInputTokens + graded.judgeUsage.cachedInputTokens,
    },
    // What the re-grade spent: its judge calls. The recorded conversation was paid for by the original run.
    costUsd: graded.judgeUsage.costUsd,
    actualToolCalls: iteration.actualToolCalls,
    error: null,
    trace: { prompts: graded.prompts, regrade },
    traceMerge: true,
  };
}

/**
 * A re-graded iteration that could not be graded (its conversation no longer fits the case, or the judge failed),
 * as the retry policy recorded it (failedOutcome): failed, with its reason, and the recorded conversation kept (its
 * trace gets empty `prompts` and the error; messages and spans stay), with the recorded usage and duration.
 */
export function regradeFailed(iteration: BatchIteration, failed: IterationCompletion): IterationCompletion {
  return {
    ...failed,
    model: iteration.model,
    provider: iteration.provider,
    durationMs: iteration.durationMs ?? 0,
    usage: {
      inputTokens: iteration.inputTokens,
      outputTokens: iteration.outputTokens,
      totalTokens: iteration.totalTokens,
    },
    actualToolCalls: iteration.actualToolCalls,
    trace: { prompts: [], error: failed.error },
    traceMerge: true,
  };
}

/** The original iteration a re-graded one names in its metadata (db/ writes it there when it copies it). */
export function regradeOrigin(metadata: Record<string, unknown> | null): RegradeTraceFacts['of'] {
  const runId = metadata?.regradeOfRunId;
  const iterationId = metadata?.regradeOfIterationId;
  if (typeof runId !== 'string' || typeof iterationId !== 'string') return null;
  return { runId, iterationId };
}
