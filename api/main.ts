import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { checkKeysAtStart, createServices } from '../runtime/services.js';
import { migrate } from '../db/migrate.js';
import { createApp } from './app.js';
import { serveApi } from './server.js';
import { createMetrics } from '../runtime/metrics.js';
import { PortInUseError } from '../runtime/ports.js';
import { startRunSweep } from '../runtime/runReconciler.js';
import { restoreSuiteSchedules } from './suiteScheduler.js';
import { createTraceExport } from '../runtime/otel/traceExport.js';
import { fanOutRunEnded } from '../runtime/runEnded.js';
import type { RunEnded } from '../domain/ports/runEnded.js';
import { webhookListeners } from '../runtime/webhooks.js';
import { startQueueSweep } from '../runtime/runQueue.js';

// Production entry point (`npm run api`): real dependencies, configured by the environment.
const config = loadConfig();
const log = createLogger(config.LOG_LEVEL);
const services = createServices(config, log);
await migrate(services.sql);
await checkKeysAtStart(services, log);
const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
// The app takes the services built above (sql, box, mcp, catalog): it builds none of them again.
const metrics = createMetrics({ processMetrics: true });
// A run ended here (cancelled, or reconciled) gets its run span like one the worker ends (runtime/otel).
const traces = createTraceExport(config, { ...services, log, recorder: metrics, serviceName: 'runway-api' });
// Told once per run that ends here (a cancel's reconcile, a failed start, an ingest; domain/ports/runEnded.ts): one
// listener per feature, each failing alone.
const runEndedListeners: RunEnded[] = [
  traces.runEnded,
  webhookListeners({ sql: services.sql, temporal, config, log }).runEnded,
];
const app = createApp({
  ...services,
  temporal,
  config,
  log,
  metrics,
  runEnded: fanOutRunEnded(log, ...runEndedListeners),
});
// Runs whose workflow was terminated (or timed out, or deleted) in Temporal are ended even when nobody reads them.
const sweep = startRunSweep(app.reconciler, { intervalMs: config.RUN_SWEEP_INTERVAL_MS, log });
// Queued runs (issue 33) whose organization has a free slot are started at start and then periodically, even when the
// notice of a run's end was lost (another process stopped) or came while no API ran.
const queueSweep = startQueueSweep(app.runQueue, { intervalMs: config.RUN_QUEUE_SWEEP_INTERVAL_MS, log });
// Enabled suites' schedules that Temporal lost (a new cluster, a deleted schedule) are created again, in the
// background: the API serves meanwhile.
void restoreSuiteSchedules(services.sql, app.schedules, log).catch((error: unknown) => {
  log.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not restore suite schedules');
});
// A taken PORT stops the process with a sentence naming it (Express 5's listen only passes the error to its callback).
const api = await serveApi(app.express, { port: config.PORT, host: config.HOST }).catch(async (error: unknown) => {
  if (!(error instanceof PortInUseError)) throw error;
  log.fatal({ port: config.PORT }, error.message);
  await sweep.stop();
  await queueSweep.stop();
  await services.close();
  await connection.close();
  process.exit(1);
});
log.info(
  { port: config.PORT },
  `API listening on http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${config.PORT}/api/v1`,
);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'API stopping');
    // Open event streams would hold the server for minutes: the stop waits 10 s at most.
    setTimeout(() => process.exit(0), 10_000).unref();
    void api.shutdown().then(async () => {
      await sweep.stop();
      await queueSweep.stop();
      await traces.shutdown();
      await services.close(); // ends every stdio child process
      await connection.close();
      process.exit(0);
    });
  });
}
