/**
 * The conformance check's workflow (workflows/conformanceCheck.ts) with mocked activities, on a dev server of this
 * file's own: what it records when its activity cannot (failed for good, cancelled), and that it records nothing
 * else. Plus the check's pure rules (domain/catalog/conformanceCheck.ts).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckEnding } from '../../activities/conformanceCheck.js';
import { conformanceRefusal, defaultConformanceRevision } from '../../domain/catalog/conformanceCheck.js';
import { conformanceCheckWorkflowId, type ConformanceCheckInput } from '../../domain/ports/conformanceWorkflows.js';
import type { conformanceCheck } from '../../workflows/conformanceCheck.js';
import { startWorkflowTestServer, workflowBundle } from './workflowTesting.js';

type Run = (input: ConformanceCheckInput) => Promise<{ status: string }>;

/** Each workflow's mock of the check's activity, by check id; every ending the workflow recorded. */
const runs = new Map<string, Run>();
const endings: CheckEnding[] = [];
const taskQueue = 'conformance-unit';
let server: Awaited<ReturnType<typeof startWorkflowTestServer>>;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  const [started, bundle] = await Promise.all([startWorkflowTestServer(), workflowBundle()]);
  server = started;
  worker = await Worker.create({
    connection: server.env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities: {
      runConformanceCheck: async (input: ConformanceCheckInput) => {
        const run = runs.get(input.checkId);
        if (!run) throw ApplicationFailure.nonRetryable(`no mock for ${input.checkId}`, 'NoMock');
        return await run(input);
      },
      endConformanceCheck: async (ending: CheckEnding) => {
        endings.push(ending);
      },
    },
    maxHeartbeatThrottleInterval: '50 milliseconds',
    defaultHeartbeatThrottleInterval: '50 milliseconds',
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await server?.stop();
});

const start = (checkId: string) =>
  server.env.client.workflow.start<typeof conformanceCheck>('conformanceCheck', {
    taskQueue,
    workflowId: conformanceCheckWorkflowId(checkId),
    args: [{ checkId, timeoutMs: 60_000 }],
  });
const endingsOf = (checkId: string) => endings.filter((e) => e.checkId === checkId);

describe('the conformance check workflow', () => {
  it('returns what its activity recorded, and records nothing itself', async () => {
    runs.set('chk_done', async (input) => {
      expect(input).toEqual({ checkId: 'chk_done', timeoutMs: 60_000 });
      return { status: 'completed' };
    });
    expect(await (await start('chk_done')).result()).toEqual({ status: 'completed' });
    expect(endingsOf('chk_done')).toEqual([]);
  });

  it('retries an attempt that failed on the way (a worker or the database), then takes its answer', async () => {
    let attempts = 0;
    runs.set('chk_retry', async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('connection to the database lost');
      return { status: 'failed' };
    });
    expect(await (await start('chk_retry')).result()).toEqual({ status: 'failed' });
    expect(attempts).toBe(2);
    expect(endingsOf('chk_retry')).toEqual([]);
  });

  it('records the check failed, with the reason, when its activity fails for good', async () => {
    runs.set('chk_broken', async () => {
      throw ApplicationFailure.nonRetryable('the check row cannot be read', 'Broken');
    });
    expect(await (await start('chk_broken')).result()).toEqual({ status: 'failed' });
    expect(endingsOf('chk_broken')).toEqual([
      {
        checkId: 'chk_broken',
        status: 'failed',
        code: 'INTERNAL_ERROR',
        message: 'the check could not be run: the check row cannot be read',
      },
    ]);
  });

  it('records the check cancelled when the workflow is cancelled, after its activity stopped', async () => {
    let stopped = false;
    runs.set('chk_cancel', async () => {
      const context = Context.current();
      for (;;) {
        context.heartbeat();
        if (context.cancellationSignal.aborted) {
          stopped = true;
          throw context.cancellationSignal.reason;
        }
        await context.sleep(20).catch(() => undefined);
      }
    });
    const handle = await start('chk_cancel');
    while ((await handle.describe()).raw.pendingActivities?.length !== 1) await new Promise((r) => setTimeout(r, 20));
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect(stopped).toBe(true);
    expect(endingsOf('chk_cancel')).toEqual([
      { checkId: 'chk_cancel', status: 'cancelled', code: 'CANCELLED', message: 'the check was cancelled' },
    ]);
  });
});

describe("a conformance check's rules", () => {
  it('checks Streamable HTTP servers only, saying why not for the others', () => {
    expect(conformanceRefusal('http')).toBeUndefined();
    expect(conformanceRefusal('stdio')).toMatch(/stdio server cannot be checked/);
    expect(conformanceRefusal('sse')).toMatch(/legacy HTTP\+SSE transport cannot be checked/);
  });

  it("defaults to the revision the server spoke when the suite carries it, else to the era's", () => {
    const seenAt = new Date();
    expect(defaultConformanceRevision(null)).toBe('2026-07-28');
    expect(defaultConformanceRevision(undefined)).toBe('2026-07-28');
    expect(defaultConformanceRevision({ era: 'legacy', version: '2025-11-25', seenAt })).toBe('2025-11-25');
    expect(defaultConformanceRevision({ era: 'legacy', version: '2025-03-26', seenAt })).toBe('2025-11-25');
    expect(defaultConformanceRevision({ era: 'modern', version: '2026-07-28', seenAt })).toBe('2026-07-28');
    expect(defaultConformanceRevision({ era: 'modern', version: '2027-01-01', seenAt })).toBe('2026-07-28');
  });
});
