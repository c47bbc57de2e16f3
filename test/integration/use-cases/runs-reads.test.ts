import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec } from '../../../api/cursor.js';
import { OperationFailure } from '../../../domain/failures.js';
import { analyzeRunTools } from '../../../domain/useCases/runs/analyzeRunTools.js';
import { compareRuns } from '../../../domain/useCases/runs/compareRuns.js';
import { followRun } from '../../../domain/useCases/runs/followRun.js';
import { followRuns } from '../../../domain/useCases/runs/followRuns.js';
import { getRun } from '../../../domain/useCases/runs/getRun.js';
import { getTrace } from '../../../domain/useCases/runs/getTrace.js';
import { listIterations } from '../../../domain/useCases/runs/listIterations.js';
import { seedOrganization } from '../../helpers/seed.js';
import { finishIterations, startRunsWorld, TEST_ENCRYPTION_KEY, type RunsWorld } from '../../helpers/runUseCases.js';
import type { Run } from '../../../domain/evals/run.js';

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

// The run reads of domain/useCases/runs, called as the routes call them, without HTTP or Temporal.
describe('run reads (use cases)', () => {
  let world: RunsWorld;
  /** a run of two cases, the first passed (with a trace), the second still pending */
  let run: Run;
  let iterationIds: string[];
  /** the reconciler's reads, recorded: a read of a run checks it against its workflow now and then */
  const readRuns: string[] = [];
  const reconciler = {
    onRead: async (r: Run) => {
      readRuns.push(r.id);
      return r;
    },
  };
  const as = () => ({ principal: world.principal, projectId: world.org.projectId });

  beforeAll(async () => {
    world = await startRunsWorld();
    ({ run } = await world.runOf([{ title: 'weather' }, { title: 'news', runs: 2 }]));
    iterationIds = await finishIterations(world.sql, run.id, [
      { title: 'weather', trace: { messages: [{ role: 'user', content: 'query 1' }] } },
    ]);
  });
  afterAll(async () => world?.stop());

  describe('getRun', () => {
    it('is the run with its progress from the iteration rows, checked by the reconciler on the way', async () => {
      const read = getRun({ runs: world.runs, reconciler });
      readRuns.length = 0;
      const { run: got, progress } = await read({ ...as(), runId: run.id });
      expect(got).toMatchObject({ id: run.id, status: 'running', source: 'api' });
      expect(progress).toEqual({ total: 3, completed: 1, passed: 1, failed: 0, errored: 0 });
      expect(readRuns).toEqual([run.id]);
    });

    it("is the same 404 for a run of another organization's project as for none", async () => {
      const read = getRun({ runs: world.runs, reconciler });
      const other = await seedOrganization(world.sql);
      const stranger = {
        keyId: other.keyId,
        userId: other.userId,
        organizationId: other.organizationId,
        orgRole: 'owner' as const,
      };
      expect(await failure(read({ principal: stranger, projectId: world.org.projectId, runId: run.id }))).toMatchObject(
        {
          code: 'NOT_FOUND',
          message: 'project not found',
        },
      );
      expect(await failure(read({ ...as(), runId: 'run_nope' }))).toEqual({
        code: 'NOT_FOUND',
        message: 'eval run not found',
        details: { runId: 'run_nope' },
      });
    });
  });

  describe('listIterations', () => {
    const cursors = new CursorCodec(TEST_ENCRYPTION_KEY);

    it('pages through the plan in order; the last page has no cursor', async () => {
      const list = listIterations({ runs: world.runs, cursors });
      const first = await list({ ...as(), runId: run.id, limit: 2 });
      expect(first.items.map((i) => i.title)).toEqual(['weather', 'news']);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await list({ ...as(), runId: run.id, limit: 2, cursor: first.nextCursor });
      expect(second.items.map((i) => [i.title, i.iterationNumber])).toEqual([['news', 2]]);
      expect(second.nextCursor).toBeUndefined();
    });

    it('refuses a cursor of another list, and answers 404 for a missing run before looking at its cursor', async () => {
      const list = listIterations({ runs: world.runs, cursors });
      const foreign = cursors.encode('iterations:run_other', 1);
      await expect(list({ ...as(), runId: run.id, limit: 2, cursor: foreign })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { reason: 'INVALID_CURSOR' },
      });
      expect(await failure(list({ ...as(), runId: 'run_nope', limit: 2, cursor: 'garbage' }))).toMatchObject({
        code: 'NOT_FOUND',
      });
    });
  });

  describe('getTrace', () => {
    it("is the iteration's stored trace; 404 TRACE_NOT_AVAILABLE without one, 404 for an iteration of no such run", async () => {
      const trace = getTrace({ runs: world.runs });
      expect(await trace({ ...as(), runId: run.id, iterationId: iterationIds[0] })).toEqual({
        messages: [{ role: 'user', content: 'query 1' }],
      });
      const [pending] = await world.sql<{ id: string }[]>`
        SELECT id FROM eval_iterations WHERE run_id = ${run.id} AND status = 'pending' ORDER BY seq LIMIT 1`;
      expect(await failure(trace({ ...as(), runId: run.id, iterationId: pending.id }))).toEqual({
        code: 'NOT_FOUND',
        message: 'trace not found',
        details: { iterationId: pending.id, reason: 'TRACE_NOT_AVAILABLE' },
      });
      expect(await failure(trace({ ...as(), runId: run.id, iterationId: 'itr_nope' }))).toEqual({
        code: 'NOT_FOUND',
        message: 'iteration not found',
        details: { iterationId: 'itr_nope' },
      });
    });
  });

  describe('compareRuns and analyzeRunTools', () => {
    let base: Run;
    let current: Run;
    let models: Run;

    beforeAll(async () => {
      ({ run: base } = await world.runOf([{ title: 'a' }, { title: 'b' }]));
      await finishIterations(world.sql, base.id, [
        { title: 'a', result: 'passed' },
        { title: 'b', result: 'passed' },
      ]);
      await world.sql`UPDATE eval_runs SET status = 'completed', result = 'passed', completed_at = now() WHERE id = ${base.id}`;
      ({ run: current } = await world.runOf([{ title: 'a' }, { title: 'b' }], {
        suiteId: base.suiteId,
        suiteName: undefined,
      }));
      await finishIterations(world.sql, current.id, [
        { title: 'a', result: 'passed', expected: [{ toolName: 'echo' }], called: [{ toolName: 'echo' }] },
        { title: 'b', result: 'failed', expected: [{ toolName: 'add' }], called: [{ toolName: 'echo' }] },
      ]);
      ({ run: models } = await world.runOf([
        {
          title: 'm',
          model: undefined,
          provider: undefined,
          models: [
            { model: 'model-a', provider: 'openai' },
            { model: 'model-b', provider: 'openai' },
          ],
        },
      ]));
      await finishIterations(world.sql, models.id, [
        { title: 'm', model: 'model-a', result: 'passed' },
        { title: 'm', model: 'model-b', result: 'failed' },
      ]);
    });

    it("compares a run with its suite's previous completed run by default", async () => {
      const compare = compareRuns({ runs: world.runs });
      const comparison = await compare({ ...as(), runId: current.id });
      expect(comparison).toMatchObject({
        by: 'run',
        base: { runId: base.id, runNumber: 1, status: 'completed' },
        current: { runId: current.id, runNumber: 2, status: 'running' },
        suite: { base: { passed: 2, total: 2 }, current: { passed: 1, total: 2 } },
      });
      expect(await failure(compare({ ...as(), runId: base.id }))).toEqual({
        code: 'NOT_FOUND',
        message: 'base run not found',
        details: { reason: 'NO_PREVIOUS_RUN', suiteId: base.suiteId, runNumber: 1 },
      });
      expect(await failure(compare({ ...as(), runId: current.id, baseRunId: 'run_nope' }))).toMatchObject({
        code: 'NOT_FOUND',
        details: { baseRunId: 'run_nope' },
      });
      expect(await failure(compare({ ...as(), runId: current.id, baseModel: 'model-a' }))).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'baseModel goes with by=model',
        details: { field: 'baseModel' },
      });
    });

    it("compares a run's models against the first one, or the one named; refuses what by=model cannot take", async () => {
      const compare = compareRuns({ runs: world.runs });
      const byModel = await compare({ ...as(), runId: models.id, by: 'model' });
      expect(byModel).toMatchObject({
        by: 'model',
        runId: models.id,
        baseModel: 'model-a',
        models: ['model-a', 'model-b'],
      });
      expect(byModel.by === 'model' && byModel.comparisons.map((c) => [c.base.model, c.current.model])).toEqual([
        ['model-a', 'model-b'],
      ]);
      expect(await compare({ ...as(), runId: models.id, by: 'model', baseModel: 'model-b' })).toMatchObject({
        baseModel: 'model-b',
      });
      expect(await failure(compare({ ...as(), runId: models.id, by: 'model', baseModel: 'model-z' }))).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'no iteration of this run used the model `model-z`',
        details: { field: 'baseModel', models: ['model-a', 'model-b'] },
      });
      expect(await failure(compare({ ...as(), runId: models.id, by: 'model', baseRunId: base.id }))).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { field: 'baseRunId' },
      });
    });

    it("analyzes a run's tools over its finished iterations", async () => {
      const analysis = await analyzeRunTools({ runs: world.runs })({ ...as(), runId: current.id });
      expect(analysis).toMatchObject({
        tools: expect.arrayContaining([
          expect.objectContaining({ toolName: 'echo', called: 2, expected: 1 }),
          expect.objectContaining({ toolName: 'add', called: 0, expected: 1 }),
        ]),
        confusions: [{ expected: 'add', actual: 'echo', count: 1 }],
        coverage: { expectedNeverCalled: ['add'] },
      });
      expect(await failure(analyzeRunTools({ runs: world.runs })({ ...as(), runId: 'run_nope' }))).toMatchObject({
        code: 'NOT_FOUND',
      });
    });
  });

  describe('followRun and followRuns', () => {
    /** event ids in clear (`<runId>@<position>`), where the API seals them */
    const eventIds = {
      decode: (runId: string, id: string) =>
        id.startsWith(`${runId}@`) ? Number(id.slice(runId.length + 1)) : undefined,
    };

    it('follows a run from the start or after a Last-Event-ID; its feed reads the run and its final iterations', async () => {
      const follow = followRun({ runs: world.runs, reconciler, eventIds });
      const fresh = await follow({ ...as(), runId: run.id });
      expect(fresh).toMatchObject({ run: { id: run.id }, after: 0 });
      expect(await follow({ ...as(), runId: run.id, lastEventId: '  ' })).toMatchObject({ after: 0 });
      const [sent] = await fresh.iterations(0, [], 10);
      expect(sent).toMatchObject({ id: iterationIds[0], status: 'completed' });
      const resumed = await follow({ ...as(), runId: run.id, lastEventId: `${run.id}@${sent.streamPosition}` });
      expect(resumed.after).toBe(sent.streamPosition);
      expect(await resumed.iterations(resumed.after, [], 10)).toEqual([]);
      expect(await fresh.iterations(0, [sent.id], 10)).toEqual([]);
      const { run: now, progress } = await fresh.read();
      expect(now.id).toBe(run.id);
      expect(progress.completed).toBe(1);
    });

    it("refuses a Last-Event-ID this run's stream did not send; 404 for a run it may not see", async () => {
      const follow = followRun({ runs: world.runs, reconciler, eventIds });
      expect(await failure(follow({ ...as(), runId: run.id, lastEventId: 'run_other@3' }))).toEqual({
        code: 'VALIDATION_ERROR',
        message: "Last-Event-ID must be the id of an event this run's stream sent, unchanged",
        details: { header: 'Last-Event-ID' },
      });
      expect(await failure(follow({ ...as(), runId: 'run_nope' }))).toMatchObject({ code: 'NOT_FOUND' });
    });

    it('follows several runs in the order asked; names the ones the project does not hold', async () => {
      const follow = followRuns({ runs: world.runs, reconciler });
      const [other] = (
        await world.sql<{ id: string }[]>`SELECT id FROM eval_runs WHERE id <> ${run.id} ORDER BY created_at LIMIT 1`
      ).map((r) => r.id);
      const feed = await follow({ ...as(), runIds: [other, run.id] });
      expect(feed.runs.map((r) => r.id)).toEqual([other, run.id]);
      const read = await feed.read([run.id, other]);
      expect(read.map(({ run: r }) => r.id)).toEqual([run.id, other]);
      expect(read[0].progress).toMatchObject({ total: 3, completed: 1 });
      expect(await failure(follow({ ...as(), runIds: [run.id, 'run_nope'] }))).toEqual({
        code: 'NOT_FOUND',
        message: 'eval run not found',
        details: { runIds: ['run_nope'] },
      });
      expect(await failure(follow({ ...as(), runIds: ['run_a', 'run_b'] }))).toMatchObject({
        message: 'eval runs not found',
      });
    });
  });
});
