import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';

/**
 * Issue 27, finding 10: Temporal Web UI renders a workflow's summary and details as Markdown, and a suite named
 * `[Sign in again](http://attacker/phish)` showed there as a link, on the operator's own console. The names are
 * escaped now: the operator reads the name as it was written, as text.
 */
describe("a suite's name in its run's workflow metadata (Temporal Web UI)", () => {
  let world: EvalWorld;
  beforeAll(async () => {
    world = await startEvalWorld();
  });
  afterAll(async () => world?.stop());

  it('is escaped Markdown in the summary and details, so it shows as text and links nowhere', async () => {
    const { call, org, serverId, model } = world;
    model.setScript('scripted-markdown', [{ text: 'No tools needed.' }]);
    const name = '[Sign in again](http://attacker/phish)';
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: name,
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      tests: [{ title: 'plain', query: 'q', model: 'scripted-markdown', provider: 'openai', isNegativeTest: true }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const { runId } = created.body;
    // the API itself keeps the name as given
    expect((await call('GET', `/projects/${org.projectId}/eval-suites/${created.body.suiteId}`)).body.name).toBe(name);
    await waitForRun(call, org.projectId, runId);

    const description = await world.stack.temporal.workflow.getHandle(`eval-run:${runId}`).describe();
    const escaped = '\\[Sign in again\\](http\\://attacker/phish)';
    expect(await description.staticSummary()).toBe(`Eval run of ${escaped}: 1 iteration`);
    const details = await description.staticDetails();
    expect(details).toContain(`**Suite** ${escaped} (${created.body.suiteId})`);
    expect(details).toContain(`**Run** ${runId}`);
    // nothing of the name is left unescaped: no `[` or `<` but behind a backslash
    for (const text of [await description.staticSummary(), details])
      expect((text ?? '').replace(/\\./g, '')).not.toMatch(/[[\]<>]/);
  });
});
