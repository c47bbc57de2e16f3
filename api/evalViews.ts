import type { RunToolSurfaces } from '../domain/evals/runSurfaces.js';
import type { z } from 'zod';
import type { evalRunSchema, iterationSchema, traceSchema } from './schemas/evals.js';
import type { Iteration as StoredIteration } from '../domain/evals/iteration.js';
import type { Progress, QueuePlace, Run } from '../domain/evals/run.js';

type Iteration = z.input<typeof iterationSchema>;

/**
 * A run's verdict on the wire: stored as `pending` until the run ends (ingest's replies say so), and null until then
 * everywhere else, as the real product's document has it ("Pass/fail verdict once terminal").
 */
export const runVerdict = <T extends string | null>(result: T): Exclude<T, 'pending'> | null =>
  result === 'pending' ? null : (result as Exclude<T, 'pending'>);

/** How runs and iterations look on the wire (contract-notes: Eval suites and runs). */
export function toEvalRun(
  run: Run,
  progress: Progress,
  toolSurfaces?: RunToolSurfaces[],
  queue?: QueuePlace,
): z.input<typeof evalRunSchema> {
  return {
    id: run.id,
    suiteId: run.suiteId,
    runNumber: run.runNumber,
    status: run.status,
    ...(queue && { queue }),
    result: runVerdict(run.result),
    summary: run.summary,
    progress,
    source: run.source,
    notes: run.notes,
    passCriteria: run.passCriteria,
    hostId: run.hostId,
    isolation: run.iterationIsolation,
    budget: run.budget,
    concurrency: run.concurrency,
    adaptive: run.adaptive && {
      baselineRunId: run.adaptive.baselineRunId,
      maxIterationsPerCase: run.adaptive.maxIterationsPerCase,
      stopWhen: run.adaptive.stopWhen,
      firstRound: run.adaptive.design.firstRound,
      roundSize: run.adaptive.design.roundSize,
    },
    error: run.error,
    regradeOf: run.regradeOf,
    ...(toolSurfaces && { toolSurfaces }),
    regradeSkipped: run.regradeSkipped,
    createdAt: run.createdAt.getTime(),
    startedAt: run.startedAt?.getTime() ?? null,
    completedAt: run.completedAt?.getTime() ?? null,
    ...(run.tracesExpiredAt && { tracesExpiredAt: run.tracesExpiredAt.getTime() }),
  };
}

/**
 * The JSON columns hold what the worker (domain/evals) and ingest (domain/ingest/results.ts) wrote: tool
 * calls with their arguments, and an ingested result's metadata of strings, numbers and booleans.
 */
export function toIteration(row: StoredIteration): Iteration {
  return {
    id: row.id,
    testCaseId: row.caseId,
    title: row.title,
    iterationNumber: row.iterationNumber,
    status: row.status,
    result: row.result,
    model: row.model,
    provider: row.provider,
    startedAt: row.startedAt?.getTime() ?? null,
    durationMs: row.durationMs,
    tokensUsed: row.totalTokens,
    usage: {
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      totalTokens: row.totalTokens,
      cachedInputTokens: row.cachedInputTokens,
    },
    costUsd: row.costUsd,
    actualToolCalls: row.actualToolCalls as Iteration['actualToolCalls'],
    expectedToolCalls: row.expectedToolCalls as Iteration['expectedToolCalls'],
    error: row.error,
    errorDetails: row.errorDetails ?? null,
    ...(row.metadata ? { metadata: row.metadata as NonNullable<Iteration['metadata']> } : {}),
    ...(row.externalIterationId ? { externalIterationId: row.externalIterationId } : {}),
    ...(row.traceExpiredAt ? { traceExpiredAt: row.traceExpiredAt.getTime() } : {}),
  };
}

/**
 * A stored trace is already in the wire shape: the worker writes it so, and ingest normalizes a reported one
 * (domain/ingest/trace.ts) before storing it.
 */
export const toTrace = (stored: Record<string, unknown>) => stored as z.input<typeof traceSchema>;
