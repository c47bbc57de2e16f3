// What the workflow tests of the unit loop share: a Temporal dev server of their own, the workflow bundle, Temporal's
// logging turned down to errors (the tests' activities fail on purpose). No Postgres, no worker process, no model.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkflowBundle } from '@temporalio/worker';
import { findTemporalCli } from '../../scripts/temporal-cli.js';
import { startTemporalDevServer } from '../../scripts/temporal-dev-server.js';
import { quietBundleLogger, workflowsPath } from '../../worker/workflowBundle.js';
import { freePort } from '../helpers/ports.js';

try {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
} catch {
  // Installed already by another test file of this process (the unit project shares one module cache per worker).
}

/**
 * Temporal's time-skipping test server is a Java build that Temporal downloads from its own site, which CI cannot
 * reach; the workflows run instead on the Temporal CLI's dev server (what `npm start` and the integration tests
 * run), started as the stack starts it: Runway's search attributes registered, eager activities on. The workflows
 * have no timer to skip: their waits are activities, which the tests' mocks answer at once (only an activity's
 * retry waits, a second at least on this server).
 */
export async function startWorkflowTestServer(): Promise<{ env: TestWorkflowEnvironment; stop(): Promise<void> }> {
  const binary = findTemporalCli();
  if (!binary) {
    throw new Error(
      'the workflow tests need the Temporal CLI, and none is on this machine: run `npm run temporal:provision` ' +
        '(it builds the CLI once into ~/.cache/runway/bin)',
    );
  }
  const server = await startTemporalDevServer({ binary, port: freePort, uiPort: null });
  try {
    const env = await TestWorkflowEnvironment.createFromExistingServer({ address: server.address });
    return {
      env,
      async stop() {
        await env.teardown();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

let bundle: Promise<WorkflowBundle> | undefined;

/**
 * The workflows as the worker loads them (worker/workflowBundle.ts). Bundling costs seconds of CPU, so the bundle is
 * kept in the system's temporary folder under a hash of what goes into it: the files of workflows/ (which import
 * other layers as types only, enforced by lint) and package-lock.json (the bundler and the Temporal packages). A run
 * that finds none bundles (about 3 s of CPU); CI's second unit run, and every run after it here, reuses it.
 */
export function workflowBundle(): Promise<WorkflowBundle> {
  bundle ??= cachedBundle();
  return bundle;
}

async function cachedBundle(): Promise<WorkflowBundle> {
  const folder = dirname(workflowsPath);
  // the folder too: the bundle's source maps name the files where they were bundled
  const hash = createHash('sha256').update(folder);
  for (const file of readdirSync(folder, { recursive: true, encoding: 'utf8' }).sort()) {
    const path = join(folder, file);
    if (/\.[cm]?[jt]sx?$/.test(file)) hash.update(`${file}\0`).update(readFileSync(path));
  }
  hash.update(readFileSync(fileURLToPath(new URL('../../package-lock.json', import.meta.url))));
  const codePath = join(tmpdir(), `runway-workflow-bundle-${hash.digest('hex').slice(0, 20)}.js`);
  if (existsSync(codePath)) return { code: readFileSync(codePath, 'utf8') };
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: quietBundleLogger });
  // Another test process may write the same bundle at the same time: each writes its own file, then renames it.
  const partial = `${codePath}.${process.pid}.tmp`;
  writeFileSync(partial, code);
  renameSync(partial, codePath);
  return { code };
}
