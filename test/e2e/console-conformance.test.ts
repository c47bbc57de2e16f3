import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SavedServer } from '../../domain/catalog/server.js';
import type { ConformanceOptions, ConformanceReport, ConformanceRunner } from '../../domain/mcp/conformance/report.js';
import { launchChromium } from '../helpers/chromium.js';
import { guardPage, scan, shot, signIn, type GuardedPage } from '../helpers/console.js';
import { everythingOverStdio, saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/**
 * The Servers view's Conformance panel against a real stack (API, Temporal, Postgres), the worker's suite runner the
 * test's own: a check run at a chosen revision is followed until it ends, its score and its failed check with the
 * suite's message shown, and the history lists it; a stdio server says why it cannot be checked.
 */
class HeldRunner implements ConformanceRunner {
  private release?: () => void;
  readonly revisions: string[] = [];

  get waiting() {
    return this.release !== undefined;
  }

  finish() {
    this.release?.();
  }

  async check(server: SavedServer, options: ConformanceOptions): Promise<ConformanceReport> {
    this.revisions.push(options.specVersion);
    // Held until the test has seen the check running.
    await new Promise<void>((resolve) => (this.release = resolve));
    this.release = undefined;
    const now = new Date().toISOString();
    return {
      specVersion: options.specVersion,
      suiteVersion: '0.0.0-test',
      scenarios: [
        {
          name: 'server-initialize',
          scored: true,
          notScoredReason: null,
          status: 'passed',
          checks: [
            {
              id: 'init',
              name: 'Initialize',
              description: `${server.name} answers initialize`,
              status: 'passed',
              message: null,
              specReferences: [],
            },
          ],
        },
        {
          name: 'tools-call',
          scored: true,
          notScoredReason: null,
          status: 'failed',
          checks: [
            {
              id: 'tools-call-error',
              name: 'Tool error result',
              description: 'a failing tool answers isError',
              status: 'failed',
              message: 'expected isError: true, got a JSON-RPC error -32603',
              specReferences: [],
            },
          ],
        },
      ],
      score: {
        value: 50,
        passedScenarios: 1,
        scoredScenarios: 2,
        passedChecks: 1,
        failedChecks: 1,
        method: 'the share of scored scenarios with no failed check',
      },
      startedAt: now,
      finishedAt: now,
    };
  }
}

describe('the console: a server conformance panel', () => {
  const runner = new HeldRunner();
  let stack: TestStack;
  let org: SeededOrganization;
  let browser: Browser;
  let guarded: GuardedPage;
  let page: Page;

  beforeAll(async () => {
    stack = await startTestStack({ conformanceRunner: runner });
    org = await seedOrganization(stack.sql);
    await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'remote',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
    });
    await saveServer(stack.sql, stack.box, { projectId: org.projectId, name: 'local', ...everythingOverStdio() });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    guarded = await guardPage(await context.newPage(), stack.origin);
    page = guarded.page;
    await signIn(page, `${stack.origin}/console/`, org.apiKey);
  });
  afterAll(async () => {
    await browser?.close().catch(() => {});
    await stack?.stop();
  });

  it('runs a check at a revision, follows it, shows the score, the failed check and the history', async () => {
    await page.goto(`${stack.origin}/console/#/projects/${org.projectId}/servers`);
    const remote = page.locator('section.server', { hasText: 'remote' });
    const panel = remote.getByRole('region', { name: 'Conformance' });
    await panel.getByText('No conformance check of this server yet.').waitFor();
    await panel.getByLabel('Revision').selectOption('2025-11-25');
    await panel.getByRole('button', { name: 'Run check' }).click();

    const status = panel.getByRole('status');
    await status.getByText('running').waitFor({ timeout: 30_000 });
    expect(runner.revisions).toEqual(['2025-11-25']);
    expect(await panel.getByRole('button', { name: 'Run check' }).isDisabled()).toBe(true);
    runner.finish();

    await status.getByText('50/100').waitFor({ timeout: 30_000 });
    expect(await status.innerText()).toContain('Check of MCP 2025-11-25');
    const failed = panel.getByRole('table', { name: 'Checks of tools-call' });
    expect(await failed.innerText()).toContain('expected isError: true, got a JSON-RPC error -32603');
    const history = panel.getByRole('table', { name: 'Conformance checks of remote' });
    await history.getByRole('cell', { name: 'completed' }).waitFor();
    expect(await history.locator('tbody tr').count()).toBe(1);

    const local = page.locator('section.server', { hasText: 'local' });
    const localPanel = local.getByRole('region', { name: 'Conformance' });
    expect(await localPanel.innerText()).toContain('Only Streamable HTTP servers can be checked');
    expect(await localPanel.getByRole('button', { name: 'Run check' }).count()).toBe(0);

    expect(await scan(page), 'axe on the servers view with a conformance report').toEqual([]);
    await shot(page, 'server-conformance');
    guarded.assertClean();
  });
});
