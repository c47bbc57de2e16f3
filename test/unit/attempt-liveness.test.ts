import { describe, expect, it } from 'vitest';
import { AttemptLiveness, standstillLimitMs, WORKER_STOOD_STILL } from '../../activities/attemptLiveness.js';

/** Blocks this thread as a SIGSTOP would stop the process: no timer, no I/O, no ticker runs meanwhile. */
const standStill = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a batch attempt knows when its process stood still', () => {
  it('survives a running process, and refuses every write after a standstill at or past its limit', async () => {
    const liveness = new AttemptLiveness(200, 20);
    try {
      await tick(100);
      expect(() => liveness.check()).not.toThrow();
      standStill(250);
      // before the ticker ran again: the stretch since its last tick counts
      expect(() => liveness.check()).toThrow(
        expect.objectContaining({ type: WORKER_STOOD_STILL, nonRetryable: false }),
      );
      await tick(60);
      // after: the gap it saw is remembered, for the rest of the attempt
      expect(liveness.stoodStillMs()).toBeGreaterThanOrEqual(250);
      expect(() => liveness.check()).toThrow(/stood still for \d+ ms/);
    } finally {
      liveness.stop();
    }
  });

  it('a short stall (a GC pause, a busy moment) is not a standstill', async () => {
    const liveness = new AttemptLiveness(200, 20);
    try {
      standStill(50);
      await tick(40);
      expect(() => liveness.check()).not.toThrow();
    } finally {
      liveness.stop();
    }
  });

  it('the limit is a third of the heartbeat timeout, at most 5 s', () => {
    expect(standstillLimitMs(15_000)).toBe(5_000);
    expect(standstillLimitMs(60_000)).toBe(5_000);
    expect(standstillLimitMs(3_000)).toBe(1_000);
    expect(standstillLimitMs(undefined)).toBe(5_000);
  });
});
