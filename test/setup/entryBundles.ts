import { build, type Plugin } from 'esbuild';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ENTRY_POINTS } from '../helpers/entryPoints.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Each module keeps its own `import.meta.url` inside the bundle: the migrations folder (db/migrate.ts), package.json
 * (the CLIs' --version), the console's build and the workflows (worker/workflowBundle.ts, which then bundles them at
 * start exactly as under tsx) are found where they are in the checkout, not beside the bundle.
 */
const ownUrls: Plugin = {
  name: 'own-import-meta-url',
  setup(bundler) {
    bundler.onLoad({ filter: /\.tsx?$/ }, async ({ path }) => ({
      contents: (await readFile(path, 'utf8')).replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)),
      loader: path.endsWith('x') ? 'tsx' : 'ts',
    }));
  },
};

/**
 * Bundles Runway's entry points (the CLIs, the API, the worker) once per `npm test`, their packages left as imports.
 * The CLI tests run a command as a process a hundred times and the fault tests restart the API and the worker: a
 * bundle starts in half the CPU time of `node --import tsx` (which resolves and transforms every module of the
 * checkout through its loader), and the suite is CPU-bound on 2 cores. The code is the same; only its loading
 * differs, and the tests of `npm start`, `npm run ...` and the installed `runway` keep running it through tsx.
 *
 * Written inside node_modules/.cache so that the bundles' package imports resolve from the checkout's node_modules.
 */
export async function bundleEntryPoints(): Promise<string> {
  const parent = join(root, 'node_modules', '.cache');
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, 'runway-entry-points-'));
  await build({
    entryPoints: Object.fromEntries(ENTRY_POINTS.map((entry) => [entry.replace(/\.ts$/, ''), join(root, entry)])),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    plugins: [ownUrls],
  });
  return dir;
}
