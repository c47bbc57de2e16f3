import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateServerSettings } from '../../db/servers.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { fixtureOverStdio, saveServer } from '../helpers/mcpServers.js';
import { startStatefulServer } from '../fixtures/mcp/stateful.js';
import type { StartedServer } from '../fixtures/mcp/serve.js';

/*
 * Issue 16, part 7: the iterations of a run are independent. A server with state (the `stateful` fixture keeps
 * notes per session and names its process) shows whether two iterations shared a session or a process.
 */
describe('iteration isolation', () => {
  let world: EvalWorld;
  let http: StartedServer;
  let stdioServerId: string;
  let httpServerId: string;

  beforeAll(async () => {
    // Processes started per iteration: on a loaded machine a tsx fixture takes seconds to start.
    world = await startEvalWorld({ MCP_CONNECT_TIMEOUT_MS: '60000', MCP_INITIALIZE_TIMEOUT_MS: '60000' });
    http = await startStatefulServer({ transport: 'http' });
    stdioServerId = await saveServer(world.stack.sql, world.stack.box, {
      projectId: world.org.projectId,
      name: 'stateful-stdio',
      ...fixtureOverStdio('stateful'),
    });
    httpServerId = await saveServer(world.stack.sql, world.stack.box, {
      projectId: world.org.projectId,
      name: 'stateful-http',
      transportType: 'http',
      url: http.url,
    });
    world.model.setScript('stateful-1', {
      byQuery: { 'remember this': [{ toolCalls: [{ name: 'remember', arguments: { note: 'x' } }] }, { text: 'kept' }] },
    });
  });
  afterAll(async () => {
    await world?.stop();
    await http?.close();
  });

  /** Runs one case three times and reads, per iteration, what the server answered: notes held, and its process. */
  async function runThrice(serverId: string, extra: Record<string, unknown> = {}) {
    const created = await world.call('POST', `/projects/${world.org.projectId}/eval-runs`, {
      suiteName: `isolation ${Math.random()}`,
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      tests: [
        {
          title: 'remembers',
          query: 'remember this',
          model: 'stateful-1',
          provider: 'openai',
          runs: 3,
          expectedToolCalls: [{ toolName: 'remember' }],
        },
      ],
      ...extra,
    });
    expect(created.status).toBe(202);
    const run = await waitForRun(world.call, world.org.projectId, created.body.runId);
    expect(run).toMatchObject({ status: 'completed', result: 'passed' });
    const answers = [];
    for (const iteration of await allIterations(world.call, world.org.projectId, run.id)) {
      const trace = await world.call(
        'GET',
        `/projects/${world.org.projectId}/eval-runs/${run.id}/iterations/${iteration.id}/trace`,
      );
      const said = /notes held: (\d+); process (\d+)/.exec(JSON.stringify(trace.body.messages));
      expect(said).not.toBeNull();
      answers.push({ notes: Number(said![1]), pid: said![2] });
    }
    return { run, suiteId: created.body.suiteId as string, answers };
  }

  it('gives every iteration a fresh stdio process by default', async () => {
    const { run, answers } = await runThrice(stdioServerId);
    expect(run.isolation).toBe('per-iteration');
    expect(answers.map((a) => a.notes)).toEqual([1, 1, 1]);
    expect(new Set(answers.map((a) => a.pid)).size).toBe(3);
  });

  it('gives every iteration a fresh MCP session over HTTP by default', async () => {
    const { answers } = await runThrice(httpServerId);
    expect(answers.map((a) => a.notes)).toEqual([1, 1, 1]);
  });

  it('shares one session between the iterations of a suite that opts into shared', async () => {
    const { run, suiteId, answers } = await runThrice(stdioServerId, { isolation: 'shared' });
    expect(run.isolation).toBe('shared');
    expect(answers.map((a) => a.notes).sort()).toEqual([1, 2, 3]);
    expect(new Set(answers.map((a) => a.pid)).size).toBe(1);
    // The new suite kept the choice; an edit gives it back.
    const suite = await world.call('GET', `/projects/${world.org.projectId}/eval-suites/${suiteId}`);
    expect(suite.body).toMatchObject({ isolation: 'shared', settings: { isolation: 'shared' } });
    const edited = await world.call('PATCH', `/projects/${world.org.projectId}/eval-suites/${suiteId}`, {
      isolation: 'per-iteration',
    });
    expect(edited.status).toBe(200);
    expect(edited.body.isolation).toBe('per-iteration');
    const rerun = await world.call('POST', `/projects/${world.org.projectId}/eval-runs`, {
      suiteId,
      modelApiKeys: { openai: 'k' },
    });
    expect(rerun.status).toBe(202);
    expect(await waitForRun(world.call, world.org.projectId, rerun.body.runId)).toMatchObject({
      status: 'completed',
      isolation: 'per-iteration',
    });
  });

  it("shares a server's sessions when an operator set the server so, whatever the suite says", async () => {
    await updateServerSettings(world.stack.sql, httpServerId, { iterationIsolation: 'shared' });
    try {
      const { run, answers } = await runThrice(httpServerId);
      expect(run.isolation).toBe('per-iteration');
      expect(answers.map((a) => a.notes).sort()).toEqual([1, 2, 3]);
    } finally {
      await updateServerSettings(world.stack.sql, httpServerId, { iterationIsolation: null });
    }
  });

  it('refuses an unknown isolation mode with 400', async () => {
    const reply = await world.call('POST', `/projects/${world.org.projectId}/eval-suites`, {
      name: 'bad',
      serverIds: [stdioServerId],
      model: 'stateful-1',
      tests: [{ title: 't', query: 'q' }],
      isolation: 'per-run',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_ERROR');
  });
});
