/**
 * `npm run build`: the production processes as JavaScript, and their workflow bundle, in dist/ (or the folder given).
 *
 *   npm run build                      -> dist/api/main.js, dist/worker/main.js, dist/workflow-bundle.js,
 *                                         dist/console/dist (the console the API serves at /console), ...
 *   npx tsx scripts/build.ts <outDir>  -> the same elsewhere (the tests build into a temporary folder)
 *
 * dist/ mirrors the source tree (package.json and db/migrations/*.sql are copied in), so dist/ plus node_modules is
 * the whole application: `node dist/api/main.js` and `node dist/worker/main.js`. The Dockerfile builds it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quietBundleLogger, writeWorkflowBundle } from '../worker/workflowBundle.js';
import { buildConsole } from './build-console.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** `quiet`: only failures are printed (webpack's statistics are not): for tests and benchmarks. */
export async function build(outDir: string, { quiet = false } = {}): Promise<void> {
  const started = performance.now();
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], {
    cwd: root,
    encoding: 'utf8',
  });
  if (compiled.status !== 0) throw new Error(`tsc failed:\n${compiled.stdout}${compiled.stderr}`);
  // What modules read beside themselves: the version (api/openapi.ts, the CLI) and the migrations (db/migrate.ts).
  cpSync(join(root, 'package.json'), join(outDir, 'package.json'));
  cpSync(join(root, 'db', 'migrations'), join(outDir, 'db', 'migrations'), { recursive: true });
  // Bundled from the TypeScript source, as the tests bundle it: the same code the replay tests check.
  await writeWorkflowBundle(join(outDir, 'workflow-bundle.js'), quiet ? quietBundleLogger : undefined);
  // Where dist/api/console.js looks for it: ../console/dist relative to itself.
  await buildConsole(join(outDir, 'console', 'dist'), { quiet });
  if (!quiet) console.log(`built ${outDir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** A build in a temporary folder laid out as the image is (the application beside its node_modules): tests, bench. */
export async function buildToTemporaryFolder(): Promise<{ dir: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'runway-dist-'));
  await build(dir, { quiet: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  await build(resolve(process.argv[2] ?? join(root, 'dist')));
}
