import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { setProviderKey } from '../../db/providerKeys.js';
import { SecretBox } from '../../db/secretBox.js';
import { buildToTemporaryFolder } from '../../scripts/build.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../fixtures/model/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { apiClient } from '../helpers/http.js';
import { everythingOverStdio, saveServer } from '../helpers/mcpServers.js';
import { freePort } from '../helpers/ports.js';
import { seedOrganization } from '../helpers/seed.js';
import { waitForRun } from '../helpers/evals.js';

/**
 * `npm run build` and the compiled entry points the Dockerfile runs: plain `node` on dist/ (no tsx loader in the
 * processes), the worker loading the workflow bundle built ahead of time, one eval run through both.
 */
describe('the production build', () => {
  let out: string;
  let removeBuild: (() => void) | undefined;
  let db: TestDatabase;
  let model: ScriptedModelServer;
  const children: ChildProcess[] = [];
  const output: string[] = [];

  function start(entry: string, env: NodeJS.ProcessEnv): ChildProcess {
    const child = spawn(process.execPath, [join(out, entry)], {
      cwd: out,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...env },
    });
    child.stdout?.on('data', (c: Buffer) => output.push(`${entry}: ${c}`));
    child.stderr?.on('data', (c: Buffer) => output.push(`${entry}: ${c}`));
    children.push(child);
    return child;
  }

  beforeAll(async () => {
    const built = await buildToTemporaryFolder();
    out = built.dir;
    removeBuild = built.remove;
    db = await createTestDatabase();
    model = await startScriptedModelServer();
  }, 180_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exitCode === null && new Promise((r) => c.once('exit', r))));
    await db?.drop();
    await model?.close();
    removeBuild?.();
  });

  it('runs the API and the worker from dist/ and completes an eval run', async () => {
    const key = SecretBox.generateKey();
    const port = await freePort();
    const env = {
      DATABASE_URL: db.url,
      RUNWAY_ENCRYPTION_KEY: key,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `build-${process.pid}-${Date.now()}`,
    };
    // The test polls the run faster than a key's default budget allows (bursts of 10).
    start('api/main.js', {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_BURST: '10000',
      RATE_LIMIT_PER_MINUTE: '600000',
    });
    const worker = start('worker/main.js', env);

    const org = await seedOrganization(db.sql);
    const box = SecretBox.fromSetting(key);
    await setProviderKey(db.sql, box, {
      organizationId: org.organizationId,
      provider: 'openai',
      apiKey: 'k',
      baseUrl: model.url,
    });
    const serverId = await saveServer(db.sql, box, {
      projectId: org.projectId,
      name: 'everything',
      ...everythingOverStdio(),
    });
    model.setScript('built', [{ toolCalls: [{ name: 'echo', arguments: { message: 'hi' } }] }, { text: 'done' }]);

    const baseUrl = `http://127.0.0.1:${port}`;
    const call = apiClient(`${baseUrl}/api/v1`, org.apiKey);
    for (let i = 0; ; i++) {
      const health = await fetch(`${baseUrl}/healthz`).catch(() => undefined);
      if (health?.ok) break;
      if (i > 300) throw new Error(`the compiled API did not answer:\n${output.join('')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The OpenAPI document carries the version read from the package.json copied beside the compiled code.
    const document = (await fetch(`${baseUrl}/api/v1/openapi.json`).then((r) => r.json())) as {
      info: { version: string };
    };
    expect(document.info.version).toMatch(/^\d+\.\d+\.\d+/);
    // The console built into dist/console/dist, where the compiled API looks for it.
    const page = await fetch(`${baseUrl}/console/`);
    expect(page.status).toBe(200);
    const script = /src="(\/console\/main-\w+\.js)"/.exec(await page.text())?.[1];
    expect((await fetch(`${baseUrl}${script}`)).status).toBe(200);

    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'built',
      serverIds: [serverId],
      tests: [
        {
          title: 'echo',
          query: 'say hi',
          model: 'built',
          provider: 'openai',
          runs: 2,
          expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hi' } }],
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const run = await waitForRun(call, org.projectId, created.body.runId, undefined, 90_000).catch((error) => {
      throw new Error(`${error}\n${output.join('')}`);
    });
    expect(run).toMatchObject({ status: 'completed', result: 'passed', progress: { completed: 2 } });
    expect(worker.exitCode).toBeNull();
    // Neither process loaded TypeScript: no tsx loader was given, and the worker did not bundle at start.
    expect(output.join('')).not.toContain('Workflow bundle created');
  }, 180_000);

  it('a compiled worker without its bundle refuses to start, naming the build', async () => {
    rmSync(join(out, 'workflow-bundle.js'));
    const worker = start('worker/main.js', {
      DATABASE_URL: db.url,
      RUNWAY_ENCRYPTION_KEY: SecretBox.generateKey(),
      TEMPORAL_ADDRESS: '127.0.0.1:9',
    });
    let text = '';
    worker.stderr?.on('data', (c: Buffer) => (text += c));
    const code = await new Promise((r) => worker.once('exit', r));
    expect(code).toBe(1);
    expect(text).toContain('npm run build');
  }, 60_000);
});
