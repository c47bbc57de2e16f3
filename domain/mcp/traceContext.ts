import { randomBytes } from 'node:crypto';

/**
 * W3C Trace Context for MCP requests (SEP-414): a request carries `traceparent` in its params' `_meta`, so that a
 * server's own spans join the caller's trace. Runway gives each eval iteration a trace, and each request of it a span
 * of its own; a `traceparent` is version 00, sampled (flags 01): the iteration's trace is always recorded.
 */

/** The trace a request belongs to (an eval iteration's). */
export interface TraceContext {
  traceId: string;
}

const TRACE_ID = /^[0-9a-f]{32}$/;

/** Random hex of `bytes` bytes, never all zeros (W3C: an all-zero trace or span id is invalid). */
function randomId(bytes: number): string {
  for (;;) {
    const id = randomBytes(bytes).toString('hex');
    if (/[^0]/.test(id)) return id;
  }
}

/** A new trace id: 32 lowercase hex digits. */
export const newTraceId = (): string => randomId(16);

/** The `traceparent` of one request of the trace: the trace id and a new span id. */
export function traceparent(traceId: string): string {
  if (!TRACE_ID.test(traceId) || !/[^0]/.test(traceId))
    throw new RangeError(`not a W3C trace id (32 lowercase hex digits, not all zeros): ${JSON.stringify(traceId)}`);
  return `00-${traceId}-${randomId(8)}-01`;
}

/** A request's params with `_meta.traceparent` for the trace (its other `_meta` keys kept); unchanged without one. */
export function withTraceparent<P extends Record<string, unknown>>(
  params: P,
  trace: TraceContext | undefined,
): P & { _meta?: Record<string, unknown> } {
  if (!trace) return params;
  const meta = params._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: { ...meta, traceparent: traceparent(trace.traceId) } };
}
