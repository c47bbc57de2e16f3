import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRunBody } from '../../../api/schemas/evals.js';
import { getRun } from '../../../db/evalRuns.js';
import { createScheduledSuites } from '../../../db/runStore.js';
import { setOrganizationLimits } from '../../../db/organizationLimits.js';
import { setProviderKey } from '../../../db/providerKeys.js';
import { OperationFailure } from '../../../domain/failures.js';
import type { RunEndedEvent } from '../../../domain/ports/runEnded.js';
import type { RunWorkflows } from '../../../domain/ports/runWorkflows.js';
import { cancelRun } from '../../../domain/useCases/runs/cancelRun.js';
import { finalizeRun } from '../../../domain/useCases/runs/finalizeRun.js';
import { promoteQueuedRuns } from '../../../domain/useCases/runs/promoteQueuedRuns.js';
import { startRun } from '../../../domain/useCases/runs/startRun.js';
import { startScheduledRun } from '../../../domain/useCases/runs/startScheduledRun.js';
import { startRunsWorld, type RunsWorld } from '../../helpers/runUseCases.js';

const CAP = 2;
const MAX_QUEUED = 3;

/** What a use case threw: its code, details and Retry-After, as the API would answer them. */
const failure = async (work: Promise<unknown>) => {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OperationFailure);
  const { code, details, retryAfterSeconds } = error as OperationFailure;
  return { code, details, retryAfterSeconds };
};

// The queue's rules (issue 33) on a real database, without Temporal or HTTP: the workflows' port records what it is
// asked to start. The cap is CAP, the bound on queued runs MAX_QUEUED.
describe('queued runs (use cases)', () => {
  let world: RunsWorld;
  const started: string[] = [];
  const ended: RunEndedEvent[] = [];
  const workflows: Pick<RunWorkflows, 'start'> = { start: async (run) => void started.push(run.id) };
  let queue: ReturnType<typeof promoteQueuedRuns>;
  let endRun: ReturnType<typeof finalizeRun>;
  let start: ReturnType<typeof startRun>;
  let suites = 0;

  beforeAll(async () => {
    world = await startRunsWorld();
    endRun = finalizeRun({
      runs: world.runs,
      runEnded: async (event) => {
        ended.push(event);
      },
    });
    const deps = {
      setup: world.creation.setup,
      suites: createScheduledSuites(world.sql),
      workflows,
      finalizeRun: endRun,
      maxConcurrentRuns: CAP,
      defaultConcurrency: 2,
      log: { info: () => {}, warn: () => {} },
    };
    queue = promoteQueuedRuns(deps);
    start = startRun({
      ...world.creation,
      maxConcurrentRuns: CAP,
      maxQueuedRuns: MAX_QUEUED,
      workflows,
      finalizeRun: endRun,
      queue,
    });
  });
  afterAll(async () => world?.stop());
  beforeEach(async () => {
    // every test starts from an organization with nothing running or queued
    await world.sql`UPDATE eval_runs SET status = 'cancelled', completed_at = now() WHERE status IN ('running', 'queued')`;
    await setOrganizationLimits(world.sql, world.org.organizationId, { queueRuns: false });
    started.length = 0;
    ended.length = 0;
  });

  const runOf = (more: Record<string, unknown> = {}) =>
    start({
      principal: world.principal,
      projectId: world.org.projectId,
      request: createRunBody.parse({
        suiteName: `queue suite ${++suites}`,
        serverIds: [world.serverId],
        modelApiKeys: { openai: 'sk-run' },
        tests: [{ title: 'a case', query: 'a query', provider: 'openai', model: 'model-a' }],
        ...more,
      }),
    });
  const statusOf = async (runId: string) => (await getRun(world.sql, runId))!.status;
  const positions = async (runIds: string[]) => {
    const map = await world.runs.queuePositions(runIds);
    return runIds.map((id) => map.get(id));
  };
  const iterationsOf = async (runId: string) =>
    (await world.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM eval_iterations WHERE run_id = ${runId}`)[0].n;

  it('queues past the cap only when asked, reports 1-based positions, and starts the oldest first as slots free', async () => {
    const running = [await runOf(), await runOf()];
    expect(running.map((r) => r.run.status)).toEqual(['running', 'running']);
    // not asked: refused as before, with a hint
    expect(await failure(runOf())).toMatchObject({
      code: 'RATE_LIMITED',
      details: { reason: 'CONCURRENT_RUN_LIMIT', activeRuns: CAP },
      retryAfterSeconds: 10,
    });
    const first = await runOf({ queue: true });
    const second = await runOf({ queue: true });
    expect(first.run.status).toBe('queued');
    expect(first.queue).toEqual({ position: 1 });
    expect(second.queue).toEqual({ position: 2 });
    // a queued run has no workflow and no plan until its turn
    expect(started).toEqual(running.map((r) => r.run.id));
    expect(await iterationsOf(first.run.id)).toBe(0);

    // A run that does not ask to queue never overtakes the queue, even with a slot free before the queue moves.
    await world.sql`UPDATE eval_runs SET status = 'cancelled' WHERE id = ${running[0].run.id}`;
    expect(await failure(runOf())).toMatchObject({ details: { reason: 'CONCURRENT_RUN_LIMIT', queuedRuns: 2 } });

    // The promotion takes the oldest queued run: running, planned, its workflow started.
    expect((await queue.promote(world.org.organizationId)).map((r) => r.id)).toEqual([first.run.id]);
    expect(await statusOf(first.run.id)).toBe('running');
    expect(await iterationsOf(first.run.id)).toBe(1);
    expect(started.at(-1)).toBe(first.run.id);
    expect(await positions([first.run.id, second.run.id])).toEqual([undefined, 1]);
    // the cap is full again: nothing more starts
    expect(await queue.promote(world.org.organizationId)).toEqual([]);

    // A run ending (finalizeRun tells RunEnded; the queue listens) starts the next one.
    await endRun({ runId: running[1].run.id, outcome: 'completed' });
    await queue.onRunEnded(ended.at(-1)!);
    expect(await statusOf(second.run.id)).toBe('running');
    expect(started.at(-1)).toBe(second.run.id);
  });

  it('starts each queued run once and never exceeds the cap when many promoters race (API replicas)', async () => {
    await runOf();
    await runOf();
    const queued = [await runOf({ queue: true }), await runOf({ queue: true }), await runOf({ queue: true })];
    await world.sql`UPDATE eval_runs SET status = 'cancelled' WHERE status = 'running'`;
    started.length = 0;
    // eight promoters at once: two slots are free
    const promoted = (await Promise.all(Array.from({ length: 8 }, () => queue.sweep()))).reduce((a, b) => a + b, 0);
    expect(promoted).toBe(2);
    expect(started).toEqual(queued.slice(0, 2).map((q) => q.run.id));
    expect(await Promise.all(queued.map((q) => statusOf(q.run.id)))).toEqual(['running', 'running', 'queued']);
    expect(await positions([queued[2].run.id])).toEqual([1]);
  });

  it('bounds the queued runs of an organization (429 RUN_QUEUE_FULL with a Retry-After)', async () => {
    await runOf();
    await runOf();
    for (let i = 0; i < MAX_QUEUED; i++) expect((await runOf({ queue: true })).run.status).toBe('queued');
    expect(await failure(runOf({ queue: true }))).toEqual({
      code: 'RATE_LIMITED',
      details: { reason: 'RUN_QUEUE_FULL', maxQueuedRuns: MAX_QUEUED, queuedRuns: MAX_QUEUED, activeRuns: CAP },
      retryAfterSeconds: 10,
    });
  });

  it("follows the organization's setting when the request says nothing; queue: false refuses all the same", async () => {
    await runOf();
    await runOf();
    await setOrganizationLimits(world.sql, world.org.organizationId, { queueRuns: true });
    expect((await runOf()).run.status).toBe('queued');
    expect(await failure(runOf({ queue: false }))).toMatchObject({ details: { reason: 'CONCURRENT_RUN_LIMIT' } });
  });

  it("queues a suite's due run at the cap when the organization queues runs, else skips it", async () => {
    const { run: first } = await runOf();
    await runOf();
    const scheduled = startScheduledRun({
      ...world.creation,
      maxConcurrentRuns: CAP,
      suites: createScheduledSuites(world.sql),
      log: { info: () => {}, warn: () => {} },
      queue,
    });
    expect(await scheduled({ suiteId: first.suiteId })).toMatchObject({
      outcome: 'skipped',
      reason: 'CONCURRENT_RUN_LIMIT',
      message: expect.not.stringContaining('queue: true'),
    });
    await setOrganizationLimits(world.sql, world.org.organizationId, { queueRuns: true });
    // a scheduled run brings no per-run key: the organization's is used
    await setProviderKey(world.sql, world.box, {
      organizationId: world.org.organizationId,
      provider: 'openai',
      apiKey: 'org-key',
      baseUrl: 'http://127.0.0.1:9/v1',
    });
    const queued = await scheduled({ suiteId: first.suiteId });
    expect(queued).toMatchObject({ outcome: 'queued', run: { suiteId: first.suiteId, source: 'schedule' } });
    expect(queued.outcome === 'queued' && (await statusOf(queued.run.id))).toBe('queued');
  });

  it('a queue: true run with a free slot and no queue starts at once', async () => {
    const run = await runOf({ queue: true });
    expect(run.run.status).toBe('running');
    expect(run.queue).toBeUndefined();
    expect(started).toEqual([run.run.id]);
  });

  it('cancels a queued run without a workflow: cancelled, RunEnded told, the runs behind it move up', async () => {
    await runOf();
    await runOf();
    const first = await runOf({ queue: true });
    const second = await runOf({ queue: true });
    started.length = 0;
    const cancel = cancelRun({
      runs: world.runs,
      reconciler: { reconcile: async (r) => r },
      workflows: { cancel: async () => expect.fail('a queued run has no workflow to cancel') },
      finalizeRun: endRun,
    });
    const answer = await cancel({ principal: world.principal, projectId: world.org.projectId, runId: first.run.id });
    expect(answer.run).toMatchObject({ id: first.run.id, status: 'cancelled', result: null });
    expect(answer.progress.total).toBe(0);
    expect(ended.map((e) => e.run.id)).toEqual([first.run.id]);
    expect(await positions([second.run.id])).toEqual([1]);
    // cancelled twice: the second is refused as for any ended run
    expect(
      await failure(cancel({ principal: world.principal, projectId: world.org.projectId, runId: first.run.id })),
    ).toMatchObject({ code: 'CONFLICT' });
    // the freed place is not a freed slot: nothing was started
    expect(await queue.promote(world.org.organizationId)).toEqual([]);
    expect(started).toEqual([]);
  });
});
