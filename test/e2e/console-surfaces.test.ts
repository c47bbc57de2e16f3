import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { launchChromium } from '../helpers/chromium.js';
import { guardPage, signIn } from '../helpers/console.js';
import { saveServer } from '../helpers/mcpServers.js';
import { startDriftingServer, type DriftingServer } from '../fixtures/mcp/drifting.js';

/**
 * The console's tool surfaces: the Servers view lists the surfaces a server showed and diffs two picked from the
 * list; the compare view of two runs whose server changed a tool between them shows the drift and marks the case.
 */
describe('tool surfaces in the console', () => {
  let world: EvalWorld;
  let browser: Browser;
  let drifting: DriftingServer;
  let serverId: string;

  beforeAll(async () => {
    [world, drifting, browser] = await Promise.all([startEvalWorld(), startDriftingServer(), launchChromium()]);
    serverId = await saveServer(world.stack.sql, world.stack.box, {
      projectId: world.org.projectId,
      name: 'drifting',
      transportType: 'http',
      url: drifting.url,
    } as never);
  });
  afterAll(async () => {
    await browser?.close();
    await world?.stop();
    await drifting?.close();
  });

  it('lists the surfaces, diffs two, and shows drift on the comparison', async () => {
    const { call, org, model } = world;
    const p = org.projectId;
    const script = [{ toolCalls: [{ name: 'search', arguments: { q: 'shoes' } }] }, { text: 'ok' }];
    model.setScript('scripted-surfaces', { byQuery: { 'find shoes': script } });
    const first = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Surfaces',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      tests: [
        {
          title: 'searching',
          query: 'find shoes',
          runs: 1,
          model: 'scripted-surfaces',
          provider: 'openai',
          expectedToolCalls: [{ toolName: 'search' }],
        },
      ],
    });
    expect((await waitForRun(call, p, first.body.runId)).status).toBe('completed');
    drifting.state.searchDescription = 'Search, then summarize';
    const second = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId: first.body.suiteId,
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
    });
    const runId = second.body.runId;
    expect((await waitForRun(call, p, runId)).status).toBe('completed');

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const guarded = await guardPage(await context.newPage(), world.stack.origin);
    const page = guarded.page;
    const consoleUrl = `${world.stack.origin}/console/`;
    await signIn(page, consoleUrl, org.apiKey);

    await page.goto(`${consoleUrl}#/projects/${p}/servers`);
    await page.getByRole('button', { name: 'Tool surfaces of drifting' }).click();
    const rows = page.locator('table.surface-list tbody tr');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    // The older surface (listed second) from, the newer to.
    await rows
      .nth(1)
      .getByRole('radio', { name: /^From / })
      .check();
    await rows.nth(0).getByRole('radio', { name: /^To / }).check();
    await page.getByRole('button', { name: 'Show the diff' }).click();
    const diff = page.getByRole('region', { name: 'Surface diff' });
    await diff.getByText('Changed:').waitFor();
    const text = await diff.innerText();
    expect(text).toContain('search');
    expect(text).toContain('description');
    expect(text).toContain('"Search the catalog by keyword"');
    expect(text).toContain('"Search, then summarize"');

    await page.goto(`${consoleUrl}#/projects/${p}/runs/${runId}/compare?base=${first.body.runId}`);
    const banner = page.getByRole('note');
    await banner.getByText('The tools changed between the runs').waitFor();
    expect(await banner.innerText()).toContain("the `search` tool's description changed");
    const caseRow = page.locator('table.compare-cases tbody tr', { hasText: 'searching' });
    expect(await caseRow.locator('.badge-drift').innerText()).toContain('tool changed: search');
    guarded.assertClean();
  });
});
