import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runway } from '../helpers/runwayCli.js';
import { setProviderKey } from '../../db/providerKeys.js';
import { startScriptedModelServer, type ModelScript, type ScriptedModelServer } from '../fixtures/model/server.js';
import { apiClient } from '../helpers/http.js';
import { everythingOverStdio, saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/*
 * Issue 29, item 1: the README's own CLI sequence, as a newcomer types it (`evals run` of the demo suite with a
 * JUnit report, `ingest` of that report, `evals run` again). Ingest saves the report's results in the suite the
 * file names, the demo suite: that must never turn the suite into one that cannot run.
 */

const DEMO_SUITE = fileURLToPath(new URL('../../examples/demo-suite.json', import.meta.url));
const DEMO_MODEL_SCRIPTS = fileURLToPath(new URL('../../examples/scripted-model.json', import.meta.url));

describe("the README's CLI sequence: evals run, ingest its JUnit report, evals run again", () => {
  let stack: TestStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    const scripts = JSON.parse(readFileSync(DEMO_MODEL_SCRIPTS, 'utf8')) as Record<string, ModelScript>;
    for (const [id, script] of Object.entries(scripts)) model.setScript(id, script);
    stack = await startTestStack({ config: { RATE_LIMIT_BURST: '100000', RATE_LIMIT_PER_MINUTE: '6000000' } });
    org = await seedOrganization(stack.sql);
    // As the README sets up the demo: the scripted model server is the organization's openai-compatible provider.
    await setProviderKey(stack.sql, stack.box, {
      organizationId: org.organizationId,
      provider: 'openai-compatible',
      apiKey: 'local',
      baseUrl: model.url,
    });
    await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'everything (stdio)',
      ...everythingOverStdio(),
    });
    dir = mkdtempSync(join(tmpdir(), 'runway-cli-ingest-'));
    env = { RUNWAY_URL: stack.origin, RUNWAY_API_KEY: org.apiKey };
  });
  afterAll(async () => {
    await stack?.stop();
    await model?.close();
  });

  it('the demo suite still runs after its own report was ingested into it; the run says what it left out', async () => {
    const first = await runway(
      ['evals', 'run', '--suite-file', DEMO_SUITE, '--junit', 'results.xml', '--poll-interval', '200'],
      env,
      dir,
    );
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain('Result: PASSED, 9 of 9 iterations passed');
    const suiteId = /started \(suite (sui_\w+)/.exec(first.stderr)![1];

    const ingest = await runway(['ingest', 'results.xml', '--format', 'junit-xml'], env, dir);
    expect(ingest.code, ingest.stdout + ingest.stderr).toBe(0);
    expect(ingest.stdout).toContain(`(suite ${suiteId})`);

    const again = await runway(['evals', 'run', '--suite-file', DEMO_SUITE, '--poll-interval', '200'], env, dir);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stderr).toContain(`started (suite ${suiteId}, 3 cases,`);
    // The ingested cases hold the report's results only: the run leaves them out and says so.
    expect(again.stderr).toMatch(/3 cases of the suite were left out: .*ingest/);
    expect(again.stdout).toContain('Result: PASSED, 9 of 9 iterations passed');

    // The console's "Start a run" (POST /eval-runs with the suite's id alone) runs the suite too.
    const call = apiClient(stack.baseUrl, org.apiKey);
    const rerun = await call('POST', `/projects/${org.projectId}/eval-runs`, { suiteId });
    expect(rerun.status, JSON.stringify(rerun.body)).toBe(202);
    expect(rerun.body.leftOut).toMatchObject({ cases: 3, reason: 'INGESTED_RESULTS_ONLY' });
  });
});
