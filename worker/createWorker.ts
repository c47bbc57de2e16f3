import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createRunStore, createScheduledSuites } from '../db/runStore.js';
import { createRunSetupStore } from '../db/runSetupStore.js';
import type { Config } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import { instrumentMcp, type Metrics } from '../runtime/metrics.js';
import type { Services } from '../runtime/services.js';
import { createActivities, type Activities, type ActivityDeps } from '../activities/index.js';
import { finalizeRun } from '../domain/useCases/runs/finalizeRun.js';
import { reconcileRuns } from '../domain/useCases/runs/reconcileRuns.js';
import { startScheduledRun } from '../domain/useCases/runs/startScheduledRun.js';
import { temporalRunWorkflowStates } from '../runtime/runReconciler.js';
import { workflowsPath } from './workflowBundle.js';
import { createConformanceCheckStore } from '../db/conformanceChecks.js';
import type { ConformanceRunner } from '../domain/mcp/conformance/report.js';
import { createConformanceRunner } from '../domain/mcp/conformance/runner.js';
import { OAuthGrants } from '../domain/mcp/oauth.js';
import { createOAuthTokenStore } from '../db/oauthTokenStore.js';
import { createSurfaceStore } from '../db/toolSurfaces.js';
import { conformanceNodeBinary } from '../runtime/nodeBinary.js';
import type { RunEnded } from '../domain/ports/runEnded.js';
import type { IterationTraceSink } from '../activities/runIterations.js';
import { applyRetention } from '../domain/useCases/retention/applyRetention.js';
import type { RetentionPurge } from '../domain/ports/retentionStore.js';
import { createRetentionStore } from '../db/retention.js';
import { idempotencyKeyPurge } from '../db/idempotencyKeys.js';
import type { ConformanceCheck } from '../domain/catalog/conformanceCheck.js';
import { createWebhookStore } from '../db/webhooks.js';
import { webhookTargets } from '../runtime/webhooks.js';
import { promoteQueuedRuns } from '../domain/useCases/runs/promoteQueuedRuns.js';
import { fanOutRunEnded } from '../runtime/runEnded.js';
import { RunLauncher } from '../runtime/runLauncher.js';

/** What the worker's activities are composed from: the process's services, and a Temporal client of its own. */
export type WorkerDeps = Omit<
  ActivityDeps,
  'setup' | 'finalizeRun' | 'startScheduledRun' | 'conformance' | 'surfaces' | 'retention' | 'webhooks'
> & {
  /** asks Temporal about runs' workflows (a scheduled run at the cap ends those that closed, as the API does) */
  temporal: Client;
  /** runs the official conformance suite (default: the real runner, createConformanceRunner; tests inject one) */
  conformanceRunner?: ConformanceRunner;
  /** told once when a run ends (domain/ports/runEnded.ts; composed with runtime/runEnded.ts fanOutRunEnded) */
  runEnded?: RunEnded;
  /** deployment-wide purges retention runs after its own kinds (e.g. expired idempotency keys) */
  retentionPurges?: RetentionPurge[];
  /** told when a conformance check completes (issue 33: conformance.completed webhooks; runtime/webhooks.ts) */
  conformanceCompleted?: (check: ConformanceCheck) => Promise<void>;
};

/**
 * The worker's composition: every service its activities use, built once per process (worker/main.ts; the tests'
 * workers the same way), then the activities given what each uses.
 */
export function composeActivities(deps: WorkerDeps): Activities {
  const { sql, config, log, catalog } = deps;
  const runs = createRunStore(sql);
  const setup = createRunSetupStore(sql, deps.box);
  // A run that ends here frees a slot: the queue (issue 33) is told first, then the listeners the process gave.
  const runEnded = fanOutRunEnded(
    log,
    (event) => runQueue.onRunEnded(event),
    ...(deps.runEnded ? [deps.runEnded] : []),
  );
  const endRun = finalizeRun({ runs, runEnded });
  // Queued runs start from the worker too when one of its runs ends, as POST /eval-runs starts a run.
  const runQueue = promoteQueuedRuns({
    setup,
    suites: createScheduledSuites(sql),
    workflows: new RunLauncher(deps.temporal, config.TEMPORAL_TASK_QUEUE),
    finalizeRun: endRun,
    maxConcurrentRuns: config.MAX_CONCURRENT_RUNS,
    defaultConcurrency: config.EVAL_ITERATION_CONCURRENCY,
    log,
  });
  // At the cap, runs whose workflow closed in Temporal are ended first, as for POST /eval-runs.
  const reconciler = reconcileRuns({
    runs,
    workflows: temporalRunWorkflowStates(deps.temporal),
    finalizeRun: endRun,
    log,
  });
  return createActivities({
    ...deps,
    setup,
    finalizeRun: endRun,
    surfaces: createSurfaceStore(sql),
    retention: applyRetention({
      retention: createRetentionStore(sql),
      defaults: { traceDays: config.RETENTION_TRACE_DAYS, runDays: config.RETENTION_RUN_DAYS },
      batchSize: config.RETENTION_BATCH_SIZE,
      // Expired idempotency keys go with every pass (the API also deletes a few after each new claim).
      purges: [idempotencyKeyPurge(sql), ...(deps.retentionPurges ?? [])],
      ...(deps.metrics && { metrics: deps.metrics }),
    }),
    conformance: {
      checks: createConformanceCheckStore(sql),
      servers: setup,
      // The one place the real runner is built (domain/mcp/conformance/runner.ts).
      runner:
        deps.conformanceRunner ??
        createConformanceRunner({
          grants: new OAuthGrants({
            tokens: createOAuthTokenStore(sql, deps.box),
            log,
            requestTimeoutMs: config.MCP_REQUEST_TIMEOUT_MS,
          }),
          nodePath: conformanceNodeBinary(config),
          requestTimeoutMs: config.MCP_REQUEST_TIMEOUT_MS,
        }),
      log,
      ...(deps.conformanceCompleted && { completed: deps.conformanceCompleted }),
    },
    webhooks: {
      webhooks: createWebhookStore(sql),
      box: deps.box,
      targets: webhookTargets(config),
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    },
    startScheduledRun: startScheduledRun({
      setup,
      suites: createScheduledSuites(sql),
      box: deps.box,
      catalog,
      maxConcurrentRuns: config.MAX_CONCURRENT_RUNS,
      maxQueuedRuns: config.MAX_QUEUED_RUNS,
      reconcileAtCap: (organizationId) => reconciler.reconcileOrganization(organizationId),
      defaultConcurrency: config.EVAL_ITERATION_CONCURRENCY,
      log,
      metrics: deps.metrics,
      queue: runQueue,
    }),
  });
}

/**
 * The worker's activities from the services its process built once (runtime/services.ts createServices): worker/main.ts
 * and the test stack compose them the same way. With `metrics`, MCP calls and finished iterations are counted there.
 */
export function workerActivities(
  services: Services,
  more: {
    config: Config;
    log: Logger;
    temporal: Client;
    metrics?: Metrics;
    conformanceRunner?: ConformanceRunner;
    runEnded?: RunEnded;
    /** where stored iterations' traces are exported (runtime/otel/traceExport.ts) */
    traces?: IterationTraceSink;
    retentionPurges?: RetentionPurge[];
    conformanceCompleted?: (check: ConformanceCheck) => Promise<void>;
  },
): Activities {
  const { metrics } = more;
  return composeActivities({
    ...services,
    ...more,
    ...(metrics && { mcp: instrumentMcp(services.mcp, metrics), metrics }),
  });
}

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: Activities;
  /** a bundle built ahead of time (`npm run build`; the tests build one once); else the workflows are bundled at start */
  workflowBundle?: WorkerOptions['workflowBundle'];
  maxConcurrentActivityTaskExecutions?: number;
}

export async function createRunwayWorker(setup: WorkerSetup): Promise<Worker> {
  return await Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    activities: setup.activities,
    ...(setup.workflowBundle ? { workflowBundle: setup.workflowBundle } : { workflowsPath }),
    // WORKER_ACTIVITY_SLOTS in production: the batches this worker runs at once; the rest wait in the task queue.
    maxConcurrentActivityTaskExecutions: setup.maxConcurrentActivityTaskExecutions ?? 32,
    // Only a run's first batch asks to start eagerly, from the reply to the workflow task that schedules it (where the
    // server allows it: system.enableActivityEagerExecution); every other batch goes through the task queue, so that
    // a run spreads over the workers (workflows/evalRun.ts). The SDK's default of 3 reservations per task covers it.
    shutdownGraceTime: '10 seconds',
    // Cancellation reaches an activity through its heartbeat replies: keep them frequent so a cancelled run stops
    // its model and MCP calls within about a second (the default throttle is 80% of the heartbeat timeout).
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
  });
}
