import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForRun } from '../helpers/evals.js';
import { scan, shot, signIn, startConsoleWorld, type ConsoleWorld, type GuardedPage } from '../helpers/console.js';

/**
 * The run, trace, compare and servers views against a real stack: a run watched live to its end over the events
 * stream (one request, no polling), a failed iteration's wrong argument found highlighted, two runs compared with the
 * regressed case found, and a tool called from the form generated from its input schema.
 */
describe('the console: runs, traces, comparisons and servers', () => {
  let world: ConsoleWorld;
  let guarded: GuardedPage;
  let page: Page;
  const requests: string[] = [];
  let suiteId: string;
  let firstRunId: string;
  let secondRunId: string;
  /** the suite's latest completed run before the one compared */
  let previousRunId: string;

  // A slow model (a few seconds for the run) so that the page sees it running; one case calls echo with the wrong
  // argument, so its iterations fail on it.
  const right = (message: string, delayMs: number) => [
    { toolCalls: [{ name: 'echo', arguments: { message } }], delayMs },
    { text: `echoed ${message}` },
  ];
  const wrong = (delayMs: number) => [
    { toolCalls: [{ name: 'echo', arguments: { message: 'goodbye' } }], delayMs },
    { text: 'echoed goodbye' },
  ];
  const test = (title: string, query: string, runs: number) => ({
    title,
    query,
    runs,
    model: 'scripted-console-views',
    provider: 'openai',
    expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
  });

  beforeAll(async () => {
    world = await startConsoleWorld();
    guarded = await world.newPage();
    page = guarded.page;
    await signIn(page, world.consoleUrl, world.org.apiKey);
    page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
  });
  afterAll(async () => {
    await world?.stop();
  });

  /** No serious or critical axe violation, a screenshot, and nothing refused by the page's guard. */
  async function checkView(name: string) {
    expect(await scan(page), `axe on the ${name} view`).toEqual([]);
    await shot(page, name);
    guarded.assertClean();
  }

  it('follows a run live to its end over one events stream, without polling', async () => {
    const { call, org, serverId, model } = world;
    const p = org.projectId;
    model.setScript('scripted-console-views', {
      byQuery: { 'Say hello': right('hello', 250), 'Say it': wrong(250) },
    });
    const started = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Console',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      concurrency: 1,
      tests: [test('greets', 'Say hello', 6), test('says the wrong thing', 'Say it', 2)],
    });
    expect(started.status).toBe(202);
    firstRunId = started.body.runId;
    suiteId = started.body.suiteId;
    requests.length = 0;

    await page.goto(`${world.consoleUrl}#/projects/${p}/runs/${firstRunId}`);
    await page.getByRole('heading', { name: /Run #1/ }).waitFor();
    // Live: counters move while the run is still running, and the cancel button is offered meanwhile.
    await expect
      .poll(async () => Number(await page.locator('[data-counter="passed"]').innerText()), { timeout: 30_000 })
      .toBeGreaterThan(0);
    expect(await page.locator('.badge-running').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Cancel the run' }).isVisible()).toBe(true);

    // Its end: the result, the per-case table, the tool analysis, failed iterations first.
    await page.locator('h1 .badge-failed').waitFor({ timeout: 60_000 });
    expect(await page.locator('#run-progress').getAttribute('value')).toBe('8');
    const cases = page.locator('table.cases');
    await cases.waitFor();
    expect(await cases.locator('tbody tr').count()).toBe(2);
    expect(await cases.locator('tr', { hasText: 'greets' }).innerText()).toContain('6/6');
    expect(await cases.locator('tr', { hasText: 'says the wrong thing' }).innerText()).toContain('0/2');
    await page.locator('table.tools').waitFor();
    expect(await page.locator('ul.failed-iterations li').count()).toBe(2);
    await checkView('run');

    const events = requests.filter((r) => r === `GET /api/v1/projects/${p}/eval-runs/${firstRunId}/events`);
    const polls = requests.filter((r) => r === `GET /api/v1/projects/${p}/eval-runs/${firstRunId}`);
    expect(events).toHaveLength(1);
    expect(polls).toEqual([]);
  });

  it('reconnects after the connection dropped, resuming after the last iteration it had', async () => {
    const { call, org, model } = world;
    const p = org.projectId;
    model.setScript('scripted-console-views', {
      byQuery: { 'Say hello': right('hello', 300), 'Say it': wrong(300) },
    });
    const started = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId,
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      concurrency: 1,
    });
    expect(started.status).toBe(202);
    const runId: string = started.body.runId;
    previousRunId = runId;
    const streams: Record<string, string>[] = [];
    const onRequest = (request: { url(): string; headers(): Record<string, string> }) => {
      if (new URL(request.url()).pathname.endsWith(`/eval-runs/${runId}/events`)) streams.push(request.headers());
    };
    page.on('request', onRequest);
    // The first connection is cut after two iterations (the run, two iterations, then the stream closes without
    // `end`, as a dropped connection would); the page must reconnect and resume after the second.
    let cut = false;
    await page.route(`**/eval-runs/${runId}/events`, async (route) => {
      if (cut) return await route.continue();
      cut = true;
      await route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' },
        body: await firstIterations(route.request().url(), route.request().headers(), 2),
      });
    });
    await page.goto(`${world.consoleUrl}#/projects/${p}/runs/${runId}`);
    await page.locator('h1 .badge-failed').waitFor({ timeout: 60_000 });
    page.off('request', onRequest);
    await page.unroute(`**/eval-runs/${runId}/events`);

    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams[0]['last-event-id']).toBeUndefined();
    // the id of the last iteration it had, sent back unchanged (an opaque, sealed stream position)
    expect(streams.at(-1)!['last-event-id']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // Every iteration once: none lost, none twice.
    expect(await page.locator('ul.failed-iterations li').count()).toBe(2);
    expect(await page.locator('details.passed-iterations summary').innerText()).toBe('6 passed iterations');
  });

  /** The real stream's first events, up to and with the `count`th iteration, then nothing more. */
  async function firstIterations(url: string, headers: Record<string, string>, count: number): Promise<string> {
    const abort = new AbortController();
    const reply = await fetch(url, { headers: { authorization: headers.authorization }, signal: abort.signal });
    const reader = reply.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      const blocks = text.split('\n\n');
      const complete = blocks.slice(0, -1);
      const at = complete.findIndex(
        (block, i) => complete.slice(0, i + 1).filter((b) => b.includes('event: iteration')).length === count,
      );
      if (at !== -1) {
        abort.abort();
        return `${complete.slice(0, at + 1).join('\n\n')}\n\n`;
      }
    }
    throw new Error('the stream ended before the iterations came');
  }

  it('opens a failed iteration and highlights the argument that did not match', async () => {
    await page.locator('ul.failed-iterations a').first().click();
    const mark = page.locator('mark.mismatch[data-argument="message"]');
    await mark.first().waitFor();
    // Both sides of the mismatch are marked: the expected "hello" and the "goodbye" the model sent.
    expect(await mark.allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining('"hello"'), expect.stringContaining('"goodbye"')]),
    );
    expect(await page.locator('.conversation .message-assistant').count()).toBeGreaterThan(0);
    expect(await page.locator('table.timeline tr.span-llm').count()).toBeGreaterThan(0);
    expect(await page.locator('table.timeline tr.span-tool').count()).toBeGreaterThan(0);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await scan(page), 'axe on the trace view, dark').toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await checkView('trace');
  });

  it('compares two runs with the regressed case first, said plainly', async () => {
    const { call, org, model } = world;
    const p = org.projectId;
    // Second run: "greets" now sends the wrong argument too (6/6 -> 0/6, a significant fall).
    model.setScript('scripted-console-views', { byQuery: { 'Say hello': wrong(0), 'Say it': wrong(0) } });
    const second = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId,
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
    });
    expect(second.status).toBe(202);
    secondRunId = second.body.runId;
    expect((await waitForRun(call, p, secondRunId)).status).toBe('completed');

    await page.goto(`${world.consoleUrl}#/projects/${p}/runs/${secondRunId}/compare`);
    const first = page.locator('table.compare-cases tbody tr').first();
    await first.waitFor();
    expect(await first.getAttribute('class')).toContain('case-regressed');
    expect(await first.innerText()).toContain('greets');
    expect(await first.innerText()).toContain('likely a real regression');
    expect(await page.locator('#verdict-heading').innerText()).toBe('Likely a real regression');
    expect(await page.locator('#verdict-reason').innerText()).toContain('1 of 2 matched cases regressed significantly');
    // The base picker offers the suite's other runs, the previous completed one chosen by default.
    expect(await page.locator('#base-run').inputValue()).toBe(previousRunId);
    await checkView('compare');
  });

  it('re-grades a finished run: the new run says what it graded again and compares with it', async () => {
    const p = world.org.projectId;
    const modelCalls = world.model.calls('scripted-console-views').length;
    await page.goto(`${world.consoleUrl}#/projects/${p}/runs/${secondRunId}`);
    await page.getByRole('button', { name: 'Re-grade' }).click();
    await page.waitForURL((url) => url.hash.includes('/runs/') && !url.hash.includes(secondRunId));
    expect(await page.locator('section.regrade-origin').innerText()).toContain(`A re-grade of run ${secondRunId}`);
    // graded from the recorded conversations: no model call
    await page.getByRole('link', { name: 'Compare with the re-graded run' }).click();
    await page.locator('#verdict-heading').waitFor();
    expect(await page.locator('#verdict-heading').innerText()).toBe('No significant change');
    expect(world.model.calls('scripted-console-views').length).toBe(modelCalls);
    await checkView('regrade-compare');
  });

  it("calls server-everything's echo from the form generated from its input schema", async () => {
    const p = world.org.projectId;
    await page.goto(`${world.consoleUrl}#/projects/${p}/servers`);
    const server = page.locator('section.server', { hasText: 'everything' });
    await server.getByRole('button', { name: 'Run doctor' }).click();
    await server.locator('.doctor-status .badge-doctor-ready').waitFor({ timeout: 30_000 });

    await server.getByRole('button', { name: 'Tools' }).click();
    const echo = server.locator('li.tool', { has: page.locator('summary code', { hasText: /^echo$/ }) });
    await echo.locator('summary').click();
    await echo.getByLabel(/^message/).fill('hi from the console');
    await echo.getByRole('button', { name: 'Call echo' }).click();
    const result = echo.locator('.tool-result pre');
    await result.waitFor({ timeout: 30_000 });
    expect(await result.innerText()).toContain('Echo: hi from the console');

    // Numbers are sent as numbers, an enum is a choice, an optional boolean starts at its default.
    const tool = (name: RegExp) => server.locator('li.tool', { has: page.locator('summary code', { hasText: name }) });
    const sum = tool(/^get-sum$/);
    await sum.locator('summary').click();
    expect(await sum.locator('input[name="a"]').getAttribute('type')).toBe('number');
    await sum.locator('input[name="a"]').fill('2');
    await sum.locator('input[name="b"]').fill('3.5');
    await sum.getByRole('button', { name: 'Call get-sum' }).click();
    await sum.locator('.tool-result pre').waitFor({ timeout: 30_000 });
    expect(await sum.locator('.tool-result pre').innerText()).toContain('The sum of 2 and 3.5 is 5.5.');
    const annotated = tool(/^get-annotated-message$/);
    await annotated.locator('summary').click();
    expect(await annotated.locator('select[name="includeImage"]').inputValue()).toBe('false');
    await annotated.getByLabel(/^messageType/).selectOption({ label: 'success' });
    await annotated.getByRole('button', { name: 'Call get-annotated-message' }).click();
    await annotated.locator('.tool-result pre').waitFor({ timeout: 30_000 });
    expect(await annotated.locator('.tool-result pre').innerText()).toContain('Operation completed successfully');
    await checkView('servers');
  });

  it('cancels a running run from its page', async () => {
    const { call, org, model } = world;
    const p = org.projectId;
    model.setScript('scripted-console-views', {
      byQuery: { 'Say hello': right('hello', 1500), 'Say it': wrong(1500) },
    });
    const started = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId,
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      concurrency: 1,
    });
    expect(started.status).toBe(202);
    await page.goto(`${world.consoleUrl}#/projects/${p}/runs/${started.body.runId}`);
    await page.getByRole('button', { name: 'Cancel the run' }).click();
    await page.locator('h1 .badge-cancelled').waitFor({ timeout: 30_000 });
    expect(await page.getByRole('button', { name: /Cancel/ }).count()).toBe(0);
  });

  it('shows a column per model for a run of several models', async () => {
    const { call, org, serverId, model } = world;
    const p = org.projectId;
    for (const id of ['model-a', 'model-b'])
      model.setScript(id, { byQuery: { 'Say hello': right('hello', 0), 'Say it': wrong(0) } });
    const started = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Two models',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      models: [
        { model: 'model-a', provider: 'openai' },
        { model: 'model-b', provider: 'openai' },
      ],
      tests: [
        { title: 'greets', query: 'Say hello', runs: 2, expectedToolCalls: [{ toolName: 'echo' }] },
        {
          title: 'says it',
          query: 'Say it',
          runs: 2,
          expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
        },
      ],
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect((await waitForRun(call, p, started.body.runId)).status).toBe('completed');
    await page.goto(`${world.consoleUrl}#/projects/${p}/runs/${started.body.runId}`);
    const models = page.locator('table.models');
    await models.waitFor();
    expect(await models.locator('tbody th').allInnerTexts()).toEqual(['model-a', 'model-b']);
    const cases = page.locator('table.cases');
    expect(await cases.locator('thead th').allInnerTexts()).toEqual(['Case', 'model-a', 'model-b']);
    expect(await cases.locator('tr', { hasText: 'greets' }).innerText()).toMatch(/2\/2.*2\/2/s);
    expect(await scan(page), 'axe on a run of two models').toEqual([]);

    // Choosing a model: four iterations a model are too few to call model-b no worse than model-a.
    await page.getByRole('link', { name: 'Choose a model' }).click();
    const choices = page.locator('table.model-choices');
    await choices.waitFor();
    expect(await choices.locator('tbody th').allInnerTexts()).toEqual(['model-a', 'model-b']);
    expect(await choices.locator('tr', { hasText: 'model-b' }).innerText()).toContain('inconclusive');
    expect(await page.locator('#pick-heading').innerText()).toBe('Pick model-a');
    await page.locator('#margin').selectOption('0.1');
    await page.waitForURL(/margin=0\.1/);
    expect(await page.locator('#margin').inputValue()).toBe('0.1');
    await checkView('models');
  });

  it("shows an adaptive run's iterations per case and why each stopped", async () => {
    const { call, org, serverId, model } = world;
    const p = org.projectId;
    model.setScript('scripted-console-adaptive', { byQuery: { 'Say hello': right('hello', 0) } });
    const greets = {
      title: 'greets',
      query: 'Say hello',
      runs: 10,
      model: 'scripted-console-adaptive',
      provider: 'openai',
      expectedToolCalls: [{ toolName: 'echo' }],
    };
    const base = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Adaptive',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      tests: [greets],
    });
    expect(base.status, JSON.stringify(base.body)).toBe(202);
    expect((await waitForRun(call, p, base.body.runId)).status).toBe('completed');
    const started = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId: base.body.suiteId,
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      adaptive: { baseline: 'previous', maxIterationsPerCase: 30, stopWhen: 'decided' },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect((await waitForRun(call, p, started.body.runId)).status).toBe('completed');
    await page.goto(`${world.consoleUrl}#/projects/${p}/runs/${started.body.runId}`);
    const table = page.locator('table.adaptive');
    await table.waitFor();
    expect(await table.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/greets\s+5\s+decided: unchanged\s+1\.00 \(/),
    ]);
    expect(await page.getByText('5 of 30 iterations spent').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'the baseline run' }).getAttribute('href')).toContain(base.body.runId);
    expect(await scan(page), 'axe on an adaptive run').toEqual([]);
  });

  it('counts an errored iteration as the API does: apart from the failed ones (domain/evals/verdicts.ts)', async () => {
    const { call, org, seeded } = world;
    // The seeded suite's second run: one iteration's model call was refused, so it could not be scored.
    const runId = seeded.suite.runIds[1];
    const { progress } = (await call('GET', `/projects/${org.projectId}/eval-runs/${runId}`)).body;
    expect(progress).toEqual({ total: 7, completed: 7, passed: 6, failed: 0, errored: 1 });
    await page.goto(`${world.consoleUrl}#/projects/${org.projectId}/runs/${runId}`);
    await page.locator('ul.failed-iterations li').first().waitFor();
    const counter = async (name: string) => Number(await page.locator(`[data-counter="${name}"]`).innerText());
    expect([await counter('passed'), await counter('failed'), await counter('errored')]).toEqual([
      progress.passed,
      progress.failed,
      progress.errored,
    ]);
    expect(await page.locator('ul.failed-iterations .badge').allInnerTexts()).toEqual(['errored']);
  });
});
