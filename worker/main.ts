import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { checkKeysAtStart, createServices } from '../runtime/services.js';
import { createMetrics, serveMetrics } from '../runtime/metrics.js';
import { migrate } from '../db/migrate.js';
import { PortInUseError } from '../runtime/ports.js';
import { createRunwayWorker, workerActivities } from './createWorker.js';
import { productionWorkflowBundle } from './workflowBundle.js';
import { createTraceExport } from '../runtime/otel/traceExport.js';
import { fanOutRunEnded } from '../runtime/runEnded.js';
import type { RunEnded } from '../domain/ports/runEnded.js';
import { startRetentionSchedule } from './retentionSchedule.js';
import { webhookListeners } from '../runtime/webhooks.js';

// Production entry point (`node dist/worker/main.js` after `npm run build`; `npm run worker` from TypeScript): real
// dependencies, configured by the environment.
const config = loadConfig();
// Checked first: a compiled worker without its bundle stops here, before touching the database.
const workflowBundle = productionWorkflowBundle();
const log = createLogger(config.LOG_LEVEL);
Runtime.install({
  logger: new DefaultLogger(config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace' ? 'DEBUG' : 'WARN'),
});
const services = createServices(config, log);
// The key check needs the schema; migrating is idempotent and locked, so the worker may start before the API.
await migrate(services.sql);
await checkKeysAtStart(services, log);
// Iterations by result and MCP latency are recorded here, where the work happens; METRICS_PORT serves them.
const metrics = createMetrics({ processMetrics: true });
const metricsServer =
  config.METRICS_PORT === undefined
    ? undefined
    : await serveMetrics(metrics, { port: config.METRICS_PORT, host: config.HOST, token: config.METRICS_TOKEN }).catch(
        async (error: unknown) => {
          // A taken METRICS_PORT stops the worker with a sentence naming it.
          if (!(error instanceof PortInUseError)) throw error;
          log.fatal({ port: config.METRICS_PORT }, error.message);
          await services.close();
          process.exit(1);
        },
      );
if (metricsServer) log.info({ port: config.METRICS_PORT }, 'worker metrics at /metrics');
// Eval traces over OTLP (OTEL_EXPORTER_OTLP_*, and each organization's own endpoint): batched, never holding a run.
const traces = createTraceExport(config, { ...services, log, recorder: metrics, serviceName: 'runway-worker' });
const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
// The worker's own client on the same connection: what its activities ask Temporal (a scheduled run at the cap).
const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
// What is told when a run ends (finalizeRun) or a check completes: one listener per feature.
const webhooks = webhookListeners({ sql: services.sql, temporal, config, log });
// Told once per run that ends here (domain/ports/runEnded.ts): one listener per feature, each failing alone.
const runEndedListeners: RunEnded[] = [traces.runEnded, webhooks.runEnded];
const worker = await createRunwayWorker({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  ...(workflowBundle && { workflowBundle }),
  maxConcurrentActivityTaskExecutions: config.WORKER_ACTIVITY_SLOTS,
  activities: workerActivities(services, {
    config,
    log,
    temporal,
    metrics,
    traces,
    runEnded: fanOutRunEnded(log, ...runEndedListeners),
    conformanceCompleted: webhooks.conformanceCompleted,
  }),
});
log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS }, 'worker started');
// The deployment's retention schedule (docs/OPERATIONS.md#retention), created or brought to this worker's settings,
// in the background.
startRetentionSchedule(
  temporal,
  { taskQueue: config.TEMPORAL_TASK_QUEUE, intervalMinutes: config.RETENTION_INTERVAL_MINUTES },
  log,
);
// The Temporal runtime stops the worker on SIGINT/SIGTERM; run() then resolves after in-flight work drained.
await worker.run();
await traces.shutdown(); // what is queued goes out (bounded by the export's time limit)
await services.close(); // ends every stdio child process
await connection.close();
metricsServer?.close();
log.info('worker stopped');
