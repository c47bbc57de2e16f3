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
import { newId } from '../../db/ids.js';
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
    expect(await completeIteration(db.sql, a, outcome('failed'), first)).toEqual({ completed: false });
    expect(await statusOf(a)).toEqual({ status: 'running', result: null });
    expect(await statusOf(b)).toEqual({ status: 'pending', result: null });
    expect(await claimIteration(db.sql, b, first)).toBe(false);
    // nor can it fence the batch back
    expect(await fenceIterations(db.sql, runId, [a, b], first)).toEqual(new Set());
    // attempt 2 stores its outcome and claims the next
    expect(await completeIteration(db.sql, a, outcome('passed'), second)).toEqual({ completed: true });
    expect(await claimIteration(db.sql, b, second)).toBe(true);
    expect(await statusOf(a)).toEqual({ status: 'completed', result: 'passed' });
    const [trace] = await db.sql<{ trace: unknown }[]>`SELECT trace FROM eval_traces WHERE iteration_id = ${a}`;
    expect(trace.trace).toEqual({ by: 'passed' });
    expect(await statusOf(b)).toEqual({ status: 'running', result: null });
  });

  it('a finished iteration is neither fenced nor completed again, not even by its own attempt', async () => {
    const [a] = await addIterations(1);
    await fenceIterations(db.sql, runId, [a], first);
    expect(await claimIteration(db.sql, a, first)).toBe(true);
    expect((await completeIteration(db.sql, a, outcome('passed'), first)).completed).toBe(true);
    expect((await completeIteration(db.sql, a, outcome('failed'), first)).completed).toBe(false);
    expect(await fenceIterations(db.sql, runId, [a], second)).toEqual(new Set());
    expect(await statusOf(a)).toEqual({ status: 'completed', result: 'passed' });
  });

  it('the batch of a workflow run since reset (another owner) takes over iterations the old run left running', async () => {
    const [a] = await addIterations(1);
    await fenceIterations(db.sql, runId, [a], { owner: 'wfrun-old/3', attempt: 4 });
    expect(await claimIteration(db.sql, a, { owner: 'wfrun-old/3', attempt: 4 })).toBe(true);
    const reset: ClaimFence = { owner: 'wfrun-new/3', attempt: 1 };
    expect(await fenceIterations(db.sql, runId, [a], reset)).toEqual(new Set([a]));
    expect(await claimIteration(db.sql, a, reset)).toBe(true);
    expect(
      (await completeIteration(db.sql, a, outcome('passed'), { owner: 'wfrun-old/3', attempt: 4 })).completed,
    ).toBe(false);
    expect((await completeIteration(db.sql, a, outcome('passed'), reset)).completed).toBe(true);
  });
});
