import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalRunWorkflowId } from '../../workflows/definitions.js';
import { setProviderKey } from '../../db/providerKeys.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../fixtures/model/server.js';
import { apiClient } from '../helpers/http.js';
import { everythingOverStdio, saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { writeFigures } from './harness/figures.js';
import { startEverythingHttp } from './harness/mcpServer.js';
import type { NodeProcess } from './harness/processes.js';
import { auditRun, finishedQueries, pollRun, runBody, scriptSuite, type RunAudit } from './harness/runs.js';
import { startProcessStack, type ProcessStack } from './harness/stack.js';

/**
 * At least 50 iterations a run (the fault tests' target); with two lanes of ~2×MODEL_DELAY_MS iterations a run lasts
 * several seconds.
 */
const ITERATIONS = 60;
const MODEL_DELAY_MS = 50;
/** the fault lands once this many iterations finished, so there are finished ones to protect and work left to do */
const FAULT_AFTER = 10;
/**
 * How long Temporal and Postgres stay stopped before they start again. Longer outages of Postgres fail a run: a
 * batch gives up after 5 attempts (1+2+4+8 s of backoff), see the figures' notes.
 */
const STORE_DOWN_MS = 2000;
/** Past the batches' 15 s heartbeat timeout (workflows/evalRun.ts): Temporal gives up on the paused attempts. */
const PAUSE_MS = 20_000;
/** EVAL_ITERATION_CONCURRENCY below: the iterations in flight at any moment */
const LANES = 2;

interface ScenarioFigures {
  scenario: string;
  fault: string;
  iterations: number;
  finishedBeforeFault: number;
  /** how the worker reached the reference server: a stdio process per iteration, or one over HTTP */
  mcp: 'stdio' | 'http';
  /** stopping and starting again the faulted process */
  faultMs: number;
  /** from the fault's start to the next iteration stored as finished: how long work stood still */
  workStoppedMs: number;
  /** POST /eval-runs to the run stored as completed */
  runDurationMs: number;
  duplicates: number;
  restartedInFlight: number;
  modelCalls: number;
  /** run polls answered by a refused connection or a 5xx during the fault, per answer */
  unavailablePolls: Record<string, number>;
}

describe('an eval run survives faults of the real processes', () => {
  let stack: ProcessStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  /**
   * The reference server two ways. Faults of the worker and of Postgres run against it over stdio, a process per
   * iteration that the worker spawns (the default isolation): a worker fault reaches its MCP children as a
   * container's would. (Over HTTP, an iteration that connects while Postgres is down fails: reading the server's
   * OAuth tokens does not wait for the database, unlike the batch's own statements; a known gap.) Faults of Temporal
   * and the API leave the worker, its children and the database alone: there the server is one process over
   * streamable HTTP, which spares the 60 spawns a run (2 cores, and the rest of the suite beside this file).
   */
  let stdioServerId: string;
  let httpServerId: string;
  let everythingHttp: NodeProcess | undefined;
  const scenarios: ScenarioFigures[] = [];
  const suiteStarted = Date.now();

  beforeAll(async () => {
    model = await startScriptedModelServer();
    stack = await startProcessStack({
      // Two lanes per run keep it going long enough to fault it mid-run; polling must never be rate limited.
      env: { EVAL_ITERATION_CONCURRENCY: String(LANES), RATE_LIMIT_BURST: '100000', RATE_LIMIT_PER_MINUTE: '6000000' },
    });
    org = await seedOrganization(stack.sql);
    await setProviderKey(stack.sql, stack.box, {
      organizationId: org.organizationId,
      provider: 'openai',
      apiKey: 'org-key',
      baseUrl: model.url,
    });
    stdioServerId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'everything',
      ...everythingOverStdio(),
    });
    const http = await startEverythingHttp(stack.dir);
    everythingHttp = http.process;
    httpServerId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'everything-http',
      transportType: 'http',
      url: http.url,
    });
  }, 180_000);

  afterAll(async () => {
    writeFigures('faults', {
      wallTimeMs: Date.now() - suiteStarted,
      iterationsPerRun: ITERATIONS,
      modelDelayMs: MODEL_DELAY_MS,
      scenarios,
    });
    await everythingHttp?.stop();
    await stack?.stop();
    await model?.close();
  }, 120_000);

  /**
   * Starts a run, applies `fault` once FAULT_AFTER iterations finished, and checks what the run ended with: every
   * iteration once, none finished run again, each finished one with the time it started.
   */
  async function survive(
    scenario: string,
    fault: string,
    over: 'stdio' | 'http',
    apply: (runId: string) => Promise<void>,
  ): Promise<{ runId: string; audit: RunAudit }> {
    const serverId = over === 'stdio' ? stdioServerId : httpServerId;
    const suite = scriptSuite(model, `fault-${scenario}`, ITERATIONS, MODEL_DELAY_MS);
    const started = Date.now();
    const created = await apiClient(stack.apis[0].baseUrl, org.apiKey)(
      'POST',
      `/projects/${org.projectId}/eval-runs`,
      runBody(suite, serverId),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const runId: string = created.body.runId;
    const poll = (until: (run: any) => boolean, signal?: AbortSignal) =>
      pollRun(stack.apis[0].baseUrl, org.apiKey, org.projectId, runId, until, { timeoutMs: 180_000, signal });

    await poll((r) => r.progress.completed >= FAULT_AFTER);
    const finishedBefore = await finishedQueries(stack.sql, runId);
    // Otherwise the fault would not be mid-run and the test would prove nothing.
    expect(finishedBefore.size).toBeLessThan(ITERATIONS);

    // A client keeps polling through the fault, as a real one would.
    const watching = new AbortController();
    const ending = poll((r) => r.status !== 'running', watching.signal);
    ending.catch(() => {}); // awaited below; a failed fault must not leave an unhandled rejection behind
    const faultStarted = Date.now();
    try {
      await apply(runId);
    } catch (error) {
      watching.abort();
      throw new Error(`${fault} failed: ${String(error)}\n${stack.logTails()}`);
    }
    const faultEnded = Date.now();

    let ended: Awaited<typeof ending>;
    try {
      ended = await ending;
    } catch (error) {
      throw new Error(`${String(error)}\n${stack.logTails()}`);
    }
    expect(ended.run, stack.logTails()).toMatchObject({
      status: 'completed',
      result: 'passed',
      summary: { total: ITERATIONS, passed: ITERATIONS },
    });

    const audit = await auditRun(stack.sql, model, suite, runId, finishedBefore);
    expect(audit.iterations).toBe(ITERATIONS);
    expect(audit.duplicateRows).toEqual([]);
    expect(audit.reexecutedFinished).toEqual([]);
    expect(audit.callsAfterFinish).toEqual([]);
    // Completing an iteration records when it started, also when the claim that marked it running was lost.
    expect(audit.finishedWithoutStart).toEqual([]);

    const [{ completed_at: completedAt, resumed_at: resumedAt }] = await stack.sql<
      { completed_at: Date; resumed_at: Date }[]
    >`
      SELECT r.completed_at, (SELECT min(updated_at) FROM eval_iterations WHERE run_id = r.id AND updated_at > ${new Date(faultStarted)}) AS resumed_at
      FROM eval_runs r WHERE r.id = ${runId}`;
    scenarios.push({
      scenario,
      fault,
      iterations: audit.iterations,
      finishedBeforeFault: finishedBefore.size,
      faultMs: faultEnded - faultStarted,
      mcp: over,
      workStoppedMs: resumedAt.getTime() - faultStarted,
      runDurationMs: completedAt.getTime() - started,
      duplicates: audit.duplicateRows.length + audit.reexecutedFinished.length + audit.callsAfterFinish.length,
      restartedInFlight: audit.restartedInFlight,
      modelCalls: audit.modelCalls,
      unavailablePolls: ended.unavailable,
    });
    return { runId, audit };
  }

  it('(a) the worker killed with SIGKILL, a new one started', async () => {
    // The whole process group, as a container runtime kills it: the worker and its stdio MCP server.
    await survive(
      'worker-sigkill',
      'SIGKILL to the worker process group, then a new worker process',
      'stdio',
      async () => {
        await stack.killWorker(0, 'SIGKILL');
        await stack.startWorker(0);
      },
    );
  }, 240_000);

  // Both stores stay down a while, as in a real restart: work in flight meets the outage, not just a blip.
  it('(b) the Temporal dev server restarted on its persistent database', async () => {
    await survive(
      'temporal-restart',
      `Temporal dev server stopped (SIGTERM), down ${STORE_DOWN_MS} ms, started again on the same port and sqlite file`,
      'http',
      () => stack.temporal.restart({ downMs: STORE_DOWN_MS }),
    );
  }, 240_000);

  it('(c) Postgres restarted', async () => {
    await survive(
      'postgres-restart',
      `PostgreSQL fast shutdown (SIGINT), down ${STORE_DOWN_MS} ms, started again on the same data dir and port`,
      'stdio',
      () => stack.postgres.restart({ downMs: STORE_DOWN_MS }),
    );
  }, 240_000);

  it('(d) the API process restarted', async () => {
    await survive(
      'api-restart',
      'SIGKILL to the API process group, then a new API process on the same port',
      'http',
      () => stack.restartApi(0, 'SIGKILL'),
    );
  }, 240_000);

  it('(e) Postgres crashed (immediate shutdown) and started again', async () => {
    const { audit } = await survive(
      'postgres-crash',
      `PostgreSQL crashed (SIGQUIT to the postmaster, as pg_ctl stop -m immediate), down ${STORE_DOWN_MS} ms, started again with crash recovery`,
      'stdio',
      () => stack.postgres.crash({ downMs: STORE_DOWN_MS }),
    );
    // Model work done is kept: a result waits for the database to come back instead of being thrown away, so at
    // most the iterations in flight (one per lane) call the model again, once each.
    expect(audit.modelCalls).toBeLessThanOrEqual(2 * ITERATIONS + LANES);
  }, 240_000);

  it('(f) the worker paused (SIGSTOP) past its heartbeat timeout, then resumed', async () => {
    let paused: { id: string; owner: string; attempt: number }[] = [];
    await survive(
      'worker-pause',
      `SIGSTOP to the worker process group for ${PAUSE_MS} ms (past the 15 s heartbeat timeout), then SIGCONT`,
      'stdio',
      async (id) => {
        stack.workers[0].process.signal('SIGSTOP');
        try {
          await new Promise((r) => setTimeout(r, PAUSE_MS));
          // The unfinished iterations and the attempts that held them when the worker stopped: Temporal has timed
          // those attempts out by now.
          paused = await stack.sql<{ id: string; owner: string; attempt: number }[]>`
            SELECT id, claim_owner AS owner, claim_attempt AS attempt FROM eval_iterations
            WHERE run_id = ${id} AND status IN ('pending', 'running') AND claim_owner IS NOT NULL`;
        } finally {
          stack.workers[0].process.signal('SIGCONT');
        }
      },
    );
    expect(paused.length).toBeGreaterThan(0);
    // Whatever those attempts did after waking up (a timer that fired late, a reply that was waiting) is not stored:
    // the iterations they held were finished by the attempts Temporal started instead.
    const storedByPaused = await stack.sql<{ query: string; owner: string; attempt: number }[]>`
      SELECT i.query, i.claim_owner AS owner, i.claim_attempt AS attempt
      FROM eval_iterations i JOIN jsonb_to_recordset(${stack.sql.json(paused)}) AS p(id text, owner text, attempt int)
        ON p.id = i.id AND p.owner = i.claim_owner AND p.attempt = i.claim_attempt
      WHERE i.status IN ('completed', 'failed')`;
    expect(storedByPaused).toEqual([]);
  }, 240_000);

  it('(g) a run cancelled while the only worker holding its batches is dead ends cancelled', async () => {
    const suite = scriptSuite(model, 'fault-cancel-dead-worker', ITERATIONS, MODEL_DELAY_MS);
    const call = apiClient(stack.apis[0].baseUrl, org.apiKey);
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, runBody(suite, stdioServerId));
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const runId: string = created.body.runId;
    const poll = (until: (run: any) => boolean) =>
      pollRun(stack.apis[0].baseUrl, org.apiKey, org.projectId, runId, until, { timeoutMs: 180_000 });
    await poll((r) => r.progress.completed >= FAULT_AFTER);

    await stack.killWorker(0, 'SIGKILL');
    const cancel = await call('POST', `/projects/${org.projectId}/eval-runs/${runId}/cancel`);
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(202);
    // The cancel reaches the dead worker's batches only as their heartbeat timeout: the run must still read cancelled.
    await stack.startWorker(0);
    const ended = await poll((r) => r.status !== 'running');
    expect(ended.run, stack.logTails()).toMatchObject({ status: 'cancelled', result: null });
    // ...and so does its workflow in Temporal (Web UI tells the same story)
    const connection = await Connection.connect({ address: stack.temporal.address });
    try {
      const handle = new Client({ connection }).workflow.getHandle(evalRunWorkflowId(runId));
      // The workflow's last step ends the row; the workflow closes just after it (on a loaded machine, a while after).
      await handle.result().catch(() => undefined);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
    } finally {
      await connection.close();
    }
    const byStatus = await stack.sql<{ status: string; n: number }[]>`
      SELECT status, count(*)::int AS n FROM eval_iterations WHERE run_id = ${runId} GROUP BY status ORDER BY status`;
    expect(byStatus.map((r) => r.status).sort()).toEqual(['cancelled', 'completed']);
    expect(byStatus.reduce((n, r) => n + r.n, 0)).toBe(ITERATIONS);
  }, 240_000);
});
