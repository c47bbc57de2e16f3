import type { z } from 'zod';
import type { IterationRow } from '../db/evalIterations.js';
import type { Progress, Run } from '../db/evalRuns.js';
import type { evalRunSchema, iterationSchema, traceSchema } from './schemas/evals.js';

type Iteration = z.input<typeof iterationSchema>;

/** How runs and iterations look on the wire (contract-notes: Eval suites and runs). */
export function toEvalRun(run: Run, progress: Progress): z.input<typeof evalRunSchema> {
  return {
    id: run.id,
    suiteId: run.suiteId,
    runNumber: run.runNumber,
    status: run.status,
    result: run.result,
    summary: run.summary,
    progress,
    source: run.source,
    notes: run.notes,
    passCriteria: run.passCriteria,
    hostId: run.hostId,
    error: run.error,
    createdAt: run.createdAt.getTime(),
    startedAt: run.startedAt?.getTime() ?? null,
    completedAt: run.completedAt?.getTime() ?? null,
  };
}

/**
 * The JSON columns hold what the worker (activities/evals) and ingest (activities/ingest/results.ts) wrote: tool
 * calls with their arguments, and an ingested result's metadata of strings, numbers and booleans.
 */
export function toIteration(row: IterationRow): Iteration {
  return {
    id: row.id,
    testCaseId: row.case_id,
    title: row.title,
    iterationNumber: row.iteration_number,
    status: row.status,
    result: row.result,
    model: row.model,
    provider: row.provider,
    startedAt: row.started_at?.getTime() ?? null,
    durationMs: row.duration_ms,
    tokensUsed: row.total_tokens,
    usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens, totalTokens: row.total_tokens },
    actualToolCalls: row.actual_tool_calls as Iteration['actualToolCalls'],
    expectedToolCalls: row.expected_tool_calls as Iteration['expectedToolCalls'],
    error: row.error,
    errorDetails: row.error_details ?? null,
    ...(row.metadata ? { metadata: row.metadata as NonNullable<Iteration['metadata']> } : {}),
    ...(row.external_iteration_id ? { externalIterationId: row.external_iteration_id } : {}),
  };
}

/**
 * A stored trace is already in the wire shape: the worker writes it so, and ingest normalizes a reported one
 * (activities/ingest/trace.ts) before storing it.
 */
export const toTrace = (stored: Record<string, unknown>) => stored as z.input<typeof traceSchema>;
