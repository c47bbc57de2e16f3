import { describe, expect, it } from 'vitest';
import { newTraceId, traceparent, withTraceparent } from '../../domain/mcp/traceContext.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('trace context (W3C traceparent, SEP-414)', () => {
  it('makes trace ids of 32 lowercase hex digits, never all zeros, each new', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newTraceId()));
    expect(ids.size).toBe(100);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(id).not.toBe('0'.repeat(32));
    }
  });

  it('gives every request of a trace its own span id under the same trace id', () => {
    const traceId = newTraceId();
    const parents = Array.from({ length: 50 }, () => traceparent(traceId));
    const spans = new Set<string>();
    for (const parent of parents) {
      const [, trace, span] = TRACEPARENT.exec(parent) ?? [];
      expect(trace).toBe(traceId);
      expect(span).not.toBe('0'.repeat(16));
      spans.add(span!);
    }
    expect(spans.size).toBe(50);
  });

  it('refuses a trace id that W3C does not allow', () => {
    for (const bad of ['', '0'.repeat(32), 'A'.repeat(32), 'f'.repeat(31), 'g'.repeat(32)])
      expect(() => traceparent(bad), bad).toThrow(/trace id/);
  });

  it("adds traceparent to a request's _meta, keeping its other keys, and changes nothing without a trace", () => {
    const params = { name: 'echo', arguments: { message: 'hi' }, _meta: { progressToken: 7 } };
    expect(withTraceparent(params, undefined)).toBe(params);
    const traced = withTraceparent(params, { traceId: 'a'.repeat(32) });
    expect(traced).toEqual({
      name: 'echo',
      arguments: { message: 'hi' },
      _meta: { progressToken: 7, traceparent: expect.stringMatching(TRACEPARENT) },
    });
    expect(params._meta).toEqual({ progressToken: 7 });
    expect(withTraceparent({ taskId: 't1' }, { traceId: 'b'.repeat(32) })._meta).toEqual({
      traceparent: expect.stringMatching(/^00-b{32}-/),
    });
  });
});
