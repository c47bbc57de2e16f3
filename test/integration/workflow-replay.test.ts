import { readFileSync } from 'node:fs';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';

// Histories recorded from real runs (a completed run and a cancelled one) at each patch of evalRun: before
// adaptive-batches (fixed-size batches), with it, with settle-lanes, and with runway-result (RunwayResult set at
// the end), with run-budget (a run its budget stopped half-way, issue 16), and with plan-local-activity and
// batch-in-flight (the plan a local activity, batches sized with the work in flight; the same budget test), and with
// plan-at-creation (the plan written with the run and given to the workflow; the same budget test); and of
// a suite's scheduled run (one that started its evalRun child, one that was skipped). Replaying them against today's
// workflow code fails when a change would make running workflows non-deterministic: such a change needs versioning
// (patched()). Recorded from runs on a test stack (test/helpers/evals.ts) with `temporal workflow show --workflow-id
// eval-run:<runId> --output json` (the three budget histories: by test/integration/eval-run-models.test.ts
// -t 'maxIterations budget' with RECORD_HISTORY=<file>).
const histories = [
  'eval-run-completed',
  'eval-run-cancelled',
  'eval-run-adaptive-completed',
  'eval-run-adaptive-cancelled',
  'eval-run-settle-lanes-completed',
  'eval-run-settle-lanes-cancelled',
  'eval-run-runway-result-completed',
  'eval-run-runway-result-cancelled',
  'eval-run-budget-stopped',
  'eval-run-local-plan-budget-stopped',
  'eval-run-planned-at-creation-budget-stopped',
  'scheduled-suite-run-started',
  'scheduled-suite-run-skipped',
];

describe('workflow replay (evalRun, scheduledSuiteRun)', () => {
  it.each(histories)('replays the committed %s history deterministically', async (name) => {
    const history = JSON.parse(readFileSync(new URL(`../fixtures/histories/${name}.json`, import.meta.url), 'utf8'));
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') } },
        history,
        `${name}-replay`,
      ),
    ).resolves.toBeUndefined();
  });
});
