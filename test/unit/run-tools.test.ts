import { describe, expect, it } from 'vitest';
import type { McpOperations } from '../../domain/mcp/index.js';
import { RunToolListings } from '../../domain/evals/runTools.js';
import { SharedWork } from '../../domain/evals/sharedWork.js';
import type { SavedServer } from '../../domain/catalog/server.js';

const server = { id: 'srv_1', name: 'everything' } as SavedServer;

/** An MCP stand-in whose listings the test settles by hand, counting them. */
function fakeMcp() {
  const pending: Array<{ resolve: (tools: unknown[]) => void; reject: (error: Error) => void }> = [];
  const mcp = {
    listAllTools: () =>
      new Promise((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
  } as unknown as McpOperations;
  return { mcp, pending };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const echo = [{ name: 'echo', description: 'echoes', inputSchema: { type: 'object' } }];

describe('RunToolListings', () => {
  it("shares one listing among a run's batches that start together, and keeps it for maxAgeMs", async () => {
    const { mcp, pending } = fakeMcp();
    let now = 0;
    const listings = new RunToolListings(mcp, { maxAgeMs: 2_000, now: () => now });
    const signal = new AbortController().signal;
    const lanes = Array.from({ length: 8 }, () => listings.list('run_a', [server], signal));
    await tick();
    expect(pending).toHaveLength(1);
    pending[0].resolve(echo);
    const results = await Promise.all(lanes);
    expect(results.every((r) => r.tools[0].name === 'echo')).toBe(true);

    now = 1_500;
    void listings.list('run_a', [server], signal);
    await tick();
    expect(pending).toHaveLength(1);
    // another run lists its own
    void listings.list('run_b', [server], signal).catch(() => {});
    await tick();
    expect(pending).toHaveLength(2);
    // past maxAgeMs, the run lists again
    now = 3_600;
    void listings.list('run_a', [server], signal).catch(() => {});
    await tick();
    expect(pending).toHaveLength(3);
  });

  it('does not keep a failed listing: the next batch lists again', async () => {
    const { mcp, pending } = fakeMcp();
    const listings = new RunToolListings(mcp);
    const signal = new AbortController().signal;
    const first = listings.list('run_a', [server], signal);
    await tick();
    pending[0].reject(new Error('server gone'));
    await expect(first).rejects.toThrow('server gone');
    void listings.list('run_a', [server], signal).catch(() => {});
    await tick();
    expect(pending).toHaveLength(2);
  });

  it("stops one batch's wait when its signal aborts, without failing the others' listing", async () => {
    const { mcp, pending } = fakeMcp();
    const listings = new RunToolListings(mcp);
    const cancelled = new AbortController();
    const waiting = listings.list('run_a', [server], cancelled.signal);
    const other = listings.list('run_a', [server], new AbortController().signal);
    await tick();
    cancelled.abort(new Error('run cancelled'));
    await expect(waiting).rejects.toThrow('run cancelled');
    pending[0].resolve(echo);
    expect((await other).tools).toHaveLength(1);
  });

  it('keeps the listings of at most maxRuns runs', async () => {
    const { mcp } = fakeMcp();
    const listings = new RunToolListings(mcp, { maxRuns: 3 });
    const signal = new AbortController().signal;
    for (const run of ['a', 'b', 'c', 'd', 'e']) void listings.list(`run_${run}`, [server], signal).catch(() => {});
    expect(listings.size).toBe(3);
  });
});

describe('SharedWork', () => {
  it('with keepMs 0, shares work only while it is in flight', async () => {
    const shared = new SharedWork<number>({ keepMs: 0 });
    let started = 0;
    let finish: (value: number) => void = () => {};
    const work = () => {
      started += 1;
      return new Promise<number>((resolve) => (finish = resolve));
    };
    const together = [shared.get('run_a', work), shared.get('run_a', work)];
    expect(started).toBe(1);
    finish(7);
    expect(await Promise.all(together)).toEqual([7, 7]);
    await tick();
    expect(shared.size).toBe(0);
    void shared.get('run_a', work);
    expect(started).toBe(2);
  });
});
