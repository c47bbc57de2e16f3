import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../db/accounts.js';
import { startEvalWorld, type EvalWorld } from '../helpers/evals.js';
import { launchChromium } from '../helpers/chromium.js';
import { guardPage, signIn } from '../helpers/console.js';

/**
 * The console is frugal with a key's budget: on the default limits (60 a minute, bursts of 10), a user who opens a
 * suite, a run, a trace and a comparison and goes back twice within a minute never meets a 429.
 */
describe('browsing the console on the default rate limits', () => {
  let world: EvalWorld;
  let browser: Browser;

  beforeAll(async () => {
    world = await startEvalWorld({ RATE_LIMIT_PER_MINUTE: '60', RATE_LIMIT_BURST: '10' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await world?.stop();
  });

  /** Waits for a run to end, asking once a second (the setup's key has the default limits too). */
  async function finished(projectId: string, runId: string) {
    for (let i = 0; i < 60; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const reply = await world.call('GET', `/projects/${projectId}/eval-runs/${runId}`);
      if (reply.status === 200 && reply.body.status !== 'running') return reply.body;
    }
    throw new Error(`run ${runId} did not end`);
  }

  it('opens a suite, a run, a trace and a comparison and goes back twice with no rate-limit notice', async () => {
    const { call, org, serverId, model } = world;
    const p = org.projectId;
    model.setScript('scripted-browse', {
      byQuery: {
        'Say hello': [{ toolCalls: [{ name: 'echo', arguments: { message: 'hello' } }] }, { text: 'ok' }],
        'Say it': [{ toolCalls: [{ name: 'echo', arguments: { message: 'goodbye' } }] }, { text: 'ok' }],
      },
    });
    const tests = [
      { title: 'greets', query: 'Say hello', runs: 2 },
      { title: 'says the wrong thing', query: 'Say it', runs: 2 },
    ].map((t) => ({
      ...t,
      model: 'scripted-browse',
      provider: 'openai',
      expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
    }));
    const first = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Browsing',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      tests,
    });
    expect(first.status).toBe(202);
    await finished(p, first.body.runId);
    const second = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId: first.body.suiteId,
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
    });
    expect(second.status).toBe(202);
    const runId = second.body.runId;
    await finished(p, runId);

    // The browser gets a key of its own: its bucket starts full, as a user's would.
    const key = await createApiKey(world.stack.sql, {
      name: 'browser',
      organizationId: org.organizationId,
      userId: org.userId,
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const guarded = await guardPage(await context.newPage(), world.stack.origin);
    const page = guarded.page;
    const limited: string[] = [];
    const asked: string[] = [];
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.pathname.startsWith('/api/v1/')) asked.push(`${response.request().method()} ${url.pathname}`);
      if (response.status() === 429) limited.push(response.url());
    });
    // Whatever the page ever says about a rate limit, even for a moment, is kept.
    const noticeSeen: string[] = [];
    await page.exposeFunction('reportNotice', (text: string) => noticeSeen.push(text));
    await page.addInitScript({
      content: `new MutationObserver(() => {
        const text = document.body ? document.body.innerText : '';
        if (/rate limit/i.test(text)) window.reportNotice(text);
      }).observe(document, { childList: true, subtree: true, characterData: true });`,
    });

    const started = Date.now();
    const consoleUrl = `${world.stack.origin}/console/`;
    await signIn(page, consoleUrl, key.key);
    await page.goto(`${consoleUrl}#/projects/${p}/suites/${first.body.suiteId}`);
    await page.getByRole('heading', { name: 'Browsing', level: 1 }).waitFor();
    await page.locator(`a[href$="/runs/${runId}"]`).first().click();
    const failedIteration = page.locator('ul.failed-iterations a').first();
    await failedIteration.waitFor();
    await page.locator('table.cases').waitFor();
    await failedIteration.click();
    await page.locator('mark.mismatch').first().waitFor();
    await page.goto(`${consoleUrl}#/projects/${p}/runs/${runId}/compare`);
    await page.locator('table.compare-cases').waitFor();
    await page.goBack();
    await page.locator('mark.mismatch').first().waitFor();
    await page.goBack();
    await page.locator('table.cases').waitFor();

    expect(Date.now() - started).toBeLessThan(60_000);
    expect(limited, `the page's requests: ${asked.join(', ')}`).toEqual([]);
    expect(noticeSeen).toEqual([]);
    guarded.assertClean();
  });
});
