import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ModelScript, type ScriptedModelServer } from '../fixtures/model/server.js';
import { launchChromium } from '../helpers/chromium.js';
import { apiClient } from '../helpers/http.js';
import { startNpmStart, type NpmStartStack } from '../helpers/npmStart.js';
import { entryArgs } from '../helpers/entryPoints.js';

const root = new URL('../..', import.meta.url).pathname;
const SCREENSHOT = 'test-results/temporal-schedules-page.png';
/** One schedule "minute" of this stack (SCHEDULE_MINUTE_MS): a suite scheduled every minute runs every 3 s. */
const MINUTE_MS = 3000;

/**
 * Issue 14's scheduled suites on the stack a user runs: `npm start` (its worker, its Temporal dev server and Web
 * UI), the organization's model key set with the admin CLI as the README does, a suite scheduled every minute (a
 * short minute, SCHEDULE_MINUTE_MS) that produces runs on its own, and its schedule on Temporal Web UI's
 * Schedules page, looked at in a real browser.
 */
describe('a scheduled suite on npm start', () => {
  let stack: NpmStartStack;
  let model: ScriptedModelServer;
  let browser: Browser | undefined;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    const scripts = JSON.parse(
      readFileSync(new URL('../../examples/scripted-model.json', import.meta.url), 'utf8'),
    ) as Record<string, ModelScript>;
    for (const [modelId, script] of Object.entries(scripts)) model.setScript(modelId, script);
    stack = await startNpmStart({
      SCHEDULE_MINUTE_MS: String(MINUTE_MS),
      RATE_LIMIT_BURST: '1000',
      RATE_LIMIT_PER_MINUTE: '60000',
    });
  }, 200_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await model?.close();
  });

  it('runs the suite every minute on its own, and Temporal Web UI lists its schedule', async () => {
    const call = apiClient(stack.apiUrl, stack.demoKey);
    const organizationId = (await call('GET', '/me')).body.organization.id as string;
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
    const servers = (await call('GET', '/projects/default/servers')).body.items as { id: string; name: string }[];
    const suite = await call('POST', '/projects/default/eval-suites', {
      name: 'Every minute',
      serverIds: [servers.find((s) => s.name === 'everything (stdio)')!.id],
      model: 'gpt-4.1-mini',
      provider: 'openai-compatible',
      tests: [
        {
          title: 'Echo',
          query: 'Use the echo tool to say hello',
          expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
        },
      ],
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const suiteId = suite.body.suiteId as string;
    const scheduled = await call('PATCH', `/projects/default/eval-suites/${suiteId}/schedule`, {
      enabled: true,
      intervalMinutes: 1,
    });
    expect(scheduled.body.schedule).toMatchObject({
      enabled: true,
      intervalMinutes: 1,
      temporalScheduleId: `suite-schedule:${suiteId}`,
    });

    // Two runs nobody started, each an ordinary run of the suite with source "schedule", the first one finished.
    let runs: { id: string; source: string; status: string; result: string | null }[] = [];
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      runs = (await call('GET', `/projects/default/eval-suites/${suiteId}/runs`)).body.items;
      if (runs.length >= 2 && runs.some((r) => r.status === 'completed')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.every((r) => r.source === 'schedule')).toBe(true);
    expect(runs.find((r) => r.status === 'completed')).toMatchObject({ result: 'passed' });
    const detail = await call('GET', `/projects/default/eval-suites/${suiteId}`);
    expect(runs.map((r) => r.id)).toContain(detail.body.schedule.lastRunId);

    // Pausing stops the runs; the schedule stays.
    expect((await call('PATCH', `/projects/default/eval-suites/${suiteId}/schedule`, { enabled: false })).status).toBe(
      200,
    );

    // Temporal Web UI's Schedules page shows it, by its id and with the suite's name in its note.
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${stack.ports.ui}/namespaces/default/schedules`);
    await page.getByText(`suite-schedule:${suiteId}`).first().waitFor({ state: 'visible', timeout: 60_000 });
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.goto(
      `http://127.0.0.1:${stack.ports.ui}/namespaces/default/schedules/${encodeURIComponent(`suite-schedule:${suiteId}`)}`,
    );
    await page.getByText('Every minute').first().waitFor({ state: 'visible', timeout: 60_000 });
  }, 240_000);
});
