import { describe, expect, it } from 'vitest';
import { BatchScheduler, defaultSizing, type BatchSizing } from '../../workflows/batching.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `itr_${i}`);

/**
 * Plays a run through the scheduler the way the workflow does: `lanes` lanes, each taking a batch when it is free
 * and reporting how long it took (`perIterationMs` per iteration plus `overheadMs` per batch).
 */
function play(n: number, options: { lanes: number; perIterationMs: number; overheadMs?: number; sizing?: Partial<BatchSizing> }) {
  const { lanes, perIterationMs, overheadMs = 10 } = options;
  const scheduler = new BatchScheduler(ids(n), { ...defaultSizing, lanes, initialSize: 4, ...options.sizing });
  const freeAt = Array.from({ length: lanes }, () => 0);
  const running: { endsAt: number; count: number; startedAt: number }[] = [];
  const batches: string[][] = [];
  for (;;) {
    const now = Math.min(...freeAt);
    const lane = freeAt.indexOf(now);
    running.sort((a, b) => a.endsAt - b.endsAt);
    while (running.length > 0 && running[0].endsAt <= now) {
      const done = running.shift()!;
      scheduler.observe(done.count, done.endsAt - done.startedAt);
    }
    const batch = scheduler.take();
    if (!batch) break;
    batches.push(batch);
    const endsAt = now + overheadMs + batch.length * perIterationMs;
    running.push({ endsAt, count: batch.length, startedAt: now });
    freeAt[lane] = endsAt;
  }
  return { batches, makespan: Math.max(...freeAt), ideal: (n * perIterationMs) / lanes };
}

describe('BatchScheduler', () => {
  it('hands out every iteration exactly once, in order', () => {
    for (const perIterationMs of [1, 20, 3000]) {
      const { batches } = play(997, { lanes: 8, perIterationMs });
      expect(batches.flat()).toEqual(ids(997));
      expect(batches.every((b) => b.length >= 1 && b.length <= defaultSizing.maxSize)).toBe(true);
    }
  });

  it('uses the initial size until a batch has been timed', () => {
    const scheduler = new BatchScheduler(ids(100), { ...defaultSizing, lanes: 8, initialSize: 3 });
    expect(Array.from({ length: 4 }, () => scheduler.take()!.length)).toEqual([3, 3, 3, 3]);
  });

  it('gives fast iterations large batches, so a run costs few activities', () => {
    const { batches, makespan, ideal } = play(1000, { lanes: 8, perIterationMs: 20 });
    expect(batches.length).toBeLessThanOrEqual(40);
    expect(Math.max(...batches.map((b) => b.length))).toBe(defaultSizing.maxSize);
    expect(makespan).toBeLessThan(ideal * 1.15);
  });

  it('gives slow iterations batches of about targetMs of work, never more', () => {
    const { batches } = play(200, { lanes: 8, perIterationMs: 3000 });
    // after the first (untimed) batches, each holds floor(5000 / ~3000) = 1 iteration
    expect(batches.slice(8).every((b) => b.length === 1)).toBe(true);
  });

  it('keeps every lane busy to the end of a small run instead of one lane finishing it alone', () => {
    const { makespan, ideal } = play(100, { lanes: 8, perIterationMs: 20 });
    expect(makespan).toBeLessThan(ideal * 1.4);
  });

  it('cuts the tail once, one batch per lane, rather than into ever smaller batches', () => {
    const { batches } = play(1000, { lanes: 8, perIterationMs: 20 });
    const sizes = batches.map((b) => b.length);
    const tail = sizes.slice(sizes.indexOf(Math.min(...sizes.slice(8, -1))));
    expect(tail.length).toBeLessThanOrEqual(9);
    expect(new Set(tail.slice(0, -1)).size).toBe(1);
  });

  it('replays identically: the same observations give the same batches', () => {
    const first = play(500, { lanes: 4, perIterationMs: 35 }).batches;
    const second = play(500, { lanes: 4, perIterationMs: 35 }).batches;
    expect(second).toEqual(first);
  });
});
