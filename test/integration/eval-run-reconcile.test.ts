import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { startRunSweep } from '../../runtime/runReconciler.js';
import { insertRun, type RunRow } from '../../db/evalRuns.js';
import { evalRunWorkflowId } from '../../workflows/definitions.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import type { apiClient } from '../helpers/http.js';
import type { ScriptedModelServer } from '../fixtures/model/server.js';
import type { SeededOrganization } from '../helpers/seed.js';
import type { TestStack } from '../helpers/stack.js';

// What an operator does in Temporal Web UI (or with `temporal workflow terminate|reset|delete`) to a run's workflow,
// and what the run then looks like through the API: never `running` for good, never holding a run slot.
describe('eval runs whose workflow ended in Temporal without finalizing them', () => {
  let world: EvalWorld;
  let stack: TestStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;
  const keys = { openai: 'sk-run' };

  beforeAll(async () => {
    world = await startEvalWorld({ MAX_CONCURRENT_RUNS: '2' });
    ({ stack, model, org, call, serverId } = world);
  });
  afterAll(async () => world?.stop());

  const runsPath = () => `/projects/${org.projectId}/eval-runs`;
  const workflow = (runId: string) => stack.temporal.workflow.getHandle(evalRunWorkflowId(runId));
  const row = async (runId: string) => (await stack.sql<RunRow[]>`SELECT * FROM eval_runs WHERE id = ${runId}`)[0];
  const iterationStatuses = async (runId: string) =>
    (
      await stack.sql<
        { title: string; status: string }[]
      >`SELECT title, status FROM eval_iterations WHERE run_id = ${runId} ORDER BY seq`
    ).map((i) => [i.title, i.status]);
  const until = async (check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const testCase = (modelId: string, query: string) => ({
    title: query,
    query,
    model: modelId,
    provider: 'openai',
    isNegativeTest: true,
  });

  /** A run of two cases on its own model id: "fast" answers at once, "slow" waits in the model for two minutes. */
  const startSlowRun = async (suiteName: string, modelId: string) => {
    model.setScript(modelId, { byQuery: { fast: [{ text: 'quick' }], slow: [{ text: 'late', delayMs: 120_000 }] } });
    const reply = await call('POST', runsPath(), {
      suiteName,
      serverIds: [serverId],
      modelApiKeys: keys,
      tests: [testCase(modelId, 'fast'), testCase(modelId, 'slow')],
    });
    expect(reply.status).toBe(202);
    return reply.body.runId as string;
  };
  /** Mid-run: the fast iteration finished and the slow one waits in the model. */
  const midRun = async (runId: string, modelId: string) => {
    await waitForRun(call, org.projectId, runId, (r) => r.progress.completed === 1);
    await until(() => model.calls(modelId).some((c) => c.lastUserText === 'slow' && c.outcome === 'pending'));
  };
  /** Web UI's "Reset" to the first workflow task: a new execution of the same workflow id, from the start. */
  const resetToFirstWorkflowTask = async (runId: string, reason: string) => {
    const handle = workflow(runId);
    const { runId: executionId } = await handle.describe();
    const { events } = await handle.fetchHistory();
    const firstTask = events!.find((e) => e.workflowTaskCompletedEventAttributes)!;
    await stack.temporal.workflowService.resetWorkflowExecution({
      namespace: stack.config.TEMPORAL_NAMESPACE,
      workflowExecution: { workflowId: handle.workflowId, runId: executionId },
      workflowTaskFinishEventId: firstTask.eventId,
      reason,
      requestId: randomUUID(),
    });
  };
  /** A run row as POST /eval-runs writes it, with no workflow behind it (the API died before starting one). */
  const runWithoutWorkflow = async () => {
    const suite = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: `No workflow ${randomUUID()}`,
      serverIds: [serverId],
      model: 'quick',
      tests: [testCase('quick', 'q')],
    });
    expect(suite.status).toBe(201);
    return await stack.sql.begin((tx) =>
      insertRun(tx, {
        suiteId: suite.body.suiteId,
        projectId: org.projectId,
        organizationId: org.organizationId,
        source: 'api',
        passCriteria: { minimumPassRate: 100 },
        serverIds: [serverId],
      }),
    );
  };

  it('a run terminated in Temporal reads failed with the reason; its open iterations are cancelled, what finished is summarized', async () => {
    const runId = await startSlowRun('Terminated', 'slow-terminated');
    await midRun(runId, 'slow-terminated');
    await workflow(runId).terminate('stuck; terminated by the on-call operator');

    const run = await waitForRun(call, org.projectId, runId, undefined, 15_000);
    expect(run).toMatchObject({
      status: 'failed',
      result: 'failed',
      error: 'the workflow was terminated in Temporal: stuck; terminated by the on-call operator',
      summary: { total: 1, passed: 1, failed: 0 },
      progress: { total: 2, completed: 1, passed: 1 },
    });
    expect(run.completedAt).toBeGreaterThanOrEqual(run.createdAt);
    expect((await allIterations(call, org.projectId, runId)).map((i) => [i.title, i.status])).toEqual([
      ['fast', 'completed'],
      ['slow', 'cancelled'],
    ]);
    // as for any run that ended, its per-run model keys are gone
    expect(await row(runId)).toMatchObject({ status: 'failed', model_keys_enc: null });
    // the worker learnt of the termination too: the model call in flight was aborted
    await until(() => model.calls('slow-terminated').some((c) => c.lastUserText === 'slow' && c.outcome === 'aborted'));
    // a late read changes nothing
    expect((await call('GET', `${runsPath()}/${runId}`)).body).toEqual(run);
  });

  it('two terminated runs do not lock the organization out: the next POST /eval-runs starts, with no read in between', async () => {
    const first = await startSlowRun('Capped 1', 'slow-cap');
    const second = await startSlowRun('Capped 2', 'slow-cap');
    const refused = await call('POST', runsPath(), {
      suiteName: 'Capped 3',
      serverIds: [serverId],
      modelApiKeys: keys,
      tests: [testCase('slow-cap', 'fast')],
    });
    expect(refused).toMatchObject({ status: 429, body: { details: { reason: 'CONCURRENT_RUN_LIMIT' } } });

    await workflow(first).terminate('freeing the slot');
    await workflow(second).terminate('freeing the slot');
    const third = await call('POST', runsPath(), {
      suiteName: 'Capped 3',
      serverIds: [serverId],
      modelApiKeys: keys,
      tests: [testCase('slow-cap', 'fast')],
    });
    expect(third.status).toBe(202);
    for (const runId of [first, second]) {
      expect(await row(runId)).toMatchObject({
        status: 'failed',
        result: 'failed',
        error: 'the workflow was terminated in Temporal: freeing the slot',
      });
      expect(
        (await iterationStatuses(runId)).filter(([, status]) => status === 'pending' || status === 'running'),
      ).toEqual([]);
    }
    expect(await waitForRun(call, org.projectId, third.body.runId)).toMatchObject({
      status: 'completed',
      result: 'passed',
    });
  });

  it('the periodic sweep alone ends a terminated run: no read, no new run', async () => {
    const runId = await startSlowRun('Swept', 'slow-swept');
    await until(async () => (await row(runId)).started_at !== null);
    await workflow(runId).terminate('swept');
    // nobody reads the run: it stays running in the database until the sweep comes by
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await row(runId)).status).toBe('running');

    const sweep = startRunSweep(stack.app.reconciler, { intervalMs: 200, log: createLogger('silent') });
    try {
      await until(async () => (await row(runId)).status !== 'running');
    } finally {
      await sweep.stop();
    }
    expect(await row(runId)).toMatchObject({
      status: 'failed',
      error: 'the workflow was terminated in Temporal: swept',
      model_keys_enc: null,
    });
    expect(
      (await iterationStatuses(runId)).filter(([, status]) => status === 'pending' || status === 'running'),
    ).toEqual([]);
  });

  it('cancelling a run whose workflow was terminated answers 409 with what the run became', async () => {
    const runId = await startSlowRun('Cancel after terminate', 'slow-cancel');
    await workflow(runId).terminate('gone');
    const reply = await call('POST', `${runsPath()}/${runId}/cancel`);
    expect(reply).toMatchObject({ status: 409, body: { code: 'CONFLICT', details: { status: 'failed' } } });
    expect(await row(runId)).toMatchObject({
      status: 'failed',
      error: 'the workflow was terminated in Temporal: gone',
    });
  });

  it('a run whose workflow never started fails once it is clearly not starting; one whose workflow was deleted fails at once', async () => {
    const orphan = await runWithoutWorkflow();
    // just written: its workflow may still be starting
    expect((await call('GET', `${runsPath()}/${orphan.id}`)).body.status).toBe('running');
    await stack.sql`UPDATE eval_runs SET created_at = now() - interval '10 minutes' WHERE id = ${orphan.id}`;
    expect(await waitForRun(call, org.projectId, orphan.id, undefined, 15_000)).toMatchObject({
      status: 'failed',
      result: 'failed',
      error: expect.stringContaining('the workflow of this run does not exist in Temporal'),
      summary: { total: 0 },
    });

    const runId = await startSlowRun('Deleted', 'slow-deleted');
    await midRun(runId, 'slow-deleted');
    await stack.temporal.workflowService.deleteWorkflowExecution({
      namespace: stack.config.TEMPORAL_NAMESPACE,
      workflowExecution: { workflowId: evalRunWorkflowId(runId) },
    });
    expect(await waitForRun(call, org.projectId, runId, undefined, 15_000)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('the workflow of this run does not exist in Temporal'),
      summary: { total: 1, passed: 1 },
    });
    expect(await iterationStatuses(runId)).toEqual([
      ['fast', 'completed'],
      ['slow', 'cancelled'],
    ]);
  });

  it('a run whose workflow timed out reads failed, timed out', async () => {
    const orphan = await runWithoutWorkflow();
    // a workflow with an execution timeout, on a task queue no worker polls: it times out in Temporal
    const handle = await stack.temporal.workflow.start('evalRun', {
      taskQueue: `nobody-${randomUUID()}`,
      workflowId: evalRunWorkflowId(orphan.id),
      args: [{ runId: orphan.id }],
      workflowExecutionTimeout: '1 second',
    });
    await expect(handle.result()).rejects.toThrow();
    expect(await waitForRun(call, org.projectId, orphan.id, undefined, 15_000)).toMatchObject({
      status: 'failed',
      result: 'failed',
      error: expect.stringContaining('the workflow timed out in Temporal'),
    });
  });

  it('reset of a running run in Temporal: the reset workflow carries on with the same run and finishes it', async () => {
    const runId = await startSlowRun('Reset mid-run', 'slow-reset');
    await midRun(runId, 'slow-reset');
    // the re-run's slow iteration answers at once
    model.setScript('slow-reset', { byQuery: { fast: [{ text: 'quick' }], slow: [{ text: 'in time' }] } });
    await resetToFirstWorkflowTask(runId, 'operator: re-run from the start');

    const run = await waitForRun(call, org.projectId, runId, undefined, 30_000);
    expect(run).toMatchObject({
      status: 'completed',
      result: 'passed',
      error: null,
      summary: { total: 2, passed: 2 },
      progress: { total: 2, completed: 2 },
    });
    expect(await iterationStatuses(runId)).toEqual([
      ['fast', 'completed'],
      ['slow', 'completed'],
    ]);
    // what had finished before the reset was not run again
    expect(model.calls('slow-reset').filter((c) => c.lastUserText === 'fast')).toHaveLength(1);
  });

  it('reset of a finished run re-runs nothing: the run, its iterations and its summary stay as they were', async () => {
    model.setScript('quick-reset', [{ text: 'ok' }]);
    const created = await call('POST', runsPath(), {
      suiteName: 'Reset after finish',
      serverIds: [serverId],
      modelApiKeys: keys,
      tests: [{ ...testCase('quick-reset', 'first'), runs: 2 }],
    });
    expect(created.status).toBe(202);
    const runId = created.body.runId;
    const finished = await waitForRun(call, org.projectId, runId);
    expect(finished).toMatchObject({ status: 'completed', result: 'passed', summary: { total: 2 } });
    // the suite gains a case afterwards (a later run adds it)
    const later = await call('POST', runsPath(), {
      suiteId: created.body.suiteId,
      modelApiKeys: keys,
      tests: [testCase('quick-reset', 'added later')],
    });
    expect(later.status).toBe(202);
    await waitForRun(call, org.projectId, later.body.runId);
    const before = {
      run: await row(runId),
      iterations: await allIterations(call, org.projectId, runId),
      calls: model.calls('quick-reset').length,
    };

    await resetToFirstWorkflowTask(runId, 'operator: reset a finished run');
    expect(await workflow(runId).result()).toMatchObject({ status: 'completed', result: 'passed' });
    expect(await row(runId)).toEqual(before.run);
    expect(await allIterations(call, org.projectId, runId)).toEqual(before.iterations);
    expect((await call('GET', `${runsPath()}/${runId}`)).body).toEqual(finished);
    expect(model.calls('quick-reset')).toHaveLength(before.calls);
  });

  it('reset of a run Runway already ended (terminated, then reconciled) re-runs nothing: the run stays failed', async () => {
    const runId = await startSlowRun('Reset after terminate', 'slow-reset-ended');
    await midRun(runId, 'slow-reset-ended');
    await workflow(runId).terminate('terminated by mistake');
    const ended = await waitForRun(call, org.projectId, runId, undefined, 15_000);
    expect(ended).toMatchObject({
      status: 'failed',
      error: 'the workflow was terminated in Temporal: terminated by mistake',
    });
    const before = {
      run: await row(runId),
      iterations: await allIterations(call, org.projectId, runId),
      calls: model.calls('slow-reset-ended').length,
    };

    // were anything re-run, it would now finish at once
    model.setScript('slow-reset-ended', { byQuery: { fast: [{ text: 'quick' }], slow: [{ text: 'in time' }] } });
    await resetToFirstWorkflowTask(runId, 'operator: undo the termination');
    expect(await workflow(runId).result()).toMatchObject({ status: 'failed', result: 'failed' });
    expect(await row(runId)).toEqual(before.run);
    expect(await allIterations(call, org.projectId, runId)).toEqual(before.iterations);
    expect((await call('GET', `${runsPath()}/${runId}`)).body).toEqual(ended);
    expect(model.calls('slow-reset-ended')).toHaveLength(before.calls);
  });
});
