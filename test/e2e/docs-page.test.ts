import { existsSync, mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../api/openapi.js';
import { launchChromium } from '../helpers/chromium.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const SCREENSHOT = 'test-results/docs-page.png';

describe('the API reference page at /docs', () => {
  let stack: TestStack;
  let browser: Browser | undefined;

  beforeAll(async () => {
    // Not the defaults (60 a minute, bursts of 10), so that the page can only show them by reading the configuration.
    stack = await startTestStack({
      worker: false,
      config: {
        RATE_LIMIT_PER_MINUTE: '120',
        RATE_LIMIT_BURST: '15',
        RATE_LIMIT_ANON_PER_MINUTE: '30',
        RATE_LIMIT_ANON_BURST: '5',
      },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('renders every operation of the document in a real browser, offline, and keeps a screenshot', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
    const operations = Object.values(document.paths ?? {}).flatMap((item) =>
      ['get', 'post', 'put', 'patch', 'delete'].filter((m) => item?.[m as 'get']),
    );

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    // Offline: every asset comes from this server; anything else is refused and reported.
    const outside: string[] = [];
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.origin === stack.origin) return await route.continue();
      outside.push(url.href);
      await route.abort();
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const response = await page.goto(`${stack.origin}/docs`);
    expect(response?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 30_000 });
    await expect.poll(() => page.locator('.opblock').count(), { timeout: 15_000 }).toBe(operations.length);

    expect(await page.title()).toBe('Runway API reference');
    expect(await page.locator('.info .title').innerText()).toContain('Runway API');
    // The limits this instance enforces, from its configuration.
    const info = await page.locator('.info').innerText();
    expect(info).toContain('120 requests per minute per key with bursts of 15');
    expect(info).toContain('30 a minute with bursts of 5');
    expect(info).not.toContain('60 requests per minute');
    const summaries = await page.locator('.opblock-summary-path').allInnerTexts();
    expect(summaries.map((s) => s.replace(/\u200b/g, ''))).toEqual(
      expect.arrayContaining([
        '/projects/{projectId}/eval-runs',
        '/projects/{projectId}/servers/{serverId}/tools/call',
      ]),
    );
    // The bearer scheme is offered ("Authorize").
    await expect.poll(() => page.locator('button.authorize').count()).toBeGreaterThan(0);

    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(outside, 'requests that left the server').toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('is where the root of the service sends a browser', async () => {
    const reply = await fetch(`${stack.origin}/`, { redirect: 'manual' });
    expect(reply.status).toBe(302);
    expect(reply.headers.get('location')).toBe('/docs');

    browser ??= await launchChromium();
    const page = await browser.newPage();
    const response = await page.goto(`${stack.origin}/`);
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/docs/');
    await page.locator('.info .title').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await page.title()).toBe('Runway API reference');
  });
});
