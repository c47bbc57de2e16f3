import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Runway's entry points the tests run as processes of their own. */
export const ENTRY_POINTS = ['cli/admin.ts', 'cli/runway.ts', 'api/main.ts', 'worker/main.ts'] as const;
export type EntryPoint = (typeof ENTRY_POINTS)[number];

/** Set by the global setup (test/setup/entryBundles.ts) to the folder of the bundled entry points. */
export const ENTRY_BUNDLES_ENV = 'RUNWAY_TEST_ENTRY_BUNDLES';

/**
 * The node arguments that run an entry point of the checkout: its bundle when the global setup built them, else the
 * TypeScript through tsx (a test file run on its own without the setup). Absolute, so any working directory does.
 */
export function entryArgs(entry: EntryPoint): string[] {
  const bundles = process.env[ENTRY_BUNDLES_ENV];
  if (bundles) return [join(bundles, entry.replace(/\.ts$/, '.mjs'))];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--import', tsx, fileURLToPath(new URL(`../../${entry}`, import.meta.url))];
}
