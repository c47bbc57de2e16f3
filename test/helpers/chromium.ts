import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

// Debian's chromium (.ci/run installs it). The test fails, never skips, when it cannot start.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: run \`apt-get update && apt-get install -y chromium\` (or set CHROMIUM_PATH)`,
    );
  }
  try {
    return await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      timeout: 60_000,
    });
  } catch (error) {
    throw new Error(`Chromium at ${CHROMIUM} could not start: ${(error as Error).message}`);
  }
}
