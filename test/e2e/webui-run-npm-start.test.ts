import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ModelScript, type ScriptedModelServer } from '../fixtures/model/server.js';
import { launchChromium } from '../helpers/chromium.js';
import { waitForRun } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { startNpmStart, type NpmStartStack } from '../helpers/npmStart.js';
import { entryArgs } from '../helpers/entryPoints.js';

const root = new URL('../..', import.meta.url).pathname;
const METADATA_SCREENSHOT = 'test-results/temporal-eval-run-metadata.png';
const SEARCH_ATTRIBUTES_SCREENSHOT = 'test-results/temporal-eval-run-search-attributes.png';

/**
 * Issue 15 on the stack a user runs: an eval run started through the API on `npm start`, and its workflow's page in
 * Temporal Web UI, looked at in a real browser once the run has ended. What its tabs say (their DOM text) is what an
 * operator reads there without opening Postgres: the summary and details naming the suite, project, source and
 * iterations, the last current details (User Metadata), and the `RunwayResult` search attribute (Search Attributes).
 */
describe('an eval run in Temporal Web UI on npm start', () => {
  let stack: NpmStartStack;
  let model: ScriptedModelServer;
  let connection: Connection | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    const scripts = JSON.parse(
      readFileSync(new URL('../../examples/scripted-model.json', import.meta.url), 'utf8'),
    ) as Record<string, ModelScript>;
    for (const [modelId, script] of Object.entries(scripts)) model.setScript(modelId, script);
    stack = await startNpmStart({ RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_MINUTE: '60000' });
  }, 200_000);
  afterAll(async () => {
    await browser?.close();
    await connection?.close();
    await stack?.stop();
    await model?.close();
  });

  it("shows the run's summary, details, progress and RunwayResult on its workflow page", async () => {
    const call = apiClient(stack.apiUrl, stack.demoKey);
    const me = (await call('GET', '/me')).body;
    const organizationId = me.organization.id as string;
    await promisify(execFile)(
      process.execPath,
      [
        ...entryArgs('cli/admin.ts'),
        'provider-key',
        'set',
        '--org',
        organizationId,
        '--provider',
        'openai-compatible',
        '--api-key-env',
        'MODEL_API_KEY',
        '--base-url',
        model.url,
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          RUNWAY_DATA_DIR: stack.dataDir,
          EMBEDDED_POSTGRES_PORT: String(stack.ports.postgres),
          MODEL_API_KEY: 'local',
        },
      },
    );
    const project = ((await call('GET', '/projects')).body.items as { id: string; name: string }[])[0];
    const servers = (await call('GET', `/projects/${project.id}/servers`)).body.items as { id: string; name: string }[];
    const created = await call('POST', `/projects/${project.id}/eval-runs`, {
      suiteName: 'Web UI check',
      serverIds: [servers.find((s) => s.name === 'everything (stdio)')!.id],
      iterationOverride: 2,
      tests: [
        {
          title: 'Echo',
          query: 'Use the echo tool to say hello',
          model: 'gpt-4.1-mini',
          provider: 'openai-compatible',
          expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const { runId, suiteId } = created.body as { runId: string; suiteId: string };
    expect(await waitForRun(call, project.id, runId)).toMatchObject({ status: 'completed', result: 'passed' });

    // The workflow closes just after the run ends in Postgres (its last task sets RunwayResult).
    connection = await Connection.connect({ address: `127.0.0.1:${stack.ports.temporal}` });
    const handle = new Client({ connection }).workflow.getHandle(`eval-run:${runId}`);
    await handle.result();
    const { runId: executionId } = await handle.describe();

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const workflowPage = `http://127.0.0.1:${stack.ports.ui}/namespaces/default/workflows/${encodeURIComponent(`eval-run:${runId}`)}/${executionId}`;
    mkdirSync('test-results', { recursive: true });

    // "User Metadata": Web UI renders the summary, the details and the current details (Markdown) in frames of
    // their own; the current details come from a query the worker answers, so they show up last.
    await page.goto(`${workflowPage}/user-metadata`);
    const shownText = async () =>
      (
        await Promise.all(
          page.frames().map((frame) =>
            frame
              .locator('body')
              .innerText()
              .catch(() => ''),
          ),
        )
      ).join('\n');
    await expect
      .poll(shownText, { timeout: 60_000, interval: 500 })
      .toContain('2 of 2 iterations done: 2 passed, 0 failed');
    await page.screenshot({ path: METADATA_SCREENSHOT, fullPage: true });
    const metadata = await shownText();
    expect(metadata).toContain('Eval run of Web UI check: 2 iterations');
    for (const line of [
      `Run ${runId}`,
      `Suite Web UI check (${suiteId})`,
      `Project ${project.name} (${project.id})`,
      'Source api',
      'Iterations 2',
    ]) {
      expect(metadata).toContain(line);
    }

    // "Search Attributes": RunwayResult beside the attributes the run started with.
    await page.getByRole('tab', { name: 'Search Attributes' }).click();
    await expect.poll(shownText, { timeout: 30_000, interval: 500 }).toContain('"RunwayResult": "passed"');
    await page.screenshot({ path: SEARCH_ATTRIBUTES_SCREENSHOT, fullPage: true });
    expect(await shownText()).toContain(`"RunwaySuiteId": "${suiteId}"`);
  }, 240_000);
});
