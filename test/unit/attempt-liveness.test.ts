import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AttemptLiveness, standstillLimitMs, WORKER_STOOD_STILL } from '../../activities/attemptLiveness.js';

/**
 * The ticker runs on fake timers and the clock is the test's: a standstill (SIGSTOP, a starved process) is the clock
 * moving while no timer runs, so no assertion depends on how busy the machine is.
 */
let clock = 0;
/** The process runs for `ms`: the clock moves and every timer due meanwhile fires. */
const run = (ms: number) => {
  for (let step = 0; step < ms; step += 5) {
    clock += 5;
    vi.advanceTimersByTime(5);
  }
};
/** The process stands still for `ms`: the clock moves, no timer and no ticker runs. */
const standStill = (ms: number) => {
  clock += ms;
};
const liveness = () => new AttemptLiveness(200, 20, () => clock);

describe('a batch attempt knows when its process stood still', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    clock = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('survives a running process, and refuses every write after a standstill at or past its limit', () => {
    const attempt = liveness();
    try {
      run(100);
      expect(() => attempt.check()).not.toThrow();
      standStill(250);
      // before the ticker ran again: the stretch since its last tick counts
      expect(() => attempt.check()).toThrow(expect.objectContaining({ type: WORKER_STOOD_STILL, nonRetryable: false }));
      run(60);
      // after: the gap it saw is remembered, for the rest of the attempt
      expect(attempt.stoodStillMs()).toBeGreaterThanOrEqual(250);
      expect(() => attempt.check()).toThrow(/stood still for \d+ ms/);
    } finally {
      attempt.stop();
    }
  });

  it('a short stall (a GC pause, a busy moment) is not a standstill', () => {
    const attempt = liveness();
    try {
      standStill(50);
      run(40);
      expect(() => attempt.check()).not.toThrow();
      // under the limit with the time since the last tick, before and after the ticker saw it
      standStill(150);
      expect(() => attempt.check()).not.toThrow();
      run(40);
      expect(() => attempt.check()).not.toThrow();
    } finally {
      attempt.stop();
    }
  });

  it('the limit is a third of the heartbeat timeout, at most 5 s', () => {
    expect(standstillLimitMs(15_000)).toBe(5_000);
    expect(standstillLimitMs(60_000)).toBe(5_000);
    expect(standstillLimitMs(3_000)).toBe(1_000);
    expect(standstillLimitMs(undefined)).toBe(5_000);
  });
});
