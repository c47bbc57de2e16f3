import { build } from 'esbuild';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STDIO_FIXTURES } from '../helpers/mcpServers.js';

/**
 * Bundles each stdio fixture of test/fixtures/mcp with its packages into one ES module, once per `npm test`. Stdio
 * servers are spawned hundreds of times in a run (a fresh process per iteration is the default): a bundle answers its
 * first message in ~0.45 s where `node --import tsx` takes ~1.2 s (resolving and transforming every module through
 * the loader), and the suite is CPU-bound on 2 cores. The fixtures' code is the same; only its loading differs.
 */
export async function bundleStdioFixtures(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'runway-fixtures-'));
  await build({
    entryPoints: Object.fromEntries(
      STDIO_FIXTURES.map((name) => [name, fileURLToPath(new URL(`../fixtures/mcp/${name}.ts`, import.meta.url))]),
    ),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // Bundled CommonJS packages call require() for Node's builtins: give the ES module one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  return dir;
}
