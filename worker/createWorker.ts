import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type Activities } from '../activities/index.js';
import type { Config } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import { instrumentMcp, type Metrics } from '../runtime/metrics.js';
import type { Services } from '../runtime/services.js';
import { workflowsPath } from './workflowBundle.js';

/**
 * The worker's activities, composed from the services its process built once (runtime/services.ts createServices):
 * worker/main.ts and the test stack compose them the same way. With `metrics`, MCP calls and finished iterations are
 * counted there.
 */
export function workerActivities(services: Services, config: Config, log: Logger, metrics?: Metrics): Activities {
  return createActivities({
    ...services,
    ...(metrics && { mcp: instrumentMcp(services.mcp, metrics), metrics }),
    config,
    log,
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
