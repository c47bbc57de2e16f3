import { describe, expect, it, vi } from 'vitest';
import { whileDatabaseAway } from '../../activities/databaseWait.js';
import { reconnectDelaySeconds } from '../../db/connection.js';
import { isDatabaseUnreachable } from '../../db/unreachable.js';

const failure = (code: string) => Object.assign(new Error(code), { code });

/** A statement that fails with each of `errors` in turn, then answers. */
function flaky(errors: Error[]) {
  let calls = 0;
  const statement = async () => {
    calls += 1;
    const error = errors.shift();
    if (error) throw error;
    return 'stored';
  };
  return { statement, calls: () => calls };
}

describe('a database that cannot be reached', () => {
  it('is told apart from a statement the database refused', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'CONNECTION_CLOSED',
      'CONNECT_TIMEOUT',
      '57P01',
      '57P02',
      '57P03',
      '08006',
    ])
      expect(isDatabaseUnreachable(failure(code)), code).toBe(true);
    for (const code of ['23505', '22P02', '40001', '57014', 'CONNECTION_ENDED'])
      expect(isDatabaseUnreachable(failure(code)), code).toBe(false);
    expect(isDatabaseUnreachable(new Error('no code'))).toBe(false);
    expect(isDatabaseUnreachable(null)).toBe(false);
  });

  it('a batch statement is run again until the database answers, and told about each wait', async () => {
    const { statement, calls } = flaky([failure('ECONNREFUSED'), failure('57P03'), failure('CONNECTION_CLOSED')]);
    const waits: number[] = [];
    const answer = await whileDatabaseAway(statement, {
      signal: new AbortController().signal,
      maxWaitMs: 10_000,
      onWait: (_, attempt) => waits.push(attempt),
    });
    expect(answer).toBe('stored');
    expect(calls()).toBe(4);
    expect(waits).toEqual([1, 2, 3]);
  });

  it('a refused statement fails at once; a wait past its bound or a cancelled run stops waiting', async () => {
    const refused = flaky([failure('23505')]);
    await expect(
      whileDatabaseAway(refused.statement, { signal: new AbortController().signal, maxWaitMs: 10_000 }),
    ).rejects.toThrow('23505');
    expect(refused.calls()).toBe(1);

    // on fake timers: it gives up once its bound has passed (at most one more wait of 1 s), however busy the machine
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    try {
      const down = flaky(Array.from({ length: 1000 }, () => failure('ECONNREFUSED')));
      const gaveUp = expect(
        whileDatabaseAway(down.statement, { signal: new AbortController().signal, maxWaitMs: 300 }),
      ).rejects.toThrow('ECONNREFUSED');
      await vi.advanceTimersByTimeAsync(300 + 1_000);
      await gaveUp;
      expect(down.calls()).toBeGreaterThan(1);
    } finally {
      vi.useRealTimers();
    }

    const cancel = new AbortController();
    const waiting = whileDatabaseAway(flaky(Array.from({ length: 1000 }, () => failure('ECONNREFUSED'))).statement, {
      signal: cancel.signal,
      maxWaitMs: 60_000,
    });
    cancel.abort(new Error('run cancelled'));
    await expect(waiting).rejects.toThrow('run cancelled');
  });

  it('the pool reopens a failed connection within a second, however many failed before', () => {
    for (let failures = 1; failures <= 50; failures++) {
      const delay = reconnectDelaySeconds(failures);
      expect(delay).toBeGreaterThan(0);
      expect(delay).toBeLessThanOrEqual(1);
    }
    expect(reconnectDelaySeconds(1)).toBeLessThanOrEqual(0.05);
  });
});
