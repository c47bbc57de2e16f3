import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { RunLauncher } from '../../../api/runLauncher.js';
import { setProviderKey } from '../../../db/providerKeys.js';
import { randomBase62 } from '../../../domain/ids.js';
import { getRun } from '../../../db/evalRuns.js';
import { createRunStore, createScheduledSuites } from '../../../db/runStore.js';
import { OperationFailure } from '../../../domain/failures.js';
import { RunNotFound } from '../../../domain/evals/runFailures.js';
import { evalRunWorkflowId, type RunWorkflowStates, type WorkflowState } from '../../../domain/ports/runWorkflows.js';
import { cancelRun } from '../../../domain/useCases/runs/cancelRun.js';
import { finalizeRun, NOT_RUN_BUDGET, START_FAILED } from '../../../domain/useCases/runs/finalizeRun.js';
import { reconcileRuns } from '../../../domain/useCases/runs/reconcileRuns.js';
import { startRun } from '../../../domain/useCases/runs/startRun.js';
import { startScheduledRun } from '../../../domain/useCases/runs/startScheduledRun.js';
import { temporalRunWorkflowStates } from '../../../runtime/runReconciler.js';
import { createRunBody } from '../../../api/schemas/evals.js';
import { finishIterations, startRunsWorld, type RunsWorld } from '../../helpers/runUseCases.js';
import type { Run } from '../../../domain/evals/run.js';

/** A log that keeps what it was told. */
const recordingLog = () => {
  const lines: { level: 'info' | 'warn'; fields: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    info: (fields: object, message: string) => void lines.push({ level: 'info', fields: { ...fields }, message }),
    warn: (fields: object, message: string) => void lines.push({ level: 'warn', fields: { ...fields }, message }),
  };
};

/** What a use case threw: its code, message and details, as the API would answer them. */
const failure = async (work: Promise<unknown>) => {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OperationFailure);
  const { code, message, details } = error as OperationFailure;
  return { code, message, details };
};

const rowOf = async (world: RunsWorld, runId: string) => (await getRun(world.sql, runId))!;
const statuses = async (world: RunsWorld, runId: string) =>
  (await world.sql<{ status: string }[]>`SELECT status FROM eval_iterations WHERE run_id = ${runId} ORDER BY seq`).map(
    (i) => i.status,
  );

// How runs start and end (domain/useCases/runs), without HTTP: the workflows through their port, faked where the
// story only needs to know it was asked, Temporal itself where the port's implementation is the point.
describe('run lifecycle (use cases)', () => {
  let world: RunsWorld;
  beforeAll(async () => {
    world = await startRunsWorld();
  });
  afterAll(async () => world?.stop());
  const as = () => ({ principal: world.principal, projectId: world.org.projectId });

  describe('startRun', () => {
    it("writes the run, plans it, and starts its workflow with the plan and Web UI's description", async () => {
      world.started.length = 0;
      const started = await world.runOf([{ title: 'one', runs: 2 }]);
      expect(started).toMatchObject({
        run: { status: 'running', source: 'api', createdByKeyId: world.org.keyId },
        caseUpsert: { committed: [{ id: expect.any(String), name: 'one' }], failed: [] },
        servers: [{ id: world.serverId, name: 'everything' }],
        warnings: [],
      });
      expect(started.leftOut).toBeUndefined();
      const [[labels, about, plan]] = world.started;
      expect(labels).toEqual({
        id: started.run.id,
        organizationId: world.org.organizationId,
        projectId: world.org.projectId,
        suiteId: started.run.suiteId,
        source: 'api',
      });
      expect(about).toMatchObject({ suiteName: expect.stringMatching(/^suite /), iterations: 2 });
      expect(plan).toMatchObject({
        iterationIds: [expect.any(String), expect.any(String)],
        batchSize: 1,
        concurrency: 2,
      });
      expect(await statuses(world, started.run.id)).toEqual(['pending', 'pending']);
    });

    it('ends the run through finalizeRun when its workflow cannot be started, and passes the error on', async () => {
      const refused = new Error('Temporal is away');
      const start = startRun({
        ...world.creation,
        workflows: { start: async () => Promise.reject(refused) },
        finalizeRun: finalizeRun({ runs: world.runs }),
      });
      const request = createRunBody.parse({
        suiteName: 'cannot start',
        serverIds: [world.serverId],
        modelApiKeys: { openai: 'sk-run' },
        tests: [{ title: 't', query: 'q', model: 'model-a', provider: 'openai', runs: 2 }],
      });
      await expect(start({ ...as(), request })).rejects.toBe(refused);
      const [run] = await world.sql<
        { id: string }[]
      >`SELECT r.id FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id WHERE s.name = 'cannot start'`;
      // the one ending: failed with the reason, the slot and the keys freed, what was planned kept as cancelled
      expect(await rowOf(world, run.id)).toMatchObject({
        status: 'failed',
        result: 'failed',
        error: START_FAILED,
        modelKeysEnc: null,
        summary: { total: 0 },
        completedAt: expect.any(Date),
      });
      expect(await statuses(world, run.id)).toEqual(['cancelled', 'cancelled']);
    });

    it('refuses a project the key may not see, before anything is written', async () => {
      const start = startRun({
        ...world.creation,
        workflows: { start: async () => {} },
        finalizeRun: finalizeRun({ runs: world.runs }),
      });
      const request = createRunBody.parse({
        suiteName: 'x',
        serverIds: [world.serverId],
        tests: [{ title: 't', query: 'q', model: 'm', provider: 'openai' }],
      });
      await expect(start({ principal: world.principal, projectId: 'prj_nope', request })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'project not found',
      });
    });
  });

  describe('cancelRun', () => {
    it("asks the run's workflow to cancel and answers the run as it is", async () => {
      const { run } = await world.runOf([{ title: 'c' }]);
      const cancelled: string[] = [];
      const cancel = cancelRun({
        runs: world.runs,
        reconciler: { reconcile: async (r) => r },
        workflows: { cancel: async (runId) => void cancelled.push(runId) },
        finalizeRun: finalizeRun({ runs: world.runs }),
      });
      const answer = await cancel({ ...as(), runId: run.id });
      expect(answer).toMatchObject({ run: { id: run.id, status: 'running' }, progress: { total: 1, completed: 0 } });
      expect(cancelled).toEqual([run.id]);
    });

    it('refuses (CONFLICT) a run that ended, or ended now because its workflow had closed, or an ingested one', async () => {
      const { run } = await world.runOf([{ title: 'c' }]);
      const asked: string[] = [];
      const cancel = (becomes: Partial<Run>) =>
        cancelRun({
          runs: world.runs,
          reconciler: {
            reconcile: async (r, by) => {
              asked.push(by);
              return { ...r, ...becomes };
            },
          },
          workflows: { cancel: async () => expect.fail('a run that cannot be cancelled is not cancelled in Temporal') },
          finalizeRun: finalizeRun({ runs: world.runs }),
        })({ ...as(), runId: run.id });
      expect(await failure(cancel({ status: 'failed' }))).toEqual({
        code: 'CONFLICT',
        message: 'the run is already failed; only a running run can be cancelled',
        details: { status: 'failed' },
      });
      expect(await failure(cancel({ source: 'sdk' }))).toEqual({
        code: 'CONFLICT',
        message: 'the run is ingested, not executed here; only a running run can be cancelled',
        details: { status: 'running' },
      });
      expect(asked).toEqual(['cancel', 'cancel']);
    });
  });

  describe('finalizeRun', () => {
    const finalize = () => finalizeRun({ runs: world.runs });

    it('ends a run once: unfinished iterations cancelled, the summary over what finished, the keys dropped', async () => {
      const { run } = await world.runOf([{ title: 'f', runs: 2 }, { title: 'g' }], {
        passCriteria: { minimumPassRate: 50 },
      });
      await finishIterations(world.sql, run.id, [
        { title: 'f', result: 'passed' },
        { title: 'g', result: 'failed' },
      ]);
      expect(await finalize()({ runId: run.id, outcome: 'completed' })).toEqual({
        status: 'completed',
        result: 'passed',
        passRate: 0.5,
      });
      expect(await statuses(world, run.id)).toEqual(['completed', 'cancelled', 'completed']);
      expect(await rowOf(world, run.id)).toMatchObject({ modelKeysEnc: null, summary: { total: 2, passed: 1 } });
      // idempotent: a run that ended stays as it ended
      expect(await finalize()({ runId: run.id, outcome: 'failed', error: 'late' })).toEqual({
        status: 'completed',
        result: 'passed',
        passRate: 0.5,
      });
    });

    it('keeps what the budget left unrun as cancelled, saying so; a cancelled run has no result', async () => {
      const { run } = await world.runOf([{ title: 'b', runs: 2 }]);
      await finishIterations(world.sql, run.id, [{ title: 'b', result: 'passed' }]);
      await finalize()({ runId: run.id, outcome: 'completed', stoppedBy: 'budget' });
      const rows = await world.sql<{ status: string; error: string | null; errorDetails: unknown }[]>`
        SELECT status, error, error_details AS "errorDetails" FROM eval_iterations WHERE run_id = ${run.id} ORDER BY seq`;
      expect(rows[1]).toEqual({ status: 'cancelled', ...NOT_RUN_BUDGET });
      expect(await rowOf(world, run.id)).toMatchObject({ status: 'completed', summary: { stoppedBy: 'budget' } });

      const { run: other } = await world.runOf([{ title: 'x' }]);
      expect(await finalize()({ runId: other.id, outcome: 'cancelled' })).toEqual({
        status: 'cancelled',
        result: null,
        passRate: 0,
      });
    });

    it("runs on its caller's transaction (ingest ends a run it has locked), and names a run that does not exist", async () => {
      const { run } = await world.runOf([{ title: 't' }]);
      await world.sql.begin(async (tx) => {
        await tx`SELECT id FROM eval_runs WHERE id = ${run.id} FOR UPDATE`;
        await finalizeRun({ runs: createRunStore(tx) })({ runId: run.id, outcome: 'completed' });
      });
      expect(await rowOf(world, run.id)).toMatchObject({ status: 'completed' });
      await expect(finalize()({ runId: 'run_nope', outcome: 'completed' })).rejects.toBeInstanceOf(RunNotFound);
    });
  });

  describe('reconcileRuns', () => {
    /** Temporal's word on each run, as the test sets it; what was asked */
    const answers = new Map<string, WorkflowState>();
    const asked: string[] = [];
    const states: RunWorkflowStates = {
      state: async (runId) => {
        asked.push(runId);
        return answers.get(runId) ?? { state: 'open' };
      },
    };
    const reconciler = (log = recordingLog()) =>
      reconcileRuns({ runs: world.runs, workflows: states, finalizeRun: finalizeRun({ runs: world.runs }), log });

    it('ends a run whose workflow closed, through finalizeRun, and says so in the log', async () => {
      const { run } = await world.runOf([{ title: 'r' }]);
      answers.set(run.id, {
        state: 'closed',
        ending: { outcome: 'failed', error: 'the workflow was terminated in Temporal: test' },
      });
      const log = recordingLog();
      const ended = await reconciler(log).reconcile(run, 'delete');
      expect(ended).toMatchObject({ status: 'failed', error: 'the workflow was terminated in Temporal: test' });
      expect(await statuses(world, run.id)).toEqual(['cancelled']);
      expect(log.lines).toEqual([
        {
          level: 'warn',
          fields: expect.objectContaining({ runId: run.id, by: 'delete', status: 'failed' }),
          message: 'run ended: its workflow closed in Temporal without finalizing it',
        },
      ]);
    });

    it('leaves a run whose workflow is open, may still be starting, or that Temporal cannot be asked about', async () => {
      const { run } = await world.runOf([{ title: 'r' }]);
      const log = recordingLog();
      const reconcile = reconciler(log);
      expect(await reconcile.reconcile(run, 'read')).toBe(run);
      answers.set(run.id, { state: 'missing' });
      expect(await reconcile.reconcile(run, 'read')).toBe(run);
      answers.set(run.id, { state: 'unknown', error: 'deadline exceeded' });
      expect(await reconcile.reconcile(run, 'read')).toBe(run);
      expect(log.lines).toEqual([
        {
          level: 'warn',
          fields: { runId: run.id, err: 'deadline exceeded' },
          message: "could not ask Temporal about a run's workflow; the run is left as it is",
        },
      ]);
      expect((await rowOf(world, run.id)).status).toBe('running');
    });

    it('fails a run without a workflow once one of its iterations began (the workflow was deleted)', async () => {
      const { run } = await world.runOf([{ title: 'r' }, { title: 's' }]);
      await finishIterations(world.sql, run.id, [{ title: 'r' }]);
      answers.set(run.id, { state: 'missing' });
      expect(await reconciler().reconcile(run, 'sweep')).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/^the workflow of this run does not exist in Temporal/),
      });
    });

    it('asks about a run on reads at most every 2 s, and never about an ingested or finished one', async () => {
      const { run } = await world.runOf([{ title: 'r' }]);
      const reconcile = reconciler();
      asked.length = 0;
      await reconcile.onRead(run);
      await reconcile.onRead(run);
      await reconcile.onRead({ ...run, source: 'sdk' });
      await reconcile.onRead({ ...run, id: 'run_other', status: 'completed' });
      expect(asked).toEqual([run.id]);
    });

    it("checks an organization's counted runs at the cap, and sweeps quiet ones: how many ended", async () => {
      const { run: first } = await world.runOf([{ title: 'r' }]);
      const { run: second } = await world.runOf([{ title: 'r' }]);
      answers.set(first.id, { state: 'closed', ending: { outcome: 'cancelled', error: 'cancelled in Temporal' } });
      expect(await reconciler().reconcileOrganization(world.org.organizationId)).toBe(1);
      expect((await rowOf(world, first.id)).status).toBe('cancelled');
      answers.set(second.id, { state: 'closed', ending: { outcome: 'failed', error: 'timed out' } });
      expect(await reconciler().sweep(0)).toBe(1);
      expect((await rowOf(world, second.id)).status).toBe('failed');
    });
  });

  describe('startScheduledRun', () => {
    const metrics = () => {
      const outcomes: { outcome: string; reason?: string }[] = [];
      return { outcomes, scheduledRunOutcome: (o: { outcome: string; reason?: string }) => void outcomes.push(o) };
    };

    it("creates the suite's run as POST /eval-runs does, on the organization's keys, and says what it started", async () => {
      await setProviderKey(world.sql, world.box, {
        organizationId: world.org.organizationId,
        provider: 'openai',
        apiKey: 'org-key',
      });
      const { run: first } = await world.runOf([{ title: 's', runs: 3 }]);
      const log = recordingLog();
      const counted = metrics();
      const outcome = await startScheduledRun({
        ...world.creation,
        suites: createScheduledSuites(world.sql),
        log,
        metrics: counted,
      })({ suiteId: first.suiteId });
      expect(outcome).toMatchObject({
        outcome: 'started',
        run: {
          organizationId: world.org.organizationId,
          projectId: world.org.projectId,
          suiteId: first.suiteId,
          source: 'schedule',
        },
        about: { iterations: 3, suiteName: expect.any(String), projectName: expect.any(String) },
      });
      const runId = outcome.outcome === 'started' ? outcome.run.id : '';
      const [row] = await world.sql<{ createdByKeyId: string | null; modelKeysEnc: string | null }[]>`
        SELECT created_by_key_id AS "createdByKeyId", model_keys_enc AS "modelKeysEnc" FROM eval_runs WHERE id = ${runId}`;
      expect(row).toEqual({ createdByKeyId: null, modelKeysEnc: null });
      expect(counted.outcomes).toEqual([{ outcome: 'started' }]);
      expect(log.lines.map((l) => l.message)).toEqual(['scheduled run started']);
    });

    it('skips a run that cannot start now, keeping the reason on the suite; a deleted or unknown suite is only logged', async () => {
      // the API run had its own key for this provider; the organization has none
      const { run } = await world.runOf([{ title: 'k', provider: 'anthropic', model: 'claude-x' }], {
        modelApiKeys: { anthropic: 'sk-run' },
      });
      const counted = metrics();
      const start = startScheduledRun({
        ...world.creation,
        suites: createScheduledSuites(world.sql),
        log: recordingLog(),
        metrics: counted,
      });
      const skipped = await start({ suiteId: run.suiteId });
      expect(skipped).toMatchObject({ outcome: 'skipped', reason: expect.any(String), message: expect.any(String) });
      const reason = skipped.outcome === 'skipped' ? skipped.reason : '';
      const [suite] = await world.sql<{ scheduleLastSkipReason: string | null }[]>`
        SELECT schedule_last_skip_reason AS "scheduleLastSkipReason" FROM eval_suites WHERE id = ${run.suiteId}`;
      expect(suite.scheduleLastSkipReason).toBe(reason);

      const { run: gone } = await world.runOf([{ title: 'd' }]);
      await world.sql`UPDATE eval_suites SET deleted_at = now() WHERE id = ${gone.suiteId}`;
      expect(await start({ suiteId: gone.suiteId })).toEqual({
        outcome: 'skipped',
        reason: 'SUITE_DELETED',
        message: `suite ${gone.suiteId} was deleted`,
      });
      expect(await start({ suiteId: 'sut_nope' })).toMatchObject({ outcome: 'skipped', reason: 'SUITE_NOT_FOUND' });
      const [deleted] = await world.sql<{ scheduleLastSkipReason: string | null }[]>`
        SELECT schedule_last_skip_reason AS "scheduleLastSkipReason" FROM eval_suites WHERE id = ${gone.suiteId}`;
      expect(deleted.scheduleLastSkipReason).toBeNull();
      expect(counted.outcomes.map((o) => o.outcome)).toEqual(['skipped', 'skipped', 'skipped']);
    });
  });

  // The ports' implementations on the test run's Temporal: a task queue no worker polls, so workflows stay as put.
  describe('on Temporal: RunLauncher and temporalRunWorkflowStates', () => {
    let connection: Connection;
    let temporal: Client;
    const started: string[] = [];
    beforeAll(async () => {
      connection = await Connection.connect({ address: inject('temporalAddress') });
      temporal = new Client({ connection });
    });
    afterAll(async () => {
      for (const runId of started)
        await temporal.workflow
          .getHandle(evalRunWorkflowId(runId))
          .terminate('test over')
          .catch(() => {});
      await connection?.close();
    });

    it("starts a run's workflow, reads it open, cancels it, and ends the run once it was terminated in Temporal", async () => {
      const workflows = new RunLauncher(temporal, `use-cases-${randomBase62(8)}`);
      const endRun = finalizeRun({ runs: world.runs });
      const { run } = await startRun({ ...world.creation, workflows, finalizeRun: endRun })({
        ...as(),
        request: createRunBody.parse({
          suiteName: 'on temporal',
          serverIds: [world.serverId],
          modelApiKeys: { openai: 'sk-run' },
          tests: [{ title: 't', query: 'q', model: 'model-a', provider: 'openai' }],
        }),
      });
      started.push(run.id);
      const states = temporalRunWorkflowStates(temporal);
      expect(await states.state(run.id)).toEqual({ state: 'open' });
      const reconciler = reconcileRuns({
        runs: world.runs,
        workflows: states,
        finalizeRun: endRun,
        log: recordingLog(),
      });
      // no worker runs the cancellation: the workflow is asked, and stays open
      await cancelRun({ runs: world.runs, reconciler, workflows, finalizeRun: endRun })({ ...as(), runId: run.id });
      expect(await states.state(run.id)).toEqual({ state: 'open' });

      await temporal.workflow.getHandle(evalRunWorkflowId(run.id)).terminate('stopped by the test');
      const ending = { outcome: 'failed', error: 'the workflow was terminated in Temporal: stopped by the test' };
      expect(await states.state(run.id)).toEqual({ state: 'closed', ending });
      expect(await reconciler.reconcile(run, 'read')).toMatchObject({ status: 'failed', error: ending.error });
    });

    it('says missing for a run without a workflow, and unknown when Temporal does not answer', async () => {
      expect(await temporalRunWorkflowStates(temporal).state('run_never_started')).toEqual({ state: 'missing' });
      const away = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
      expect(await temporalRunWorkflowStates(away).state('run_x')).toEqual({
        state: 'unknown',
        error: expect.any(String),
      });
    });
  });
});
