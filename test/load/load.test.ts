import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../db/accounts.js';
import { setProviderKey } from '../../db/providerKeys.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../fixtures/model/server.js';
import { writeFigures } from '../faults/harness/figures.js';
import { startEverythingHttp } from '../faults/harness/mcpServer.js';
import type { NodeProcess } from '../faults/harness/processes.js';
import { startProcessStack, type ProcessStack } from '../faults/harness/stack.js';
import { apiClient, type ApiReply } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { watchRunningRuns } from './runningWatch.js';

const ORGS = 20;
const POSTS_PER_ORG = 4;
const MAX_CONCURRENT_RUNS = 2;
const RATE_LIMIT_BURST = 10;
const ITERATIONS_PER_RUN = 8;
/**
 * The first model turn is slow so that every accepted run is still running when the last of the concurrent POSTs
 * is answered (8 iterations in 2 lanes: at least 4 × 3 s after acceptance; the POSTs took 4–7 s on a busy
 * two-core machine, and once past 8 s when other work shared the cores, which 2 s a turn did not cover). Only then
 * does "exactly 2 accepted per organization" test the cap: checked below, not assumed.
 */
const FIRST_TURN_DELAY_MS = 3000;

interface OrgUnderLoad extends SeededOrganization {
  serverId: string;
}

describe('two API processes and two workers sharing one Temporal and one Postgres', () => {
  let stack: ProcessStack;
  let model: ScriptedModelServer;
  let mcp: { url: string; process: NodeProcess };
  const orgs: OrgUnderLoad[] = [];
  let limitedKeys: string[];
  const suiteStarted = Date.now();
  let figures: object = {};

  beforeAll(async () => {
    model = await startScriptedModelServer();
    stack = await startProcessStack({
      apis: 2,
      workers: 2,
      // Nothing here restarts Temporal; a sqlite history file made 40 concurrent runs ~3x slower (fsync per write).
      temporalHistory: 'memory',
      env: {
        MAX_CONCURRENT_RUNS: String(MAX_CONCURRENT_RUNS),
        RATE_LIMIT_BURST: String(RATE_LIMIT_BURST),
        // One token a minute: no refill can land inside a burst, so "exactly the burst passes" is deterministic.
        // A key's 4 POSTs and 2 reads below stay within its burst.
        RATE_LIMIT_PER_MINUTE: '1',
        EVAL_ITERATION_CONCURRENCY: '2',
      },
    });
    // One reference server over HTTP that every organization saves: 20 stdio children per worker would measure
    // process spawning on a two-core CI machine, not Runway.
    mcp = await startEverythingHttp(stack.dir);
    model.setScript('load', [
      { toolCalls: [{ name: 'echo', arguments: { message: 'load' } }], delayMs: FIRST_TURN_DELAY_MS },
      { text: 'ok', delayMs: 20 },
    ]);
    for (let i = 0; i < ORGS; i++) {
      const org = await seedOrganization(stack.sql, { name: `Load org ${i}` });
      await setProviderKey(stack.sql, stack.box, {
        organizationId: org.organizationId,
        provider: 'openai',
        apiKey: 'org-key',
        baseUrl: model.url,
      });
      const serverId = await saveServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name: 'everything',
        transportType: 'http',
        url: mcp.url,
      });
      orgs.push({ ...org, serverId });
    }
    // Two keys of one more organization, each sending a burst through both APIs.
    const limited = await seedOrganization(stack.sql, { name: 'Rate limited org' });
    const second = await createApiKey(stack.sql, {
      name: 'second key',
      organizationId: limited.organizationId,
      userId: limited.userId,
    });
    limitedKeys = [limited.apiKey, second.key];
  }, 180_000);

  afterAll(async () => {
    writeFigures('load', { wallTimeMs: Date.now() - suiteStarted, ...figures });
    await mcp?.process.stop();
    await stack?.stop();
    await model?.close();
  }, 120_000);

  it('caps each organization at exactly 2 running runs, completes every accepted run, and limits each key across both APIs', async () => {
    const api = (i: number, key: string) => apiClient(stack.apis[i % 2].baseUrl, key);
    const body = (org: OrgUnderLoad, i: number) => ({
      suiteName: `Load ${i}`,
      serverIds: [org.serverId],
      modelApiKeys: { openai: 'sk-run-key' },
      tests: Array.from({ length: ITERATIONS_PER_RUN }, (_, j) => ({
        title: `case ${j}`,
        query: `load org ${i} case ${j}`,
        model: 'load',
        provider: 'openai',
        expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'load' } }],
      })),
    });

    const watch = watchRunningRuns(
      stack.sql,
      orgs.map((o) => o.organizationId),
    );
    const started = Date.now();
    // Every organization's POSTs at once, alternating between the APIs, with the rate-limit bursts in the middle.
    const posting = Promise.all(
      orgs.map((org, i) =>
        Promise.all(
          Array.from({ length: POSTS_PER_ORG }, (_, j) =>
            api(i + j, org.apiKey)('POST', `/projects/${org.projectId}/eval-runs`, body(org, i)),
          ),
        ),
      ),
    );
    const bursting = Promise.all(
      limitedKeys.map((key) =>
        Promise.all(Array.from({ length: RATE_LIMIT_BURST + 1 }, (_, j) => api(j, key)('GET', '/me'))),
      ),
    );
    const [posts, bursts] = await Promise.all([posting, bursting]);
    const postsAnswered = Date.now();

    // The cap, as each organization's client sees it.
    const accepted: { org: OrgUnderLoad; runId: string }[] = [];
    posts.forEach((replies: ApiReply[], i) => {
      const statuses = replies.map((r) => r.status).sort();
      expect(statuses, JSON.stringify(replies.map((r) => r.body))).toEqual([202, 202, 429, 429]);
      for (const r of replies.filter((r) => r.status === 429)) {
        expect(r.body).toMatchObject({
          code: 'RATE_LIMITED',
          details: { reason: 'CONCURRENT_RUN_LIMIT', maxConcurrentRuns: MAX_CONCURRENT_RUNS },
        });
      }
      for (const r of replies.filter((r) => r.status === 202)) accepted.push({ org: orgs[i], runId: r.body.runId });
    });

    // The rate limit, per key, across both APIs.
    for (const replies of bursts) {
      expect(replies.filter((r) => r.status === 200)).toHaveLength(RATE_LIMIT_BURST);
      expect(replies.filter((r) => r.status === 429).map((r) => r.body.code)).toEqual(['RATE_LIMITED']);
    }

    // Every accepted run completes.
    const runIds = accepted.map((a) => a.runId);
    const deadline = Date.now() + 180_000;
    for (;;) {
      const [{ running }] = await stack.sql<
        { running: number }[]
      >`SELECT count(*)::int AS running FROM eval_runs WHERE id = ANY(${runIds}) AND status = 'running'`;
      if (running === 0) break;
      if (Date.now() > deadline) throw new Error(`${running} runs still running\n${stack.logTails()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const { maxRunningByOrg, samples } = await watch.stop();
    const runsFinished = Date.now();

    // The cap at every sampled instant, straight from Postgres: 2 reached, never 3.
    expect(new Set(maxRunningByOrg.values())).toEqual(new Set([MAX_CONCURRENT_RUNS]));
    const runs = await stack.sql<
      { id: string; status: string; completed_at: Date; iterations: number; finished: number }[]
    >`
      SELECT r.id, r.status, r.completed_at,
             (SELECT count(*)::int FROM eval_iterations i WHERE i.run_id = r.id) AS iterations,
             (SELECT count(*)::int FROM eval_iterations i WHERE i.run_id = r.id AND i.status = 'completed') AS finished
      FROM eval_runs r WHERE r.id = ANY(${runIds})`;
    expect(runs).toHaveLength(ORGS * MAX_CONCURRENT_RUNS);
    for (const run of runs)
      expect(run, run.id).toMatchObject({
        status: 'completed',
        iterations: ITERATIONS_PER_RUN,
        finished: ITERATIONS_PER_RUN,
      });
    // Had a run finished before the last POST was answered, a third POST could rightly have been accepted.
    const firstFinished = Math.min(...runs.map((r) => r.completed_at.getTime()));
    expect(
      firstFinished,
      'a run finished before every POST was answered; make FIRST_TURN_DELAY_MS longer',
    ).toBeGreaterThan(postsAnswered);

    // And as each organization's client reads it, through either API (2 more requests per key, within the burst).
    for (const [n, { org, runId }] of accepted.entries()) {
      const reply = await api(n, org.apiKey)('GET', `/projects/${org.projectId}/eval-runs/${runId}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({
        status: 'completed',
        result: 'passed',
        summary: { total: ITERATIONS_PER_RUN, passed: ITERATIONS_PER_RUN },
      });
    }

    figures = {
      apiProcesses: 2,
      workerProcesses: 2,
      organizations: ORGS,
      postsPerOrganization: POSTS_PER_ORG,
      maxConcurrentRuns: MAX_CONCURRENT_RUNS,
      acceptedRuns: accepted.length,
      rejectedConcurrentRunLimit: posts.flat().filter((r) => r.status === 429).length,
      maxRunningPerOrganizationSeen: Math.max(...maxRunningByOrg.values()),
      runningSamples: samples,
      runsCompleted: runs.filter((r) => r.status === 'completed').length,
      iterationsCompleted: runs.reduce((n, r) => n + r.finished, 0),
      postsAnsweredMs: postsAnswered - started,
      allRunsFinishedMs: runsFinished - started,
      rateLimit: {
        burst: RATE_LIMIT_BURST,
        keys: bursts.length,
        requestsPerKey: RATE_LIMIT_BURST + 1,
        passedPerKey: bursts.map((replies) => replies.filter((r) => r.status === 200).length),
        rejectedPerKey: bursts.map((replies) => replies.filter((r) => r.status === 429).length),
      },
      modelCalls: model.calls('load').length,
    };
  }, 300_000);
});
