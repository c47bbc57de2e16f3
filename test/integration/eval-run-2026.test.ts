import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { fixtureOverStdio, saveServer, startModernHttp, type RunningServer } from '../helpers/mcpServers.js';
import type { TaskLog } from '../fixtures/mcp/tasks-extension.js';

/**
 * Eval runs against servers that speak only MCP 2026-07-28 (SDK v2): tool calls are made and scored through them,
 * a tool that answers with a task (Tasks extension) completes inside the iteration, and cancelling the run cancels
 * the task on the server.
 */
describe('eval runs against servers of the 2026-07-28 revision', () => {
  let world: EvalWorld;
  let modernHttp: RunningServer & { taskLog(): TaskLog };
  const servers: Record<string, string> = {};

  beforeAll(async () => {
    [world, modernHttp] = await Promise.all([startEvalWorld(), startModernHttp({ legacy: 'reject' })]);
    const { stack, org } = world;
    servers.stdio = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'modern-stdio',
      ...fixtureOverStdio('modern'),
    });
    servers.http = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'modern-http',
      transportType: 'http',
      url: modernHttp.url,
    });
  });
  afterAll(async () => {
    await world?.stop();
    await modernHttp?.stop();
  });

  it.each(['stdio', 'http'])(
    'scores tool calls made through a 2026-only server over %s, a task included',
    async (via) => {
      const { call, model, org } = world;
      model.setScript(`modern-${via}`, {
        byQuery: {
          'add them': [{ toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }, { text: 'It is 5.' }],
          'wait a bit': [
            { toolCalls: [{ name: 'slow_task', arguments: { ms: 200, pollIntervalMs: 50 } }] },
            { text: 'Done waiting.' },
          ],
        },
      });
      const common = { model: `modern-${via}`, provider: 'openai' };
      const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
        suiteName: `modern over ${via}`,
        serverIds: [servers[via]],
        modelApiKeys: { openai: 'sk-run' },
        tests: [
          {
            ...common,
            title: 'adds',
            query: 'add them',
            expectedToolCalls: [{ toolName: 'add', arguments: { a: 2, b: 3 } }],
            expectedOutput: '5',
          },
          { ...common, title: 'waits', query: 'wait a bit', expectedToolCalls: [{ toolName: 'slow_task' }] },
        ],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      const run = await waitForRun(call, org.projectId, created.body.runId);
      const iterations = await allIterations(call, org.projectId, created.body.runId);
      expect(run, JSON.stringify(iterations)).toMatchObject({
        status: 'completed',
        result: 'passed',
        summary: { total: 2, passed: 2 },
      });
      // What the model saw from the task is the task's result.
      const waited = iterations.find((i: { testCaseTitle?: string; title?: string }) =>
        JSON.stringify(i).includes('slow_task'),
      );
      const trace = await call(
        'GET',
        `/projects/${org.projectId}/eval-runs/${created.body.runId}/iterations/${waited.id}/trace`,
      );
      expect(JSON.stringify(trace.body)).toContain('Slept 200 ms');
    },
  );

  it('cancelling a run cancels the task its tool call is waiting for', async () => {
    const { call, model, org } = world;
    model.setScript('modern-cancel', [
      { toolCalls: [{ name: 'slow_task', arguments: { ms: 120_000, pollIntervalMs: 50 } }] },
      { text: 'never' },
    ]);
    const tasksBefore = modernHttp.taskLog().tasks.length;
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'modern cancel',
      serverIds: [servers.http],
      modelApiKeys: { openai: 'sk-run' },
      tests: [{ title: 'waits long', query: 'wait long', model: 'modern-cancel', provider: 'openai' }],
    });
    expect(created.status).toBe(202);
    // Wait until the server holds the task, then cancel the run.
    for (let i = 0; i < 300 && modernHttp.taskLog().tasks.length === tasksBefore; i++) await sleep(50);
    const task = modernHttp.taskLog().tasks.at(-1)!;
    expect(task).toMatchObject({ tool: 'slow_task', status: 'working' });
    const cancel = await call('POST', `/projects/${org.projectId}/eval-runs/${created.body.runId}/cancel`);
    expect(cancel.status).toBeLessThan(300);
    const run = await waitForRun(call, org.projectId, created.body.runId);
    expect(run.status).toBe('cancelled');
    for (let i = 0; i < 100 && !modernHttp.taskLog().cancelRequests.includes(task.taskId); i++) await sleep(50);
    expect(modernHttp.taskLog().cancelRequests).toContain(task.taskId);
  });
});
