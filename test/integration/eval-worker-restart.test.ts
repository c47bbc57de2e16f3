import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import type { apiClient } from '../helpers/http.js';
import type { ScriptedModelServer } from '../fixtures/model/server.js';
import type { SeededOrganization } from '../helpers/seed.js';
import type { TestStack } from '../helpers/stack.js';

describe('a worker restarted mid-run', () => {
  let world: EvalWorld;
  let stack: TestStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;

  beforeAll(async () => {
    world = await startEvalWorld({ EVAL_ITERATION_CONCURRENCY: '2' });
    ({ stack, model, org, call, serverId } = world);
  });
  afterAll(async () => world?.stop());

  it('finishes the run with every iteration exactly once, and no finished iteration runs again', async () => {
    const queries = Array.from({ length: 24 }, (_, i) => `question ${String(i).padStart(2, '0')}`);
    // The first 8 answer at once; the rest slowly until the worker is stopped, so that the batch in flight cannot
    // finish the run within the worker's shutdown grace time (10 s, in which it drains what it holds).
    const script = (slowMs: number) => ({
      byQuery: Object.fromEntries(
        queries.map((q, i) => {
          const delayMs = i < 8 ? 60 : slowMs;
          return [
            q,
            [
              { toolCalls: [{ name: 'echo', arguments: { message: q } }], delayMs },
              { text: 'ok', delayMs },
            ],
          ];
        }),
      ),
    });
    model.setScript('steady', script(1500));
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Restart',
      serverIds: [serverId],
      modelApiKeys: { openai: 'sk-run' },
      tests: queries.map((q) => ({
        title: q,
        query: q,
        model: 'steady',
        provider: 'openai',
        expectedToolCalls: [{ toolName: 'echo', arguments: { message: q } }],
      })),
    });
    expect(created.status).toBe(202);
    const runId = created.body.runId;

    await waitForRun(call, org.projectId, runId, (r) => r.progress.completed >= 6);
    await stack.stopWorker();
    const finishedBefore = (await allIterations(call, org.projectId, runId))
      .filter((i) => i.status === 'completed')
      .map((i) => i.title);
    expect(finishedBefore.length).toBeGreaterThanOrEqual(6);
    expect(finishedBefore.length).toBeLessThan(24);

    // No worker answers the progress query: polling falls back to the database and still answers quickly.
    const started = Date.now();
    const polled = await call('GET', `/projects/${org.projectId}/eval-runs/${runId}`);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(polled.body).toMatchObject({ status: 'running', progress: { total: 24, completed: finishedBefore.length } });

    model.setScript('steady', script(60));
    await stack.startWorker();
    const run = await waitForRun(call, org.projectId, runId);
    expect(run).toMatchObject({
      status: 'completed',
      result: 'passed',
      summary: { total: 24, passed: 24 },
      progress: { total: 24, completed: 24 },
    });

    const rows = await stack.sql<{ title: string; n: number }[]>`
      SELECT title, count(*)::int AS n FROM eval_iterations WHERE run_id = ${runId} GROUP BY title`;
    expect(rows).toHaveLength(24);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    // An iteration that had finished before the restart asked the model exactly once per turn.
    for (const title of finishedBefore) {
      const turns = model
        .calls('steady')
        .filter((c) => c.lastUserText === title)
        .map((c) => c.turnIndex);
      expect(turns, title).toEqual([0, 1]);
    }
  });
});
