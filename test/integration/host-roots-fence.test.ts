import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostClientProfile } from '../../domain/mcp/index.js';
import { getSavedServersByIds } from '../../db/servers.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { expectUnharmed, healthzDuring, healthzWorstMs } from '../helpers/fairness.js';
import { fixtureArgs, saveServer } from '../helpers/mcpServers.js';

const RUN_KEY = 'sk-run-roots-fence';

/**
 * Issue 27, finding 2: a tenant's host roots must not reach past what the operator allowed a server on the service's
 * own machine. The fixture reads files the way server-filesystem does: inside its command-line folder, or inside the
 * client's roots when the client declares them. A file is planted outside its folder; a host lists `file:///`.
 */
describe("a host's roots stay within what the operator allowed the server", () => {
  let world: EvalWorld;
  let base: string;
  let allowed: string;
  let planted: string;
  const secret = `planted-${Math.random().toString(36).slice(2)}`;
  let fenced: string;
  let widened: string;
  let remote: string;

  const hostsPath = () => `/projects/${world.org.projectId}/hosts`;
  const createHost = async (name: string, roots: Array<{ uri: string }>) => {
    const reply = await world.call('POST', hostsPath(), { name, config: { roots } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.id as string;
  };
  const startRun = (serverId: string, hostId: string) =>
    world.call('POST', `/projects/${world.org.projectId}/eval-runs`, {
      suiteName: 'roots',
      serverIds: [serverId],
      hostId,
      modelApiKeys: { openai: RUN_KEY },
      tests: [{ title: 'read', query: 'Read the planted file', model: 'scripted-roots', provider: 'openai', runs: 2 }],
    });

  beforeAll(async () => {
    world = await startEvalWorld({ MCP_CONNECT_TIMEOUT_MS: '60000', MCP_INITIALIZE_TIMEOUT_MS: '60000' });
    base = mkdtempSync(join(tmpdir(), 'runway-roots-'));
    allowed = join(base, 'allowed');
    mkdirSync(join(allowed, 'sub'), { recursive: true });
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(allowed, 'sub', 'inside.txt'), 'inside');
    planted = join(base, 'outside', 'planted.txt');
    writeFileSync(planted, secret);
    const save = (name: string, extra: Record<string, unknown> = {}) =>
      saveServer(world.stack.sql, world.stack.box, {
        projectId: world.org.projectId,
        name,
        transportType: 'stdio',
        command: process.execPath,
        // The operator's restriction: this one folder.
        args: [...fixtureArgs('roots-reader'), 'stdio', allowed],
        ...extra,
      });
    fenced = await save('files');
    widened = await save('files-with-allowed-root', { allowedRoots: [pathToFileURL(allowed).href] });
    remote = await saveServer(world.stack.sql, world.stack.box, {
      projectId: world.org.projectId,
      name: 'remote',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
    });
    world.model.setScript('scripted-roots', {
      byQuery: {
        'Read the planted file': [
          { toolCalls: [{ name: 'read_file', arguments: { path: planted } }] },
          { text: 'done' },
        ],
      },
    });
  });
  afterAll(async () => {
    await world?.stop();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('refuses a run whose host lists a root the server does not allow (400, naming the root and the server)', async () => {
    const root = await createHost('root of the disk', [{ uri: 'file:///' }]);
    const baseline = await healthzWorstMs(world.stack.origin);
    const { result: created, worstMs } = await healthzDuring(world.stack.origin, () => startRun(fenced, root));
    if (created.status === 202) {
      // What the finding saw: the run goes ahead and its iterations read outside the operator's folder.
      await waitForRun(world.call, world.org.projectId, created.body.runId);
      const iterations = await allIterations(world.call, world.org.projectId, created.body.runId);
      const traces = await Promise.all(
        iterations.map((i) =>
          world.call(
            'GET',
            `/projects/${world.org.projectId}/eval-runs/${created.body.runId}/iterations/${i.id}/trace`,
          ),
        ),
      );
      const read = traces.filter((t) => JSON.stringify(t.body).includes(secret)).length;
      expect.fail(`the run was accepted; ${read} of ${iterations.length} iterations read the planted file`);
    }
    expect(created.status, JSON.stringify(created.body)).toBe(400);
    expect(created.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'ROOT_NOT_ALLOWED', root: 'file:///', serverId: fenced },
    });
    expect(created.body.message).toContain('file:///');
    expect(created.body.message).toContain("'files'");
    expectUnharmed('healthz', baseline, worstMs, 5);
  });

  it('normalizes before comparing: `..`, percent-encoding and trailing slashes do not get past an allowed root', async () => {
    const allowedUri = pathToFileURL(allowed).href;
    for (const uri of [
      `${allowedUri}/../outside`,
      `${allowedUri}/sub/../../outside/`,
      `${allowedUri}/%2e%2e/outside`,
      `${allowedUri.replace(/allowed$/, '%61llowed')}/%2E%2E/outside`,
      `${allowedUri}-sibling`,
      `file://otherhost${allowed}`,
    ]) {
      const created = await startRun(widened, await createHost(`tricky ${uri}`, [{ uri }]));
      expect(created.status, `${uri}: ${JSON.stringify(created.body)}`).toBe(400);
      expect(created.body.details).toMatchObject({ reason: 'ROOT_NOT_ALLOWED', serverId: widened });
    }
  });

  it('runs a host whose roots lie inside an allowed root; its iterations read inside, never outside', async () => {
    const inside = await createHost('inside', [{ uri: `${pathToFileURL(allowed).href}/sub/` }]);
    const created = await startRun(widened, inside);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const run = await waitForRun(world.call, world.org.projectId, created.body.runId);
    expect(run.status).toBe('completed');
    const iterations = await allIterations(world.call, world.org.projectId, created.body.runId);
    for (const iteration of iterations) {
      const trace = await world.call(
        'GET',
        `/projects/${world.org.projectId}/eval-runs/${created.body.runId}/iterations/${iteration.id}/trace`,
      );
      expect(JSON.stringify(trace.body)).not.toContain(secret);
      expect(JSON.stringify(trace.body)).toContain('access denied');
    }
  });

  it('clamps the roots it declares wherever a profile reaches a server (roots/list answers only allowed roots)', async () => {
    // Whatever path a host's profile takes to a server (a run created before the fence, case generation, ...):
    // the session is opened with the profile, as runContext and case generation do.
    const [server] = await getSavedServersByIds(world.stack.sql, world.stack.box, world.org.projectId, [fenced]);
    const wide = { ...server, clientProfile: hostClientProfile({ roots: [{ uri: 'file:///' }] }) };
    const read = await world.stack.mcp.callTool(wide, 'read_file', { path: planted });
    expect(JSON.stringify(read)).not.toContain(secret);
    expect(JSON.stringify(await world.stack.mcp.callTool(wide, 'allowed', {}))).toContain('[]');

    const [allowedServer] = await getSavedServersByIds(world.stack.sql, world.stack.box, world.org.projectId, [
      widened,
    ]);
    const mixed = {
      ...allowedServer,
      clientProfile: hostClientProfile({
        roots: [{ uri: 'file:///' }, { uri: `${pathToFileURL(allowed).href}/sub/./` }],
      }),
    };
    expect(JSON.stringify(await world.stack.mcp.callTool(mixed, 'read_file', { path: planted }))).not.toContain(secret);
    expect(
      JSON.stringify(await world.stack.mcp.callTool(mixed, 'read_file', { path: join(allowed, 'sub', 'inside.txt') })),
    ).toContain('inside');
  });

  it('refuses at case generation and at host create/edit for the servers a host names; remote servers are not fenced', async () => {
    const root = await createHost('root again', [{ uri: 'file:///' }]);
    const suite = await world.call('POST', `/projects/${world.org.projectId}/eval-suites`, {
      name: 'generated',
      serverIds: [fenced],
      hostId: root,
      model: 'scripted-roots',
      provider: 'openai',
      tests: [{ title: 'read', query: 'Read the planted file' }],
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const generated = await world.call(
      'POST',
      `/projects/${world.org.projectId}/eval-suites/${suite.body.suiteId}/cases/generate`,
      { count: 1, model: 'scripted-roots', provider: 'openai' },
    );
    expect(generated.status, JSON.stringify(generated.body)).toBe(400);
    expect(generated.body.details).toMatchObject({ reason: 'ROOT_NOT_ALLOWED', serverId: fenced });

    const named = await world.call('POST', hostsPath(), {
      name: 'names its server',
      config: { serverIds: [fenced], roots: [{ uri: 'file:///etc' }] },
    });
    expect(named.status, JSON.stringify(named.body)).toBe(400);
    expect(named.body.details).toMatchObject({ reason: 'ROOT_NOT_ALLOWED', root: 'file:///etc' });
    const edited = await world.call('PATCH', `${hostsPath()}/${root}`, {
      config: { serverIds: [widened], roots: [{ uri: 'file:///' }] },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(400);

    // A remote server cannot read this machine's disk: a host's roots are only names to it.
    const toRemote = await world.call('POST', hostsPath(), {
      name: 'remote',
      config: { serverIds: [remote], roots: [{ uri: 'file:///' }] },
    });
    expect(toRemote.status, JSON.stringify(toRemote.body)).toBe(201);
  });
});
