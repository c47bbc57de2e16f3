/**
 * The eval console's browser tests (test/e2e/console-*.test.ts) share this: a real stack with a worker and the
 * scripted model, a suite with finished runs made through the API, Chromium, and the checks every view gets (sign
 * in, axe scan, screenshot, nothing leaves the origin, no page error).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Config } from '../../runtime/config.js';
import { launchChromium } from './chromium.js';
import { startEvalWorld, waitForRun, type EvalWorld } from './evals.js';
import { sampleResults } from './ingest.js';

export const SCREENSHOTS = 'test-results/console';

/** The model the seeded runs use (provider openai, played by the scripted model server). */
export const CONSOLE_MODEL = 'scripted-console';

/** What the seed made: one suite run three times through the API (a regression in the last run), one from an SDK. */
export interface SeededSuites {
  suite: {
    id: string;
    name: string;
    /** oldest first: all passed; one errored iteration; "says goodbye" regressed (wrong argument) */
    runIds: string[];
    caseIds: { greets: string; saysGoodbye: string };
  };
  /** a suite whose only run was reported by an SDK (source sdk) */
  sdkSuite: { id: string; name: string; runId: string };
}

export interface ConsoleWorld extends EvalWorld {
  browser: Browser;
  /** http://127.0.0.1:<port>/console/ */
  consoleUrl: string;
  seeded: SeededSuites;
  /** A fresh page (1280x900) with the guard on: see guardPage. */
  newPage(options?: { colorScheme?: 'light' | 'dark' }): Promise<GuardedPage>;
  /** Starts a run of the seeded suite through the API (all passing) and waits for its end. */
  runSuite(notes?: string): Promise<string>;
}

export interface GuardedPage {
  page: Page;
  /** requests that tried to leave the origin (refused), page errors, CSP violations */
  problems: string[];
  /** fails the test when there was any problem */
  assertClean(): void;
}

const greets = { title: 'greets', query: 'say hello', expected: { message: 'hello' } };
const saysGoodbye = { title: 'says goodbye', query: 'say bye', expected: { message: 'bye' } };

const echo = (message: string) => [{ toolCalls: [{ name: 'echo', arguments: { message } }] }, { text: 'done' }];

/**
 * A stack (worker, scripted model, server-everything over stdio), the seeded suites, and Chromium.
 * `config` is the stack's (startEvalWorld lifts the rate limits unless given).
 */
export async function startConsoleWorld(
  options: { config?: Partial<Record<keyof Config, string>> } = {},
): Promise<ConsoleWorld> {
  const world = await startEvalWorld(options.config);
  let browser: Browser | undefined;
  try {
    const seeded = await seedSuites(world);
    browser = await launchChromium();
    const consoleUrl = `${world.stack.origin}/console/`;
    const opened = browser;
    return {
      ...world,
      browser: opened,
      consoleUrl,
      seeded,
      async newPage({ colorScheme = 'light' } = {}) {
        // A context per page: axe opens a page of its own in it (and the guard covers that one too).
        const context = await opened.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
        return guardPage(await context.newPage(), world.stack.origin);
      },
      runSuite: (notes) => runSeededSuite(world, seeded.suite.id, notes),
      async stop() {
        await opened.close().catch(() => {});
        await world.stop();
      },
    };
  } catch (error) {
    await browser?.close().catch(() => {});
    await world.stop();
    throw error;
  }
}

function scriptAllPassing(world: EvalWorld) {
  world.model.setScript(CONSOLE_MODEL, {
    byQuery: { [greets.query]: echo('hello'), [saysGoodbye.query]: echo('bye') },
  });
}

async function seedSuites(world: EvalWorld): Promise<SeededSuites> {
  const { call, org, serverId, model } = world;
  const p = org.projectId;
  const test = (c: typeof greets, runs: number) => ({
    title: c.title,
    query: c.query,
    runs,
    model: CONSOLE_MODEL,
    provider: 'openai',
    expectedToolCalls: [{ toolName: 'echo', arguments: c.expected }],
  });

  // Run 1: everything passes (7 of 7).
  scriptAllPassing(world);
  const first = await call('POST', `/projects/${p}/eval-runs`, {
    suiteName: 'Echo checks',
    suiteDescription: 'The everything server echoes what it is asked to.',
    serverIds: [serverId],
    modelApiKeys: { openai: 'k' },
    isolation: 'shared',
    notes: 'first run',
    tests: [test(greets, 3), test(saysGoodbye, 4)],
  });
  expect(first.status, JSON.stringify(first.body)).toBe(202);
  const suiteId: string = first.body.suiteId;
  const caseId = (title: string) =>
    first.body.caseUpsert.committed.find((c: { name: string }) => c.name === title).id as string;
  await finished(world, first.body.runId);

  // Run 2: one iteration of "says goodbye" errors (a provider's 400), 6 of 7.
  model.setScript(CONSOLE_MODEL, {
    byQuery: {
      [greets.query]: echo('hello'),
      [saysGoodbye.query]: [
        {
          error: { status: 400, message: 'scripted failure', type: 'invalid_request_error', times: 1 },
          ...echo('bye')[0],
        },
        { text: 'done' },
      ],
    },
  });
  const second = await startRun(world, suiteId, 'one provider error');
  await finished(world, second);

  // Run 3: "says goodbye" calls echo with the wrong argument every time: a regression (3 of 7).
  model.setScript(CONSOLE_MODEL, { byQuery: { [greets.query]: echo('hello'), [saysGoodbye.query]: echo('goodbye') } });
  const third = await startRun(world, suiteId, 'wrong argument');
  await finished(world, third);
  scriptAllPassing(world);

  const sdk = await call('POST', `/projects/${p}/eval-ingest/report`, {
    suiteName: 'Nightly (CI)',
    externalRunId: 'nightly-1',
    notes: 'reported by the SDK',
    results: sampleResults(8, { prefix: 'nightly', cases: 2, failEvery: 4 }),
  });
  expect(sdk.status, JSON.stringify(sdk.body)).toBe(200);

  return {
    suite: {
      id: suiteId,
      name: 'Echo checks',
      runIds: [first.body.runId, second, third],
      caseIds: { greets: caseId(greets.title), saysGoodbye: caseId(saysGoodbye.title) },
    },
    sdkSuite: { id: sdk.body.suiteId, name: 'Nightly (CI)', runId: sdk.body.runId },
  };
}

async function startRun(world: EvalWorld, suiteId: string, notes: string): Promise<string> {
  const reply = await world.call('POST', `/projects/${world.org.projectId}/eval-runs`, {
    suiteId,
    modelApiKeys: { openai: 'k' },
    isolation: 'shared',
    notes,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  return reply.body.runId;
}

async function finished(world: EvalWorld, runId: string) {
  const run = await waitForRun(world.call, world.org.projectId, runId);
  expect(run.status, JSON.stringify(run)).toBe('completed');
  return run;
}

async function runSeededSuite(world: EvalWorld, suiteId: string, notes = 'another run'): Promise<string> {
  scriptAllPassing(world);
  const runId = await startRun(world, suiteId, notes);
  await finished(world, runId);
  return runId;
}

/**
 * Offline and quiet: a request to any other origin is refused and recorded, and so are page errors and Content
 * Security Policy violations. Call assertClean() at the end of the test.
 */
export async function guardPage(page: Page, origin: string): Promise<GuardedPage> {
  const problems: string[] = [];
  await page.context().route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin || url.protocol === 'data:') return await route.continue();
    problems.push(`request left the origin: ${url.href}`);
    await route.abort();
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      problems.push(`CSP violation: ${message.text()}`);
  });
  return {
    page,
    problems,
    assertClean: () => expect(problems, 'requests that left the origin, page errors, CSP violations').toEqual([]),
  };
}

/** Opens the console (signed out: a fresh page has an empty session storage) and signs in with the key. */
export async function signIn(page: Page, consoleUrl: string, key: string): Promise<void> {
  await page.goto(consoleUrl);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ state: 'visible', timeout: 15_000 });
}

/** The key the console keeps in the page's session storage (null: signed out). */
export async function storedKey(page: Page): Promise<string | null> {
  return (await page.evaluate("sessionStorage.getItem('runway.apiKey')")) as string | null;
}

/** axe-core's serious and critical violations of the page as it is now (WCAG 2.1 A and AA rules, best practices). */
export async function scan(page: Page): Promise<{ id: string; impact: string; help: string; nodes: string[] }[]> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact!, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
}

/** A full-page screenshot in test-results/console/<name>.png; answers its path. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
