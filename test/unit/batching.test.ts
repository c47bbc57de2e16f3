import { describe, expect, it } from 'vitest';
import { BatchScheduler, defaultSizing, inFlightSizing, type BatchSizing } from '../../workflows/batching.js';
import { initialBatchSize } from '../../domain/evals/initialBatchSize.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `itr_${i}`);

/**
 * Plays a run through the scheduler the way the workflow does: `lanes` lanes, each taking a batch when it is free
 * and reporting how long it took (`perIterationMs` per iteration plus `overheadMs` per batch).
 */
function play(
  n: number,
  options: { lanes: number; perIterationMs: number; overheadMs?: number; sizing?: Partial<BatchSizing> },
) {
  const { lanes, perIterationMs, overheadMs = 10 } = options;
  const scheduler = new BatchScheduler(ids(n), { ...defaultSizing, lanes, initialSize: 4, ...options.sizing });
  const freeAt = Array.from({ length: lanes }, () => 0);
  const running: { endsAt: number; batch: string[]; startedAt: number }[] = [];
  const batches: string[][] = [];
  for (;;) {
    const now = Math.min(...freeAt);
    const lane = freeAt.indexOf(now);
    running.sort((a, b) => a.endsAt - b.endsAt);
    while (running.length > 0 && running[0].endsAt <= now) {
      const done = running.shift()!;
      scheduler.observe(done.batch, done.endsAt - done.startedAt);
    }
    const batch = scheduler.take(undefined, now);
    if (!batch) break;
    batches.push(batch);
    const endsAt = now + overheadMs + batch.length * perIterationMs;
    running.push({ endsAt, batch, startedAt: now });
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

  it('hands out nothing once the budget allows no iteration, and keeps the rest', () => {
    const scheduler = new BatchScheduler(ids(10), { ...defaultSizing, lanes: 2, initialSize: 4 });
    expect(scheduler.take(0)).toBeUndefined();
    expect(scheduler.remaining).toBe(10);
    expect(scheduler.take(3)).toEqual(ids(3));
    expect(scheduler.remaining).toBe(7);
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

  it('keeps the untimed size within 1..maxSize', () => {
    expect(new BatchScheduler(ids(500), { ...defaultSizing, lanes: 1, initialSize: 0 }).take()).toHaveLength(1);
    expect(new BatchScheduler(ids(500), { ...defaultSizing, lanes: 1, initialSize: 500 }).take()).toHaveLength(
      defaultSizing.maxSize,
    );
  });

  it('sizes for targetMs from the smoothed time per iteration, and ignores empty batches', () => {
    const scheduler = new BatchScheduler(ids(1000), { ...defaultSizing, lanes: 1, initialSize: 10 });
    scheduler.take();
    scheduler.observe(ids(0), 60_000);
    expect(scheduler.take()).toHaveLength(10);
    scheduler.observe(ids(10), 1_000); // 100 ms each: 5000 / 100
    expect(scheduler.take()).toHaveLength(50);
    scheduler.observe(ids(10), 3_000); // (100 + 300) / 2 = 200 ms each: 5000 / 200
    expect(scheduler.take()).toHaveLength(25);
  });

  it('enters the tail only once a fair share is worth less than minMs', () => {
    // 10 ms each, 2 lanes: a fair share of 50 is exactly minMs (500 ms), still not the tail; 25 is
    const scheduler = new BatchScheduler(ids(110), { ...defaultSizing, lanes: 2, initialSize: 10 });
    scheduler.take();
    scheduler.observe(ids(10), 100);
    expect([scheduler.take(), scheduler.take(), scheduler.take(), scheduler.take()].map((b) => b?.length)).toEqual([
      50,
      25,
      25,
      undefined,
    ]);
  });

  it('gives at most a fair share per lane near the end, then one last batch per lane', () => {
    // 10 ms each, 2 lanes: fair share is ceil(remaining / 2) while it is worth at least minMs (50 iterations)
    const scheduler = new BatchScheduler(ids(200), { ...defaultSizing, lanes: 2, initialSize: 10 });
    scheduler.take();
    scheduler.observe(ids(10), 100);
    expect(scheduler.take()).toHaveLength(95); // ceil(190 / 2) = 95, under maxSize (100) and targetMs / 10 ms (500)
    expect(scheduler.take()).toHaveLength(48); // ceil(95 / 2) = 48: 480 ms, below minMs: the tail starts here
    expect(scheduler.take()).toHaveLength(47); // the tail size, cut to what is left
    expect(scheduler.take()).toBeUndefined();
  });

  it('with the work in flight counted, lanes freed one after the other get equal batches and finish together', () => {
    const sizing = { initialSize: initialBatchSize(200, 8) };
    const without = play(200, { lanes: 8, perIterationMs: 200, overheadMs: 80, sizing });
    const counted = play(200, {
      lanes: 8,
      perIterationMs: 200,
      overheadMs: 80,
      sizing: { ...inFlightSizing, ...sizing },
    });
    expect(counted.batches.flat()).toEqual(ids(200));
    // 8 first batches of 4, then 8 of 21: two batches a lane; without, ever smaller batches as the lanes free up
    expect(counted.batches.map((b) => b.length)).toEqual([...Array(8).fill(4), ...Array(8).fill(21)]);
    expect(without.batches.length).toBeGreaterThan(2 * counted.batches.length - 4);
    expect(counted.makespan).toBeLessThan(without.makespan);
  });

  it('with the work in flight counted, a first timing inflated by the run start leaves no tail', () => {
    // the first batches of 4 took a second (the run's start, then 4 x 200 ms): 250 ms an iteration, 5 s would be 20
    const scheduler = new BatchScheduler(ids(200), { ...inFlightSizing, lanes: 8, initialSize: 4 });
    const first = Array.from({ length: 8 }, () => scheduler.take(undefined, 0)!);
    const sizes = first.map((batch, lane) => {
      scheduler.observe(batch, 1_000 + lane * 10);
      return scheduler.take(undefined, 1_000 + lane * 10)!.length;
    });
    expect(sizes).toEqual(Array(8).fill(21));
    expect(scheduler.remaining).toBe(0);
  });

  it('estimates what is left of a batch in flight from the time it has run', () => {
    const scheduler = new BatchScheduler(ids(100), { ...defaultSizing, lanes: 2, initialSize: 10, inFlight: true });
    const first = scheduler.take(undefined, 0)!;
    scheduler.take(undefined, 0);
    scheduler.observe(first, 1_000); // 100 ms each; the other lane's 10 are still running
    // at 500 ms the other batch has about 5 left: (80 + 5) / 2 = 42.5, rounded
    expect(scheduler.take(undefined, 500)).toHaveLength(43);
  });
});

describe('initialBatchSize', () => {
  it.each([
    // [iterations, lanes, size]: about 8 first batches per lane, at least 1 iteration, at most 25
    [0, 1, 1],
    [1, 8, 1],
    [64, 8, 1],
    [65, 8, 2],
    [100, 2, 7],
    [384, 2, 24],
    [385, 2, 25],
    [10_000, 1, 25],
    [10_000, 50, 25],
    [10_000, 100, 13],
  ])('%i iterations over %i lanes start with batches of %i', (iterations, lanes, size) => {
    expect(initialBatchSize(iterations, lanes)).toBe(size);
  });
});
