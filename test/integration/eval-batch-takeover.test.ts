import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { planRun } from '../../domain/evals/plan.js';
import { runIterationBatch, type BatchDeps } from '../../activities/runIterations.js';
import type { McpOperations } from '../../domain/mcp/index.js';
import { createLogger } from '../../runtime/logger.js';
import { parseHostedModels } from '../../domain/models/catalog.js';
import { fenceIterations } from '../../db/evalIterations.js';
import { createSurfaceStore } from '../../db/toolSurfaces.js';
import { createRunSetupStore } from '../../db/runSetupStore.js';
import { startEvalWorld, type EvalWorld } from '../helpers/evals.js';

// A batch attempt that a newer attempt takes over while it is paused in an iteration (a worker frozen past its
// heartbeat timeout): its outcome is not stored, it claims nothing more and counts nothing; the newer attempt runs
// and counts every iteration once.

describe('a batch attempt taken over by a newer attempt', () => {
  let world: EvalWorld;

  beforeAll(async () => {
    world = await startEvalWorld();
  });
  afterAll(async () => world?.stop());

  /** what planning a run and a batch read and write, on the world's stack (as the worker composes it) */
  const setup = () => createRunSetupStore(world.stack.sql, world.stack.box);
  /** what a worker passes a batch, on the world's stack, with the MCP operations given */
  const deps = (mcp: McpOperations): BatchDeps => ({
    sql: world.stack.sql,
    setup: setup(),
    box: world.stack.box,
    mcp,
    catalog: parseHostedModels(''),
    log: createLogger('warn'),
    surfaces: createSurfaceStore(world.stack.sql),
  });

  it('stores and counts nothing of the stale attempt; the newer attempt runs and counts every iteration once', async () => {
    const { stack, model, org, call, serverId } = world;
    const queries = ['q0', 'q1', 'q2'];
    model.setScript('takeover', { byQuery: Object.fromEntries(queries.map((q) => [q, [{ text: 'no tools' }]])) });
    // No worker: the run's workflow waits, and this test plays its batch activity by hand.
    await stack.stopWorker();
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Takeover',
      serverIds: [serverId],
      modelApiKeys: { openai: 'sk-run' },
      tests: queries.map((q) => ({ title: q, query: q, model: 'takeover', provider: 'openai', isNegativeTest: true })),
    });
    expect(created.status).toBe(202);
    const runId = created.body.runId;
    const { iterationIds } = await planRun(setup(), runId, { concurrency: 1 });
    const info = { activityId: '3', workflowExecution: { workflowId: `eval-run:${runId}`, runId: 'wf-run-1' } };
    const owner = `wf-run-1/3`;

    // While attempt 1 lists the tools for its first iteration, attempt 2 takes the batch over. (The listing starts
    // while attempt 1 fences its batch: the takeover waits for attempt 1 to have claimed its first iteration.)
    const takingOver: McpOperations = {
      ...stack.mcp,
      listAllTools: async (...args) => {
        await vi.waitUntil(
          async () =>
            (await stack.sql`SELECT 1 FROM eval_iterations WHERE id = ${iterationIds[0]} AND status = 'running'`)
              .length === 1,
          { timeout: 10_000, interval: 5 },
        );
        await fenceIterations(stack.sql, runId, iterationIds, { owner, attempt: 2 });
        return await stack.mcp.listAllTools(...args);
      },
    };
    const input = { runId, iterationIds, lastAttempt: 5 };
    const stale = await new MockActivityEnvironment({ ...info, attempt: 1 }).run(
      runIterationBatch,
      deps(takingOver),
      input,
    );
    expect(stale).toEqual({ completed: 0, passed: 0, failed: 0, errored: 0, tokens: 0, costUsd: 0 });
    const stored = await stack.sql<
      { status: string }[]
    >`SELECT status FROM eval_iterations WHERE run_id = ${runId} ORDER BY seq`;
    expect(stored.map((r) => r.status)).toEqual(['running', 'pending', 'pending']);
    expect(model.calls('takeover')).toHaveLength(1);

    const fresh = await new MockActivityEnvironment({ ...info, attempt: 2 }).run(
      runIterationBatch,
      deps(stack.mcp),
      input,
    );
    expect(fresh).toMatchObject({ completed: 3, passed: 3, failed: 0 });
    const rows = await stack.sql<{ status: string; traces: number }[]>`
      SELECT i.status, (SELECT count(*)::int FROM eval_traces t WHERE t.iteration_id = i.id) AS traces
      FROM eval_iterations i WHERE i.run_id = ${runId} ORDER BY i.seq`;
    expect(rows).toEqual(queries.map(() => ({ status: 'completed', traces: 1 })));
  });

  it('an attempt whose worker stood still past its limit stores nothing of what it ran; the next attempt runs it', async () => {
    const { stack, model, org, call, serverId } = world;
    model.setScript('standstill', {
      byQuery: {
        still: [{ toolCalls: [{ name: 'echo', arguments: { message: 'still' } }] }, { text: 'done' }],
      },
    });
    await stack.stopWorker();
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Standstill',
      serverIds: [serverId],
      modelApiKeys: { openai: 'sk-run' },
      tests: [
        {
          title: 'still',
          query: 'still',
          model: 'standstill',
          provider: 'openai',
          expectedToolCalls: [{ toolName: 'echo' }],
        },
      ],
    });
    expect(created.status).toBe(202);
    const runId = created.body.runId;
    const { iterationIds } = await planRun(setup(), runId, { concurrency: 1 });
    // A 3 s heartbeat timeout: the attempt survives standstills below 1 s (activities/attemptLiveness.ts).
    const info = {
      activityId: '7',
      heartbeatTimeoutMs: 3_000,
      workflowExecution: { workflowId: `eval-run:${runId}`, runId: 'wf-run-still' },
    };
    // The worker stops (as SIGSTOP stops it) in the middle of the tool call: no timer, no heartbeat, no I/O runs.
    const stoppingOnce: McpOperations = {
      ...stack.mcp,
      callTool: async (...args) => {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_500);
        return await stack.mcp.callTool(...args);
      },
    };
    const input = { runId, iterationIds, lastAttempt: 5 };
    await expect(
      new MockActivityEnvironment({ ...info, attempt: 1 }).run(runIterationBatch, deps(stoppingOnce), input),
    ).rejects.toMatchObject({ type: 'WORKER_STOOD_STILL' });
    const [row] = await stack.sql<{ status: string; traces: number }[]>`
      SELECT i.status, (SELECT count(*)::int FROM eval_traces t WHERE t.iteration_id = i.id) AS traces
      FROM eval_iterations i WHERE i.run_id = ${runId}`;
    // It finished the iteration (both model turns) after waking up, and stored none of it.
    expect(model.calls('standstill')).toHaveLength(2);
    expect(row).toEqual({ status: 'running', traces: 0 });

    const next = await new MockActivityEnvironment({ ...info, attempt: 2 }).run(
      runIterationBatch,
      deps(stack.mcp),
      input,
    );
    expect(next).toMatchObject({ completed: 1, passed: 1 });
    expect(model.calls('standstill')).toHaveLength(4);
  });
});
