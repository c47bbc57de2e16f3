import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunBody } from '../../../api/schemas/evals.js';
import { getRun } from '../../../db/evalRuns.js';
import { adaptiveRound } from '../../../domain/useCases/runs/adaptiveRound.js';
import { finalizeRun } from '../../../domain/useCases/runs/finalizeRun.js';
import { startRun } from '../../../domain/useCases/runs/startRun.js';
import { finishIterations, startRunsWorld, type RunsWorld } from '../../helpers/runUseCases.js';

// An adaptive run's looks (domain/useCases/runs/adaptiveRound.ts) on the database, without Temporal: the iterations
// finished as the worker would, each look called as the workflow calls it.
describe('adaptive rounds (use case)', () => {
  let world: RunsWorld;
  beforeAll(async () => {
    world = await startRunsWorld();
  });
  afterAll(async () => world?.stop());

  const pending = async (runId: string) =>
    (
      await world.sql<{ title: string; n: number }[]>`
        SELECT title, iteration_number AS n FROM eval_iterations WHERE run_id = ${runId} AND status = 'pending' ORDER BY seq`
    ).map((r) => `${r.title}#${r.n}`);

  it('stops a decided case, plans the next round of an open one once (a retried look adds nothing), and keeps a decided case decided', async () => {
    const finalize = finalizeRun({ runs: world.runs });
    const base = await world.runOf([{ runs: 10 }, { runs: 10 }]);
    const steady = 'case 1';
    const open = 'case 2';
    await finishIterations(world.sql, base.run.id, [
      ...Array.from({ length: 10 }, () => ({ title: steady })),
      ...Array.from({ length: 10 }, () => ({ title: open })),
    ]);
    await finalize({ runId: base.run.id, outcome: 'completed' });

    const start = startRun({
      ...world.creation,
      workflows: { start: async () => undefined },
      finalizeRun: finalize,
    });
    const { run } = await start({
      principal: world.principal,
      projectId: world.org.projectId,
      request: createRunBody.parse({
        suiteId: base.run.suiteId,
        modelApiKeys: { openai: 'sk-run' },
        adaptive: { baseline: 'previous', maxIterationsPerCase: 15, stopWhen: 'decided', firstRound: 5 },
      }),
    });
    expect(run.adaptive).toMatchObject({ baselineRunId: base.run.id, maxIterationsPerCase: 15 });
    // the first round: 5 of each case
    expect(await pending(run.id)).toHaveLength(10);
    await finishIterations(world.sql, run.id, [
      ...Array.from({ length: 5 }, () => ({ title: steady })),
      ...[0, 1, 2, 3, 4].map((i) => ({ title: open, result: i < 2 ? ('passed' as const) : ('failed' as const) })),
    ]);

    const look = adaptiveRound({ setup: world.creation.setup });
    const first = await look({ runId: run.id, look: 0 });
    expect(first.iterationIds).toHaveLength(5);
    expect(await pending(run.id)).toEqual([6, 7, 8, 9, 10].map((n) => `${open}#${n}`));
    // The activity retried: the same counts, the same round, nothing planned twice.
    const again = await look({ runId: run.id, look: 0 });
    expect(again.iterationIds.sort()).toEqual([...first.iterationIds].sort());
    expect(await pending(run.id)).toHaveLength(5);
    const afterFirst = (await getRun(world.sql, run.id))!.adaptive!.cases!;
    expect(afterFirst.find((c) => c.title === steady)).toMatchObject({
      iterations: 5,
      look: 0,
      stopReason: 'decided_unchanged',
    });
    expect(afterFirst.find((c) => c.title === open)).toMatchObject({ iterations: 10, look: 0, stopReason: null });

    // The open case fails its next round: 2/10 against 10/10 is decided at the second look's level.
    await finishIterations(
      world.sql,
      run.id,
      Array.from({ length: 5 }, () => ({ title: open, result: 'failed' as const })),
    );
    expect((await look({ runId: run.id, look: 1 })).iterationIds).toEqual([]);
    const afterSecond = (await getRun(world.sql, run.id))!.adaptive!.cases!;
    expect(afterSecond.find((c) => c.title === steady)).toMatchObject({ look: 0, stopReason: 'decided_unchanged' });
    const decided = afterSecond.find((c) => c.title === open)!;
    expect(decided).toMatchObject({ iterations: 10, look: 1, stopReason: 'decided_regressed' });
    expect(decided.pValue!).toBeLessThanOrEqual(decided.level!);

    await finalize({ runId: run.id, outcome: 'completed' });
    const ended = (await getRun(world.sql, run.id))!;
    expect(ended.summary!.adaptive).toMatchObject({
      baselineRunId: base.run.id,
      maxIterationsPerCase: 15,
      alpha: 0.05,
      cases: [
        { title: steady, iterations: 5, stopReason: 'decided_unchanged' },
        { title: open, iterations: 10, stopReason: 'decided_regressed' },
      ],
    });
    // A look at a run that has ended plans nothing.
    expect((await look({ runId: run.id, look: 2 })).iterationIds).toEqual([]);
  });
});
