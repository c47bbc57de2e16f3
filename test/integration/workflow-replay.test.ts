import { readFileSync } from 'node:fs';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';

// Histories recorded from real runs (a completed run and a cancelled one), from before the adaptive-batches patch
// (fixed-size batches) and after it, and of a suite's scheduled run (one that started its evalRun child, one that
// was skipped). Replaying them against today's workflow code fails when a change would make running workflows
// non-deterministic: such a change needs versioning (patched()).
const histories = [
  'eval-run-completed', 'eval-run-cancelled', 'eval-run-adaptive-completed', 'eval-run-adaptive-cancelled',
  'scheduled-suite-run-started', 'scheduled-suite-run-skipped',
];

describe('workflow replay (evalRun, scheduledSuiteRun)', () => {
  it.each(histories)('replays the committed %s history deterministically', async (name) => {
    const history = JSON.parse(readFileSync(new URL(`../fixtures/histories/${name}.json`, import.meta.url), 'utf8'));
    await expect(
      Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, `${name}-replay`),
    ).resolves.toBeUndefined();
  });
});
