import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scan, shot, signIn, storedKey, startConsoleWorld, type ConsoleWorld } from '../helpers/console.js';

describe('the eval console: sign-in and the suites view', () => {
  let world: ConsoleWorld;
  beforeAll(async () => {
    world = await startConsoleWorld();
  });
  afterAll(async () => world?.stop());

  it('refuses a wrong key, then signs in and lists the suites with their trend', async () => {
    const { page, assertClean } = await world.newPage();
    await page.goto(world.consoleUrl);
    await page.getByLabel('API key').fill('sk_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('did not accept this key');
    expect(await storedKey(page)).toBeNull();
    expect(await scan(page)).toEqual([]);
    await shot(page, 'sign-in');

    await signIn(page, world.consoleUrl, world.org.apiKey);
    expect(await storedKey(page)).toBe(world.org.apiKey);
    await page.getByRole('heading', { name: world.seeded.suite.name }).waitFor();
    expect(await scan(page)).toEqual([]);
    await shot(page, 'suites');
    assertClean();
  });
});
