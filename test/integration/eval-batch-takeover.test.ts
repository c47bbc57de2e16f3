import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { planRun } from '../../domain/evals/plan.js';
import { runIterationBatch, type BatchDeps } from '../../activities/runIterations.js';
import type { McpOperations } from '../../domain/mcp/index.js';
import { createLogger } from '../../runtime/logger.js';
import { parseHostedModels } from '../../domain/models/catalog.js';
import { fenceIterations } from '../../db/evalIterations.js';
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
    const { iterationIds } = await planRun(stack.sql, runId, { concurrency: 1 });
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
    const deps = (mcp: McpOperations): BatchDeps => ({
      sql: stack.sql,
      box: stack.box,
      mcp,
      catalog: parseHostedModels(''),
      log: createLogger('warn'),
    });
    const input = { runId, iterationIds, lastAttempt: 5 };
    const stale = await new MockActivityEnvironment({ ...info, attempt: 1 }).run(
      runIterationBatch,
      deps(takingOver),
      input,
    );
    expect(stale).toEqual({ completed: 0, passed: 0, failed: 0, errored: 0, tokens: 0 });
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
});
