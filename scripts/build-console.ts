/**
 * The eval console (console/src, Preact + uPlot) bundled by esbuild into console/dist/, which the API serves at
 * /console (api/console.ts):
 *
 *   npm run build:console              -> console/dist/index.html, main-<hash>.js, main-<hash>.css
 *   npx tsx scripts/build-console.ts <outDir>
 *
 * Run by `npm start`, `npm run build` (into dist/console/dist) and the tests' global setup. File names carry a hash
 * of their content, so the assets are cached for a year and index.html (never cached) names the current ones. The
 * build fails when the compressed script is over the budget of the issue (300 KB).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
export const consoleSource = join(root, 'console');
export const defaultConsoleDist = join(consoleSource, 'dist');

/** Compressed script the console may ship (issue 18: at most 300 KB). */
export const SCRIPT_BUDGET_BYTES = 300 * 1024;

export interface ConsoleBuild {
  outDir: string;
  /** file names in outDir: index.html, the script, the stylesheet */
  script: string;
  style: string;
  /** the script's size, and gzipped */
  scriptBytes: number;
  scriptGzipBytes: number;
  ms: number;
}

/**
 * Builds into a fresh folder beside outDir, then swaps it in: a server reading outDir meanwhile sees the old build
 * or the new one, not half of one.
 */
export async function buildConsole(outDir = defaultConsoleDist, { quiet = false } = {}): Promise<ConsoleBuild> {
  const started = performance.now();
  const staging = `${outDir}.building-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [join(consoleSource, 'src', 'main.tsx')],
    tsconfig: join(consoleSource, 'tsconfig.json'),
    outdir: staging,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    legalComments: 'linked',
    metafile: true,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
  const script = outputs.find((f) => f.endsWith('.js'));
  const style = outputs.find((f) => f.endsWith('.css'));
  if (!script || !style)
    throw new Error(`console build: expected a script and a stylesheet, got ${outputs.join(', ')}`);

  const code = readFileSync(join(staging, script));
  const scriptGzipBytes = gzipSync(code, { level: 9 }).length;
  if (scriptGzipBytes > SCRIPT_BUDGET_BYTES) {
    const biggest = Object.entries(result.metafile.inputs)
      .sort(([, a], [, b]) => b.bytes - a.bytes)
      .slice(0, 5)
      .map(([file, { bytes }]) => `${file} (${Math.round(bytes / 1024)} KB)`);
    throw new Error(
      `console build: the script is ${Math.round(scriptGzipBytes / 1024)} KB compressed, over the budget of ${SCRIPT_BUDGET_BYTES / 1024} KB; largest inputs: ${biggest.join(', ')}`,
    );
  }

  const template = readFileSync(join(consoleSource, 'index.html'), 'utf8');
  const html = template
    .replace('/console/main.css', `/console/${style}`)
    .replace('/console/main.js', `/console/${script}`);
  if (!html.includes(script) || !html.includes(style))
    throw new Error('console build: console/index.html no longer names /console/main.js and /console/main.css');
  writeFileSync(join(staging, 'index.html'), html);

  rmSync(outDir, { recursive: true, force: true });
  renameSync(staging, outDir);
  const built: ConsoleBuild = {
    outDir,
    script,
    style,
    scriptBytes: code.length,
    scriptGzipBytes,
    ms: Math.round(performance.now() - started),
  };
  if (!quiet)
    console.log(
      `built the console into ${relative(root, outDir) || outDir} in ${built.ms} ms: ${script} ${Math.round(code.length / 1024)} KB (${Math.round(scriptGzipBytes / 1024)} KB compressed), ${style}`,
    );
  return built;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  await buildConsole(process.argv[2] ? resolve(process.argv[2]) : defaultConsoleDist);
}
