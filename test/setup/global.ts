import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { createSql } from '../../db/connection.js';
import { migrate } from '../../db/migrate.js';
import { buildConsole } from '../../scripts/build-console.js';
import { ensureTemporalCli } from '../../scripts/temporal-cli.js';
import { startTemporalDevServer } from '../../scripts/temporal-dev-server.js';
import { quietBundleLogger, writeWorkflowBundle } from '../../worker/workflowBundle.js';
import { ENTRY_BUNDLES_ENV } from '../helpers/entryPoints.js';
import { FIXTURE_BUNDLES_ENV } from '../helpers/mcpServers.js';
import { freePort } from '../helpers/ports.js';
import { bundleEntryPoints } from './entryBundles.js';
import { bundleStdioFixtures } from './fixtureBundles.js';
import { databaseUrl, provideTestPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
    pgDatabasePrefix: string;
    temporalAddress: string;
    temporalBinary: string;
    workflowBundlePath: string;
  }
}

/**
 * Once per `npm test`: one real Temporal dev server (search attributes registered), one migrated template
 * database that each test file clones, the workflow bundle that every test worker loads, the console's build, and
 * bundles of the stdio fixtures and of Runway's entry points that tests run as processes.
 */
export default async function setup(project: TestProject) {
  const say = (line: string) => console.log(`[test setup] ${line}`);
  const [pg, binary] = await Promise.all([provideTestPostgres(), ensureTemporalCli(say)]);
  const template = `runway_template_${process.pid}`;
  const admin = postgres(pg.adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${template}`);
  const templateSql = createSql(databaseUrl(pg.adminUrl, template), { max: 1 });
  await migrate(templateSql);
  await templateSql.end();

  const temporal = await startTemporalDevServer({ binary, port: freePort, uiPort: null, log: say });
  const workflowBundlePath = join(mkdtempSync(join(tmpdir(), 'runway-bundle-')), 'workflows.js');
  await writeWorkflowBundle(workflowBundlePath, quietBundleLogger);
  // The console the stacks serve at /console (console/dist, as `npm start` builds it) for the browser tests.
  await buildConsole(undefined, { quiet: true });
  // The stdio fixtures as plain ES modules: the test workers are forked after this, with this environment.
  const [fixtureBundles, entryBundles] = await Promise.all([bundleStdioFixtures(), bundleEntryPoints()]);
  process.env[FIXTURE_BUNDLES_ENV] = fixtureBundles;
  process.env[ENTRY_BUNDLES_ENV] = entryBundles;

  project.provide('pgAdminUrl', pg.adminUrl);
  project.provide('pgTemplate', template);
  project.provide('pgDatabasePrefix', `runway_t_${process.pid}_`);
  project.provide('temporalAddress', temporal.address);
  project.provide('temporalBinary', binary);
  project.provide('workflowBundlePath', workflowBundlePath);

  return async () => {
    await temporal.stop();
    rmSync(fixtureBundles, { recursive: true, force: true });
    rmSync(entryBundles, { recursive: true, force: true });
    const leftovers = await admin<{ datname: string }[]>`
      SELECT datname FROM pg_database WHERE datname LIKE ${`runway_t_${process.pid}_%`} OR datname = ${template}`;
    for (const { datname } of leftovers) await admin.unsafe(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.end();
    await pg.stop();
  };
}
