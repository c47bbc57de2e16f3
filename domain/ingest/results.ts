import type { CaseInput } from '../evals/case.js';
import type { IterationStatus } from '../evals/iteration.js';
import { newId } from '../ids.js';
import { normalizeTrace, type TraceInput } from './trace.js';

export interface ToolCallInput {
  toolName: string;
  arguments?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** One reported result: contract-notes `EvalResultInput`, after the HTTP edge validated it. */
export interface IngestResult {
  caseTitle: string;
  query?: string;
  passed: boolean;
  durationMs?: number;
  provider?: string;
  model?: string;
  expectedToolCalls?: ToolCallInput[];
  actualToolCalls?: ToolCallInput[];
  tokens?: { input?: number; output?: number; total?: number };
  error?: string;
  errorDetails?: unknown;
  trace?: TraceInput;
  externalIterationId?: string;
  externalCaseId?: string;
  metadata?: Record<string, string | number | boolean>;
  isNegativeTest?: boolean;
  /**
   * Ours, set only by the artifact parsers: a test its framework skipped. It is kept as a `cancelled` iteration
   * (visible in the iteration list) and stays out of the summary, so it neither passes nor fails the run.
   */
  skipped?: boolean;
  /**
   * Ours, set only by the artifact parsers: the test ran and an assertion did not hold (a JUnit `<failure>`), so it
   * is failed, not errored, although `error` carries the assertion's message.
   */
  assertionFailed?: boolean;
}

/** An iteration reported from outside, ready to store (its id is chosen here, toIngestedIteration). */
export interface IngestedIteration {
  id: string;
  caseId: string | null;
  title: string;
  query: string;
  iterationNumber: number;
  status: Extract<IterationStatus, 'completed' | 'failed' | 'cancelled'>;
  result: 'passed' | 'failed' | null;
  model: string | null;
  provider: string | null;
  durationMs: number | null;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  expectedToolCalls: unknown[];
  actualToolCalls: unknown[];
  error: string | null;
  errorDetails: unknown;
  metadata: Record<string, unknown> | null;
  isNegativeTest: boolean;
  externalIterationId: string | null;
  trace: object | null;
}

/** A case's identity within its suite: the external id when given, else title + query. */
export function caseIdentity(c: Pick<IngestResult, 'caseTitle' | 'query' | 'externalCaseId'>): string {
  return c.externalCaseId !== undefined ? `ext:${c.externalCaseId}` : `tq:${c.caseTitle}\u0000${c.query ?? ''}`;
}

/** The suite case a result belongs to, in the shape upsertCases takes. */
export function toCaseInput(result: IngestResult): CaseInput {
  return {
    title: result.caseTitle,
    query: result.query ?? '',
    model: result.model,
    provider: result.provider,
    expectedToolCalls: result.expectedToolCalls?.map(({ toolName, arguments: args }) => ({
      toolName,
      ...(args !== undefined && { arguments: args }),
    })),
    isNegativeTest: result.isNegativeTest,
    externalCaseId: result.externalCaseId,
  };
}

const whole = (value: number | undefined) => (value === undefined ? undefined : Math.round(value));

/**
 * The verdict of a reported result (domain/evals/verdicts.ts) as the iteration's status and result. The reporter's
 * `passed` is the result, as reported: it is not re-scored. A result that did not pass is errored (status `failed`:
 * it could not be scored) when it carries an `error`, the reporter's word for why the test could not finish (as the
 * MCPJam SDK reads it too), unless an artifact parser says an assertion did not hold; otherwise it is failed. A
 * passed result stays passed whatever `error` remarks; a skipped test never ran (cancelled).
 */
export function reportedVerdict(result: IngestResult): Pick<IngestedIteration, 'status' | 'result'> {
  if (result.skipped) return { status: 'cancelled', result: null };
  if (result.passed) return { status: 'completed', result: 'passed' };
  const errored = result.error !== undefined && !result.assertionFailed;
  return { status: errored ? 'failed' : 'completed', result: 'failed' };
}

/** The stored iteration of a reported result, with its verdict as reportedVerdict says. */
export function toIngestedIteration(
  result: IngestResult,
  caseId: string | null,
  iterationNumber: number,
): IngestedIteration {
  const input = whole(result.tokens?.input) ?? 0;
  const output = whole(result.tokens?.output) ?? 0;
  return {
    id: newId('itr'),
    caseId,
    title: result.caseTitle,
    query: result.query ?? '',
    iterationNumber,
    ...reportedVerdict(result),
    model: result.model ?? null,
    provider: result.provider ?? null,
    durationMs: whole(result.durationMs) ?? null,
    usage: { inputTokens: input, outputTokens: output, totalTokens: whole(result.tokens?.total) ?? input + output },
    expectedToolCalls: result.expectedToolCalls ?? [],
    actualToolCalls: (result.actualToolCalls ?? []).map((call) => ({ ...call, arguments: call.arguments ?? {} })),
    error: result.error ?? null,
    errorDetails: result.errorDetails ?? null,
    metadata: result.metadata ?? null,
    isNegativeTest: result.isNegativeTest ?? false,
    externalIterationId: result.externalIterationId ?? null,
    trace: normalizeTrace(result),
  };
}
