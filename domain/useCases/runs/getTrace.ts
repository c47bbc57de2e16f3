import { requireRun } from '../../access/run.js';
import { notFound, OperationFailure } from '../../failures.js';
import type { RunStore } from '../../ports/runStore.js';
import type { Principal } from '../../principal.js';

/**
 * An iteration's full trace: messages, spans, expected vs actual. Stored in the wire shape: the worker writes it so,
 * and ingest normalizes a reported one (domain/ingest/trace.ts) before storing it.
 */
export function getTrace(deps: { runs: RunStore }) {
  return async function getTrace(input: {
    principal: Principal;
    projectId: string;
    runId: string;
    iterationId: string;
  }): Promise<Record<string, unknown>> {
    const run = await requireRun(deps.runs, input.principal, input);
    const iteration = await deps.runs.iteration(run.id, input.iterationId);
    if (!iteration) throw notFound('iteration', { iterationId: input.iterationId });
    const trace = await deps.runs.trace(iteration.id);
    // Retention deleted it (domain/useCases/retention/applyRetention.ts): say so, and when.
    if (!trace && iteration.traceExpiredAt)
      throw new OperationFailure(
        'NOT_FOUND',
        `trace expired on ${iteration.traceExpiredAt.toISOString().slice(0, 10)}: deleted by the organization's retention policy (the iteration's summary is kept)`,
        { reason: 'TRACE_EXPIRED', iterationId: iteration.id, expiredAt: iteration.traceExpiredAt.toISOString() },
      );
    if (!trace) throw notFound('trace', { iterationId: iteration.id, reason: 'TRACE_NOT_AVAILABLE' });
    return trace;
  };
}

export type GetTrace = ReturnType<typeof getTrace>;
