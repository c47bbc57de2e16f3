import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../../domain/limits.js';
import { hostClientProfile } from '../../domain/mcp/index.js';
import { getSavedServersByIds } from '../../db/servers.js';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { expectUnharmed, healthzDuring, RUN_FLOOR_MS, startBystander } from '../helpers/fairness.js';
import { fixtureArgs, saveServer } from '../helpers/mcpServers.js';
import type { SavedServer } from '../../domain/catalog/server.js';

const RUN_KEY = 'sk-run-warm-cap';
const PER_SERVER = limits.idleSessionsPerServer;

/** The fixture's entry point: its children are the stdio processes this test counts. */
const fixturePath = fixtureArgs('workdir').at(-1)!;

/** The live stdio children of this process (API and worker of the test stack) running the attack's fixture. */
function liveChildren(): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there is no child at all
  }
  return out
    .split('\n')
    .filter((line) => line.includes(fixturePath))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Waits until at most `max` children are left (closing one takes a moment), then answers how many there are. */
async function settledChildren(max: number, timeoutMs = 10_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = liveChildren();
    if (live.length <= max || Date.now() > deadline) return live;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Issue 27, finding 5: a tenant makes one client profile per host, and Runway kept warm processes per profile: 30
 * hosts that differ only in roots left 30 stdio processes for one server. Idle and warm sessions are capped per
 * server and per organization across profiles, the least recently used closed (its process ends).
 */
describe('warm and idle stdio processes are capped across client profiles', () => {
  let world: EvalWorld;
  let server: SavedServer;

  beforeAll(async () => {
    world = await startEvalWorld({ MCP_CONNECT_TIMEOUT_MS: '60000', MCP_INITIALIZE_TIMEOUT_MS: '60000' });
    const id = await saveServer(world.stack.sql, world.stack.box, {
      projectId: world.org.projectId,
      name: 'workdir',
      transportType: 'stdio',
      command: process.execPath,
      args: fixtureArgs('workdir'),
      allowedRoots: ['file:///srv/tenant'],
    });
    [server] = await getSavedServersByIds(world.stack.sql, world.stack.box, world.org.projectId, [id]);
    world.model.setScript('scripted-cap', { byQuery: {}, default: [{ text: 'ok' }] });
  });
  afterAll(async () => {
    await world?.stop();
  });

  it('30 profiles on server operations (the API process) leave at most the cap of processes; later ones work', async () => {
    const asHost = (i: number) => ({
      ...server,
      clientProfile: hostClientProfile({ roots: [{ uri: `file:///srv/tenant/${i}` }] }),
    });
    // The same statistic before as during: the worst of probes without pause, here over a quiet while (the attack
    // lasts tens of seconds, and the worst of a few probes is no baseline for the worst of hundreds on a busy machine).
    const { worstMs: baseline } = await healthzDuring(
      world.stack.origin,
      () => new Promise((r) => setTimeout(r, 5_000)),
    );
    const { worstMs } = await healthzDuring(world.stack.origin, async () => {
      for (let i = 0; i < 30; i++) expect((await world.stack.mcp.listTools(asHost(i))).items.length).toBeGreaterThan(0);
    });
    const live = await settledChildren(PER_SERVER);
    expect(live.length, `live children of the fixture: ${live.length}`).toBeLessThanOrEqual(PER_SERVER);
    expectUnharmed('healthz during 30 profiles', baseline, worstMs, 5);
    // Later operations still work: an evicted profile (the first) and a kept one (the last).
    expect((await world.stack.mcp.listTools(asHost(0))).items.length).toBeGreaterThan(0);
    expect((await world.stack.mcp.listTools(asHost(29))).items.length).toBeGreaterThan(0);
    expect((await settledChildren(PER_SERVER)).length).toBeLessThanOrEqual(PER_SERVER);
    // 30 stdio processes started one after another (each profile its own): about 35 s alone, more on a busy CI machine.
  }, 150_000);

  it('eval runs with 8 hosts (the worker) leave at most the cap of warm processes; a bystander run keeps its time', async () => {
    const bystander = await startBystander(world.stack, world.model);
    const bystanderBaseline = await bystander.baselineMs();
    const hosts: string[] = [];
    for (let i = 0; i < 8; i++) {
      const host = await world.call('POST', `/projects/${world.org.projectId}/hosts`, {
        name: `host ${i}`,
        config: { roots: [{ uri: `file:///srv/tenant/run-${i}` }] },
      });
      expect(host.status, JSON.stringify(host.body)).toBe(201);
      hosts.push(host.body.id);
    }
    const attack = (async () => {
      for (const hostId of hosts) {
        const created = await world.call('POST', `/projects/${world.org.projectId}/eval-runs`, {
          suiteName: 'profiles',
          serverIds: [server.id],
          hostId,
          modelApiKeys: { openai: RUN_KEY },
          tests: [{ title: 't', query: 'hello', model: 'scripted-cap', provider: 'openai', runs: 1 }],
        });
        expect(created.status, JSON.stringify(created.body)).toBe(202);
        expect((await waitForRun(world.call, world.org.projectId, created.body.runId)).status).toBe('completed');
      }
    })();
    const during = await bystander.runMs();
    await attack;
    const live = await settledChildren(PER_SERVER);
    expect(live.length, `live children of the fixture: ${live.length}`).toBeLessThanOrEqual(PER_SERVER);
    expectUnharmed('bystander run', bystanderBaseline, during, 3, RUN_FLOOR_MS);
  });
});
