import { existsSync, mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../api/docs.js';
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
    // What the page's Content-Security-Policy refused: Chromium reports each refusal on the console.
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });

    const response = await page.goto(`${stack.origin}/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toBe(DOCS_CSP);
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
    // What a reader does under the policy: open an operation (its schemas and examples, highlighted), and the
    // Authorize dialog.
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor({ state: 'visible' });
    await page.locator('.opblock .model-example').first().waitFor({ state: 'visible' });
    await page.locator('button.authorize').first().click();
    await page.locator('.dialog-ux .modal-ux').waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');

    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(outside, 'requests that left the server').toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(refused, 'what the Content-Security-Policy refused').toEqual([]);
  });

  it('serves the page and every asset of it with a strict Content-Security-Policy', async () => {
    expect(DOCS_CSP).toContain("default-src 'none'");
    expect(DOCS_CSP).toContain("script-src 'self'");
    expect(DOCS_CSP).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(DOCS_CSP).toContain("frame-ancestors 'none'");
    for (const path of [
      '/docs/',
      '/docs/index.html',
      '/docs/swagger-initializer.js',
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui.css',
      '/docs/favicon-32x32.png',
    ]) {
      const reply = await fetch(`${stack.origin}${path}`);
      await reply.arrayBuffer();
      expect(reply.status, path).toBe(200);
      expect(reply.headers.get('content-security-policy'), path).toBe(DOCS_CSP);
      expect(reply.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    // A missing file and the redirect to /docs/ are no page: the strictest policy, nothing allowed.
    for (const [path, status] of [
      ['/docs/no-such-file.js', 404],
      ['/docs', 301],
    ] as const) {
      const reply = await fetch(`${stack.origin}${path}`, { redirect: 'manual' });
      expect(reply.status, path).toBe(status);
      expect(reply.headers.get('content-security-policy'), path).toMatch(/^default-src 'none'/);
    }
    // The one inline style allowed is a hash, never 'unsafe-inline'.
    expect(DOCS_CSP).not.toContain('unsafe-inline');
    // The page runs no inline script: each script is a file of the page's own origin.
    const html = await (await fetch(`${stack.origin}/docs/`)).text();
    for (const [, attributes, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(attributes).toMatch(/src="\.\/[\w.-]+\.js"/);
      expect(body.trim()).toBe('');
    }
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
