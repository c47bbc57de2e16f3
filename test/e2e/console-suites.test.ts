import { readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, consoleRoutes, defaultConsoleDir } from '../../api/console.js';
import { SCRIPT_BUDGET_BYTES } from '../../scripts/build-console.js';
import {
  CONSOLE_MODEL,
  scan,
  shot,
  signIn,
  startConsoleWorld,
  storedKey,
  type ConsoleWorld,
} from '../helpers/console.js';

/**
 * The console's shell and its first two views against a real stack with real runs (test/helpers/console.ts): sign in,
 * the suites with their trend and sources, the suite with its runs, trend and case history, and the forms that change
 * a suite. Screenshots land in test-results/console/.
 */
describe('the eval console: sign-in, suites and a suite', () => {
  let world: ConsoleWorld;
  beforeAll(async () => {
    world = await startConsoleWorld();
  });
  afterAll(async () => world?.stop());

  it('refuses a wrong key, then signs in and lists the suites with their trend and sources, filtered by source', async () => {
    const { page, assertClean } = await world.newPage();
    await page.goto(world.consoleUrl);
    expect(await page.title()).toContain('Runway console');
    await page.getByLabel('API key').fill('sk_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('did not accept this key');
    expect(await storedKey(page)).toBeNull();
    expect(await scan(page)).toEqual([]);
    await shot(page, 'sign-in');

    await signIn(page, world.consoleUrl, world.org.apiKey);
    expect(await storedKey(page)).toBe(world.org.apiKey);
    const echo = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Echo checks' }) });
    const nightly = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Nightly (CI)' }) });
    await echo.waitFor();
    // The trend of the three runs (100%, 86%, 43%), in words for the chart's text alternative.
    expect(await echo.getByRole('img').getAttribute('aria-label')).toMatch(/over 3 runs: from 100% .* to 43%/);
    expect(await echo.locator('canvas').count()).toBeGreaterThan(0);
    expect(await echo.getByRole('list', { name: 'Sources' }).innerText()).toBe('api');
    expect(await nightly.getByRole('list', { name: 'Sources' }).innerText()).toBe('sdk');
    expect(await echo.innerText()).toContain('43%');
    expect(await scan(page)).toEqual([]);
    await shot(page, 'suites');

    await page.getByLabel('Source', { exact: true }).selectOption('sdk');
    await expect.poll(() => page.getByRole('heading', { name: 'Echo checks' }).count()).toBe(0);
    expect(await nightly.count()).toBe(1);
    expect(page.url()).toContain('source=sdk');
    await page.getByLabel('Source', { exact: true }).selectOption('');
    await echo.waitFor();

    // The budget of the issue: the first view interactive in under 1 s on the local stack (a reload, signed in: the
    // page, its script and style, and the view's two requests).
    await page.reload();
    await page.getByRole('heading', { name: 'Echo checks' }).waitFor();
    const interactiveMs = (await page.evaluate('performance.now()')) as number;
    expect(interactiveMs).toBeLessThan(1000);

    // Signing out forgets the key.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await storedKey(page)).toBeNull();
    assertClean();
  });

  it('shows a suite: runs newest first, trend, case history; edits it, adds a case, starts a run, sets a schedule', async () => {
    const { page, assertClean } = await world.newPage();
    const { suite } = world.seeded;
    const p = world.org.projectId;
    await signIn(page, world.consoleUrl, world.org.apiKey);
    await page.getByRole('link', { name: 'Echo checks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Echo checks' }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/projects/${p}/suites/${suite.id}`);

    const runs = page.getByRole('table', { name: /newest runs/ });
    const rows = runs.locator('tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.locator('th').allInnerTexts()).toEqual(['Run #3', 'Run #2', 'Run #1']);
    const newest = await rows.first().innerText();
    expect(newest).toContain('wrong argument');
    expect(newest).toContain('43%');
    expect(newest).toMatch(/\d+–\d+%/); // the 95% interval
    expect(newest).toContain('scripted-console');
    expect(newest).toContain('api');
    expect(await rows.first().getByRole('link').getAttribute('href')).toBe(`#/projects/${p}/runs/${suite.runIds[2]}`);
    expect(await page.getByRole('img', { name: /Pass rate of Echo checks over 3 runs/ }).count()).toBe(1);
    // Each case's history over the three runs: "says goodbye" fell to 0% in the last one.
    const goodbye = page.getByRole('img', { name: /Pass rate of says goodbye/ });
    expect(await goodbye.getAttribute('aria-label')).toMatch(/over 3 runs: 100%, 75%, 0%/);
    expect(await page.getByRole('img', { name: /Pass rate of greets over 3 runs: 100%, 100%, 100%/ }).count()).toBe(1);
    expect(await scan(page)).toEqual([]);
    await shot(page, 'suite');

    // Edit the suite: its name, and a default model for cases that name none (the one added below).
    await page.getByRole('button', { name: 'Edit the suite' }).click();
    const editor = page.getByRole('form', { name: 'Edit the suite' });
    await editor.getByLabel('Name').fill('Echo checks (edited)');
    await editor.getByRole('button', { name: 'Add a model' }).click();
    await editor.getByLabel('Model 1', { exact: true }).fill('scripted-console');
    await editor.getByLabel('Provider', { exact: true }).fill('openai');
    expect(await scan(page)).toEqual([]);
    await editor.getByRole('button', { name: 'Save the suite' }).click();
    await page.getByRole('heading', { level: 1, name: 'Echo checks (edited)' }).waitFor();
    const edited = (await world.call('GET', `/projects/${p}/eval-suites/${suite.id}`)).body;
    expect(edited).toMatchObject({
      name: 'Echo checks (edited)',
      models: [{ model: 'scripted-console', provider: 'openai' }],
    });

    // Add a case; a duplicate is refused by the API, and its message is shown next to the form.
    const addCase = async (title: string, prompt: string) => {
      await page.getByRole('button', { name: 'Add a case' }).click();
      const form = page.getByRole('form', { name: 'Add a case' });
      await form.getByLabel('Title').fill(title);
      await form.getByLabel('Prompt').fill(prompt);
      await form.getByLabel('Expected tool calls').fill('echo {"message": "again"}');
      await form.getByLabel('Iterations per run').fill('2');
      await form.getByRole('button', { name: 'Add the case' }).click();
      return form;
    };
    await addCase('repeats', 'say again');
    await page.getByRole('row', { name: /repeats/ }).waitFor();
    const cases = (await world.call('GET', `/projects/${p}/eval-suites/${suite.id}/cases`)).body.items;
    expect(cases.find((c: { title: string }) => c.title === 'repeats')).toMatchObject({
      prompt: 'say again',
      iterations: 2,
      expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'again' } }],
    });
    const duplicate = await addCase('repeats', 'say again');
    await expect.poll(() => duplicate.getByRole('alert').innerText()).toMatch(/already has this title and prompt/);
    expect(await scan(page)).toEqual([]);
    await duplicate.getByRole('button', { name: 'Cancel' }).click();

    // Edit a case (its full text is read when asked for), then delete the added one, confirming first.
    await page.getByRole('button', { name: 'Edit greets' }).click();
    const editCase = page.getByRole('form', { name: /Edit the case .greets./ });
    expect(await editCase.getByLabel('Expected tool calls').inputValue()).toBe('echo {"message":"hello"}');
    await editCase.getByLabel('Iterations per run').fill('2');
    await editCase.getByRole('button', { name: 'Save the case' }).click();
    await editCase.waitFor({ state: 'detached' });
    const greets = (await world.call('GET', `/projects/${p}/eval-suites/${suite.id}/cases/${suite.caseIds.greets}`))
      .body;
    expect(greets).toMatchObject({ iterations: 2, prompt: 'say hello' });
    await page.getByRole('button', { name: 'Delete repeats' }).click();
    await page.getByRole('button', { name: 'Confirm deleting repeats' }).click();
    await expect.poll(() => page.getByRole('row', { name: /repeats/ }).count()).toBe(0);

    // Estimate it first: the plan and its cost, nothing started (still three runs in the table).
    await page.getByRole('button', { name: 'Estimate the cost' }).click();
    const estimate = page.locator('#run-estimate');
    await estimate.waitFor();
    expect(await estimate.innerText()).toMatch(
      /^A run would make \d+ iterations? \(\d+ cases?, \d+ models?\), about [\d,]+ tokens/,
    );
    expect(await rows.count()).toBe(3);

    // Start a run: it appears in the table.
    await page.getByLabel('Notes').fill('from the console');
    await page.getByRole('button', { name: 'Start a run' }).click();
    await page.getByRole('status').filter({ hasText: 'Run started' }).waitFor();
    await expect.poll(() => rows.count()).toBe(4);
    expect(await rows.first().innerText()).toContain('from the console');
    expect(await rows.locator('th').first().innerText()).toBe('Run #4');

    // Set a schedule.
    await page.getByLabel('Run on a schedule').check();
    await page.getByLabel('Every (minutes)').fill('1440');
    await page.getByRole('button', { name: 'Save the schedule' }).click();
    await expect.poll(() => page.locator('#schedule-state').innerText()).toContain('Runs every day');
    const detail = (await world.call('GET', `/projects/${p}/eval-suites/${suite.id}`)).body;
    expect(detail.schedule).toMatchObject({ enabled: true, intervalMinutes: 1440 });
    await shot(page, 'suite-edited');
    assertClean();
  });

  it('follows the runs it shows running to their end, without reload: the suite’s run list and the suites’ latest run', async () => {
    const p = world.org.projectId;
    // Two quick iterations and two slow ones: whatever the order and concurrency, the run spends seconds part done.
    const model = 'scripted-console-live';
    const echo = (delayMs: number) => [
      { toolCalls: [{ name: 'echo', arguments: { message: 'hello' } }], delayMs },
      { text: 'done' },
    ];
    world.model.setScript(model, { byQuery: { 'say it now': echo(0), 'say it slowly': echo(4000) } });
    const test = (title: string, query: string) => ({
      title,
      query,
      runs: 2,
      model,
      provider: 'openai',
      expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
    });
    const created = await world.call('POST', `/projects/${p}/eval-suites`, {
      name: 'Live runs',
      model,
      serverIds: [world.serverId],
      isolation: 'shared',
      tests: [test('quick', 'say it now'), test('slow', 'say it slowly')],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const suiteId: string = created.body.suiteId;

    const { page, assertClean } = await world.newPage();
    await signIn(page, world.consoleUrl, world.org.apiKey);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
    await page.goto(`${world.consoleUrl}#/projects/${p}/suites/${suiteId}`);
    await page.getByRole('heading', { level: 1, name: 'Live runs' }).waitFor();
    // Set on this document: still there at the end, so the page was never reloaded.
    await page.evaluate('window.__sameDocument = true');

    // The suite view: the new row shows its progress as it goes, then its final status and result.
    await page.getByRole('button', { name: 'Start a run' }).click();
    const row = page
      .getByRole('table', { name: /newest runs/ })
      .locator('tbody tr')
      .first();
    await expect.poll(() => row.locator('th').innerText()).toBe('Run #1');
    const status = row.locator('td').first();
    await expect.poll(() => status.innerText(), { timeout: 30_000 }).toMatch(/^running \(([123])\/4\)$/);
    await expect.poll(() => status.innerText(), { timeout: 30_000 }).toBe('completed');
    expect(await row.locator('td').nth(1).innerText()).toBe('passed');
    expect(await row.locator('td').nth(2).innerText()).toBe('100%');
    // The trend and the cases' history come with the finished run.
    await expect
      .poll(() => page.getByRole('img', { name: /Pass rate of slow over 1 run/ }).getAttribute('aria-label'))
      .toMatch(/100%/);
    await shot(page, 'suite-live');

    // The suites list: the suite's latest run shows its progress, then its result and the new totals.
    await page.getByRole('button', { name: 'Start a run' }).click();
    await expect.poll(() => row.locator('th').innerText()).toBe('Run #2');
    await page.getByRole('link', { name: '← Suites' }).click();
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Live runs' }) });
    const latest = card.locator('dd').first();
    await expect.poll(() => latest.innerText(), { timeout: 30_000 }).toMatch(/^running \([0123]\/4\)/);
    await expect
      .poll(() => latest.innerText(), { timeout: 30_000 })
      .toMatch(/^passed 100% \(4 passed, 0 failed, 0 errored\)/);
    await expect.poll(() => card.locator('dd').nth(1).innerText(), { timeout: 30_000 }).toBe('2 (2 passed, 0 failed)');
    expect(await scan(page)).toEqual([]);

    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    // The key's budget: one events stream per view while it shows a run running (the suite view's two runs one after
    // the other, then the list's), no polling of the runs, and the view read again only when a run started or ended.
    const streams = requests.filter((r) => r === `GET /api/v1/projects/${p}/eval-runs/events`);
    expect(streams).toHaveLength(3);
    expect(requests.filter((r) => /\/eval-runs\/[^/]+$/.test(r) && !r.endsWith('/events'))).toEqual([]);
    expect(requests.filter((r) => r.endsWith('/overview'))).toHaveLength(4);
    assertClean();
  });

  it('waits out a 429 saying so, and goes back to the sign-in form on a 401', async () => {
    const { page, assertClean } = await world.newPage();
    const { suite } = world.seeded;
    await signIn(page, world.consoleUrl, world.org.apiKey);
    await page.getByRole('heading', { name: 'Echo checks' }).waitFor();

    // The suite's first request is answered 429 with Retry-After: 2, once: the page says it waits, then shows it.
    let limited = 0;
    await page.route(`**/api/v1/projects/*/eval-suites/${suite.id}**`, async (route) => {
      if (limited++ > 0) return await route.fallback();
      await route.fulfill({
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '2' },
        body: JSON.stringify({ code: 'RATE_LIMITED', message: 'rate limit exceeded' }),
      });
    });
    await page.getByRole('link', { name: 'Echo checks' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'The API asks us to wait 2 s (rate limit); retrying…' });
    await notice.waitFor();
    await shot(page, 'rate-limited');
    await page.getByRole('heading', { level: 1, name: /Echo checks/ }).waitFor();
    expect(await notice.count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);

    // A key that stops working (revoked meanwhile): the next request's 401 signs the tab out, saying why.
    await page.route('**/api/v1/**', (route) =>
      route.fulfill({
        status: 401,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'UNAUTHORIZED', message: 'API key revoked' }),
      }),
    );
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('API key revoked');
    expect(await storedKey(page)).toBeNull();
    assertClean();
  });

  it('reads well in dark mode too', async () => {
    const { page, assertClean } = await world.newPage({ colorScheme: 'dark' });
    await signIn(page, world.consoleUrl, world.org.apiKey);
    await page.getByRole('heading', { name: 'Nightly (CI)' }).waitFor();
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(15, 18, 22)');
    expect(await scan(page)).toEqual([]);
    await shot(page, 'suites-dark');
    assertClean();
  });

  it('is served with a strict CSP, no inline script, long-cached hashed assets, and under the script budget', async () => {
    const reply = await fetch(world.consoleUrl);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('referrer-policy')).toBe('no-referrer');
    expect(reply.headers.get('cache-control')).toBe('no-cache');
    const html = await reply.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBe(1);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\/console\/main-[A-Z0-9]+\.js"/);
      expect(body.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);

    const asset = html.match(/src="(\/console\/main-[A-Z0-9]+\.js)"/)![1];
    const script = await fetch(world.stack.origin + asset);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(script.headers.get('cache-control')).toContain('immutable');
    expect(script.headers.get('content-security-policy')).toBe(CONSOLE_CSP);

    const bare = await fetch(`${world.stack.origin}/console`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/console/');

    const scriptBytes = readdirSync(defaultConsoleDir)
      .filter((f) => f.endsWith('.js'))
      .reduce((sum, f) => sum + gzipSync(readFileSync(join(defaultConsoleDir, f)), { level: 9 }).length, 0);
    expect(scriptBytes).toBeGreaterThan(0);
    expect(scriptBytes).toBeLessThan(SCRIPT_BUDGET_BYTES);
  });

  it('says how to build the console when it is not built', async () => {
    const app = express().use(consoleRoutes(join(defaultConsoleDir, 'no-such-folder')));
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const { port } = server.address() as { port: number };
      const reply = await fetch(`http://127.0.0.1:${port}/console/`);
      expect(reply.status).toBe(503);
      expect(reply.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(await reply.text()).toContain('npm run build:console');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('shows a large suite’s cases a page at a time: “More cases” reads the next page', async () => {
    const p = world.org.projectId;
    const created = await world.call('POST', `/projects/${p}/eval-suites`, {
      name: 'Many cases',
      model: CONSOLE_MODEL,
      serverIds: [world.serverId],
      tests: [{ title: 'case 0', query: 'query 0', model: CONSOLE_MODEL, provider: 'openai' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const suiteId: string = created.body.suiteId;
    await world.stack.sql`
      INSERT INTO eval_cases (id, suite_id, title, query, runs)
      SELECT 'case_many_' || g, ${suiteId}, 'case ' || g, 'query ' || g, 1 FROM generate_series(1, 129) AS g`;
    const { page, assertClean } = await world.newPage();
    await signIn(page, world.consoleUrl, world.org.apiKey);
    await page.goto(`${world.consoleUrl}#/projects/${p}/suites/${suiteId}`);
    await page.getByRole('heading', { level: 1, name: 'Many cases' }).waitFor();
    const rows = page.getByRole('table', { name: /Each case/ }).locator('tbody tr');
    expect(await rows.count()).toBe(100);
    await page.getByRole('button', { name: 'More cases' }).click();
    await expect.poll(() => rows.count()).toBe(130);
    expect(await rows.last().locator('th').innerText()).toBe('case 129');
    expect(await page.getByRole('button', { name: 'More cases' }).count()).toBe(0);
    assertClean();
  });
});
