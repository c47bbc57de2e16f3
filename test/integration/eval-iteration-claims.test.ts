import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../db/connection.js';
import {
  claimIteration,
  completeIteration,
  fenceIterations,
  type ClaimFence,
  type IterationCompletion,
} from '../../db/evalIterations.js';
import { insertRun } from '../../db/evalRuns.js';
import { createSuite } from '../../db/evalSuites.js';
import { newId } from '../../domain/ids.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { seedOrganization } from '../helpers/seed.js';

// The claim fence of a batch's iterations (db/evalIterations.ts): the attempt that stamped an iteration last is the
// only one that claims and completes it; an older attempt that wakes up (a paused worker) gets nothing.

let db: TestDatabase;
let runId: string;

const outcome = (result: 'passed' | 'failed'): IterationCompletion => ({
  status: 'completed',
  result,
  model: 'm',
  provider: 'p',
  durationMs: 5,
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  costUsd: null,
  actualToolCalls: [],
  error: null,
  trace: { by: result },
});

async function addIterations(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('itr'));
  for (const [i, id] of ids.entries()) {
    await db.sql`INSERT INTO eval_iterations (id, run_id, title, iteration_number, status) VALUES (${id}, ${runId}, 'case', ${i + 1}, 'pending')`;
  }
  return ids;
}

/** when the attempt began the iteration (completeIteration fills in a start its claim did not leave) */
const began = new Date('2026-11-28T10:00:00.000Z');

const statusOf = async (id: string) =>
  (
    await db.sql<
      { status: string; result: string | null }[]
    >`SELECT status, result FROM eval_iterations WHERE id = ${id}`
  )[0];

beforeAll(async () => {
  db = await createTestDatabase();
  const org = await seedOrganization(db.sql);
  const suite = await createSuite(db.sql, { projectId: org.projectId, name: 'claims', source: 'api' });
  const run = await inTransaction(db.sql, (tx) =>
    insertRun(tx, {
      suiteId: suite.id,
      projectId: org.projectId,
      organizationId: org.organizationId,
      source: 'api',
      passCriteria: { minimumPassRate: 100 },
      serverIds: [],
    }),
  );
  runId = run.id;
});

afterAll(async () => {
  await db?.drop();
});

describe('claims fenced by batch attempt', () => {
  const first: ClaimFence = { owner: 'wfrun-1/3', attempt: 1 };
  const second: ClaimFence = { owner: 'wfrun-1/3', attempt: 2 };

  it('a stale attempt can neither claim nor complete what a newer attempt holds, and its completion reports nothing stored', async () => {
    const [a, b] = await addIterations(2);
    expect(await fenceIterations(db.sql, runId, [a, b], first)).toEqual(new Set([a, b]));
    expect(await claimIteration(db.sql, a, first)).toBe(true);
    // attempt 1 is paused while running a; attempt 2 takes the batch over
    expect(await fenceIterations(db.sql, runId, [a, b], second)).toEqual(new Set([a, b]));
    expect(await claimIteration(db.sql, a, second)).toBe(true);
    // attempt 1 wakes up: its completion of a stores nothing, and it claims nothing
    expect(await completeIteration(db.sql, a, outcome('failed'), first, began)).toEqual({ completed: false });
    expect(await statusOf(a)).toEqual({ status: 'running', result: null });
    expect(await statusOf(b)).toEqual({ status: 'pending', result: null });
    expect(await claimIteration(db.sql, b, first)).toBe(false);
    // nor can it fence the batch back
    expect(await fenceIterations(db.sql, runId, [a, b], first)).toEqual(new Set());
    // attempt 2 stores its outcome and claims the next
    expect(await completeIteration(db.sql, a, outcome('passed'), second, began)).toEqual({ completed: true });
    expect(await claimIteration(db.sql, b, second)).toBe(true);
    expect(await statusOf(a)).toEqual({ status: 'completed', result: 'passed' });
    const [trace] = await db.sql<{ trace: unknown }[]>`SELECT trace FROM eval_traces WHERE iteration_id = ${a}`;
    expect(trace.trace).toEqual({ by: 'passed' });
    expect(await statusOf(b)).toEqual({ status: 'running', result: null });
  });

  it('a finished iteration is neither fenced nor completed again; its own attempt repeating the write (a reply lost) is told it was stored', async () => {
    const [a] = await addIterations(1);
    await fenceIterations(db.sql, runId, [a], first);
    expect(await claimIteration(db.sql, a, first)).toBe(true);
    expect((await completeIteration(db.sql, a, outcome('passed'), first, began)).completed).toBe(true);
    // the same attempt again: the outcome it stored stays, and it hears "stored" (its first reply never arrived)
    expect((await completeIteration(db.sql, a, outcome('failed'), first, began)).completed).toBe(true);
    expect(await fenceIterations(db.sql, runId, [a], second)).toEqual(new Set());
    expect((await completeIteration(db.sql, a, outcome('failed'), second, began)).completed).toBe(false);
    expect(await statusOf(a)).toEqual({ status: 'completed', result: 'passed' });
    const traces = await db.sql`SELECT trace FROM eval_traces WHERE iteration_id = ${a}`;
    expect(traces.map((t) => t.trace)).toEqual([{ by: 'passed' }]);
  });

  it('completing an iteration whose claim was lost (a crash took back the unflushed claim) records when it started', async () => {
    const [a, b] = await addIterations(2);
    await fenceIterations(db.sql, runId, [a, b], first);
    // a: claimed, then the claim rolled back in a crash (pending again, no start); the attempt ran it all the same
    expect((await completeIteration(db.sql, a, outcome('passed'), first, began)).completed).toBe(true);
    // b: claimed as usual; the claim's own start stays
    expect(await claimIteration(db.sql, b, first)).toBe(true);
    expect((await completeIteration(db.sql, b, outcome('passed'), first, began)).completed).toBe(true);
    const rows = await db.sql<{ id: string; started_at: Date | null }[]>`
      SELECT id, started_at FROM eval_iterations WHERE id IN (${a}, ${b})`;
    const startOf = (id: string) => rows.find((r) => r.id === id)!.started_at;
    expect(startOf(a)).toEqual(began);
    expect(startOf(b)).not.toBeNull();
    expect(startOf(b)).not.toEqual(began);
  });

  it('the batch of a workflow run since reset (another owner) takes over iterations the old run left running', async () => {
    const [a] = await addIterations(1);
    await fenceIterations(db.sql, runId, [a], { owner: 'wfrun-old/3', attempt: 4 });
    expect(await claimIteration(db.sql, a, { owner: 'wfrun-old/3', attempt: 4 })).toBe(true);
    const reset: ClaimFence = { owner: 'wfrun-new/3', attempt: 1 };
    expect(await fenceIterations(db.sql, runId, [a], reset)).toEqual(new Set([a]));
    expect(await claimIteration(db.sql, a, reset)).toBe(true);
    expect(
      (await completeIteration(db.sql, a, outcome('passed'), { owner: 'wfrun-old/3', attempt: 4 }, began)).completed,
    ).toBe(false);
    expect((await completeIteration(db.sql, a, outcome('passed'), reset, began)).completed).toBe(true);
  });
});
