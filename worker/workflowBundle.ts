import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type Logger, type WorkerOptions } from '@temporalio/worker';

/**
 * The workflow code as the worker loads it. Compiled entry points (`npm run build`, dist/worker/main.js) load the
 * bundle built ahead of time beside them, as Temporal's production sample does: no webpack at start, and the code
 * that runs is the code that was tested and shipped. From TypeScript (tsx: `npm start`, `npm run worker`, the tests
 * that pass no bundle) the workflows are bundled at start.
 */
const compiled = fileURLToPath(import.meta.url).endsWith('.js');

/** workflows/index of this same tree: .ts from source, .js in dist/ */
export const workflowsPath = fileURLToPath(new URL(`../workflows/index.${compiled ? 'js' : 'ts'}`, import.meta.url));

/** Where `npm run build` writes the bundle: dist/workflow-bundle.js, beside dist/worker/. */
export const prebuiltBundlePath = fileURLToPath(new URL('../workflow-bundle.js', import.meta.url));

/** Only what went wrong: webpack's statistics stay out of test and benchmark output. */
export const quietBundleLogger: Logger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};

/** Bundles the workflows (with their dependencies, in Temporal's sandbox format) into one file. */
export async function writeWorkflowBundle(file: string, logger?: Logger): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath, ...(logger && { logger }) });
  writeFileSync(file, code);
}

/** The bundle a compiled worker must load; undefined when running from TypeScript (bundled at start instead). */
export function productionWorkflowBundle(): WorkerOptions['workflowBundle'] | undefined {
  if (!compiled) return undefined;
  if (!existsSync(prebuiltBundlePath)) {
    throw new Error(`no workflow bundle at ${prebuiltBundlePath}: build the worker with \`npm run build\``);
  }
  return { codePath: prebuiltBundlePath };
}
