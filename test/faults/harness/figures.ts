import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../../../test-results/reliability/', import.meta.url));

/**
 * Writes test-results/reliability/<name>.json: the figures docs/RELIABILITY.md quotes come from the test runs
 * themselves, never typed in by hand.
 */
export function writeFigures(name: string, figures: object): string {
  mkdirSync(dir, { recursive: true });
  const file = `${dir}${name}.json`;
  writeFileSync(file, `${JSON.stringify({ generatedAt: new Date().toISOString(), ...figures }, null, 2)}\n`);
  return file;
}
