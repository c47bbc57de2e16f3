/**
 * What an attack must not do to everybody else (issue 27): stall the API's event loop, or slow another
 * organization's run. Each attack test measures a bystander before and during the attack, in the same test, and
 * asserts the ratio: never an absolute time, so a slow or loaded machine moves both sides alike.
 */
import { expect } from 'vitest';
import { setProviderKey } from '../../db/providerKeys.js';
import type { ScriptedModelServer } from '../fixtures/model/server.js';
import { apiClient } from './http.js';
import { fixtureOverStdio, saveServer } from './mcpServers.js';
import { seedOrganization } from './seed.js';
import type { TestStack } from './stack.js';

/**
 * Below this many milliseconds a latency counts as this many: a 2 ms baseline must not make a 300 ms scheduling
 * hiccup of a loaded 2-core CI machine (seen: 315 ms and 389 ms, with other test files running, and 285 ms against
 * a 14 ms baseline on a slower machine: x5.7 at a 50 ms floor; then, with the suite grown, 641 ms against 39 ms and
 * 934 ms against 3 ms in CI runs that otherwise passed: x6.4 and x9.3 at a 100 ms floor) a "x13" stall. The stalls
 * these tests exist for last several seconds, still past floor x ratio (1.25 s at x5, 2 s at x8).
 */
const FLOOR_MS = 250;

/** The worst latency of GET /healthz over `samples` requests, one after another. */
export async function healthzWorstMs(origin: string, samples = 10): Promise<number> {
  let worst = 0;
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const reply = await fetch(`${origin}/healthz`);
    await reply.arrayBuffer();
    worst = Math.max(worst, performance.now() - started);
  }
  return worst;
}

/**
 * Runs `attack` while GET /healthz is polled without pause; returns the attack's result and the worst /healthz
 * latency seen meanwhile. One probe is in flight at a time, and each is timed from when it was due (the end of the
 * pause after the previous one), so a stall shows whether it began during a probe or during the pause; the probe in
 * flight when the attack ends is waited for and counted.
 */
export async function healthzDuring<T>(
  origin: string,
  attack: () => Promise<T>,
): Promise<{ result: T; worstMs: number; probes: number }> {
  const PAUSE_MS = 5;
  let done = false;
  let worstMs = 0;
  let probes = 0;
  const prober = (async () => {
    let due = performance.now();
    while (!done) {
      const reply = await fetch(`${origin}/healthz`);
      await reply.arrayBuffer();
      worstMs = Math.max(worstMs, performance.now() - due);
      probes++;
      due = performance.now() + PAUSE_MS;
      await new Promise((r) => setTimeout(r, PAUSE_MS));
    }
  })();
  let result: T;
  try {
    result = await attack();
  } finally {
    done = true;
    await prober;
  }
  return { result, worstMs, probes };
}

/**
 * Runs of a few iterations vary by more than a /healthz probe: their floor. On a two-core CI machine that runs two
 * test files at once, a two-iteration run swings by about a second with the other file's load (1.7 s once against a
 * 0.25 s baseline, with no attack of its own); a run an attack really starves takes many seconds.
 */
export const RUN_FLOOR_MS = 1_000;

/** during / baseline, both floored at `floorMs`. */
export function slowdown(baselineMs: number, duringMs: number, floorMs = FLOOR_MS): number {
  return Math.max(duringMs, floorMs) / Math.max(baselineMs, floorMs);
}

/** Asserts that a bystander's time during an attack stayed within `maxRatio` of its time before it. */
export function expectUnharmed(
  what: string,
  baselineMs: number,
  duringMs: number,
  maxRatio: number,
  floorMs = FLOOR_MS,
): void {
  const ratio = slowdown(baselineMs, duringMs, floorMs);
  expect(
    ratio,
    `${what}: ${duringMs.toFixed(0)} ms during the attack against ${baselineMs.toFixed(0)} ms before (x${ratio.toFixed(1)})`,
  ).toBeLessThan(maxRatio);
}

/**
 * Another organization on the same stack, with its own key, a small stdio server (tools-only) and the scripted
 * model behind its `openai` provider: `runMs()` creates a run of one case x `iterations` and answers how long it took
 * from POST to its end (it must complete). `baselineMs()` is the quicker of two runs before any attack: the first run
 * of a stack pays for starting things (warm sessions, workflow caches) that later runs do not.
 * Compare with `expectUnharmed('bystander run', baseline, during, 3, RUN_FLOOR_MS)`.
 */
export async function startBystander(stack: TestStack, model: ScriptedModelServer, iterations = 2) {
  const org = await seedOrganization(stack.sql, { name: 'Bystander' });
  await setProviderKey(stack.sql, stack.box, {
    organizationId: org.organizationId,
    provider: 'openai',
    apiKey: 'bystander-key',
    baseUrl: model.url,
  });
  const serverId = await saveServer(stack.sql, stack.box, {
    projectId: org.projectId,
    name: 'bystander-tools',
    ...fixtureOverStdio('tools-only'),
  });
  model.setScript('bystander-model', { byQuery: {}, default: [{ text: 'bystander answer' }] });
  const call = apiClient(stack.baseUrl, org.apiKey);
  async function runMs(): Promise<number> {
    const started = performance.now();
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Bystander suite',
      serverIds: [serverId],
      model: 'bystander-model',
      tests: [{ title: 'bystander', query: 'say something', provider: 'openai', runs: iterations }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const runId: string = created.body.runId;
    for (;;) {
      const reply = await call('GET', `/projects/${org.projectId}/eval-runs/${runId}`);
      expect(reply.status).toBe(200);
      if (reply.body.status !== 'running' && reply.body.status !== 'pending') {
        expect(reply.body.status, JSON.stringify(reply.body)).toBe('completed');
        return performance.now() - started;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    org,
    serverId,
    call,
    runMs,
    async baselineMs(): Promise<number> {
      return Math.min(await runMs(), await runMs());
    },
  };
}
