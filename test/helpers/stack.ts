import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../runtime/config.js';
import { createLogger, type Logger } from '../../runtime/logger.js';
import { createMcpOperations, type ConnectionPool, type McpOperations } from '../../domain/mcp/index.js';
import { createOAuthTokenStore } from '../../db/oauthTokenStore.js';
import { createServerStore } from '../../db/serverStore.js';
import { createServices, type Services } from '../../runtime/services.js';
import { createApp, type App } from '../../api/app.js';
import { answerClientErrors } from '../../api/errors.js';
import { randomBase62 } from '../../domain/ids.js';
import type { SecretBox } from '../../db/secretBox.js';
import { createRunwayWorker, workerActivities } from '../../worker/createWorker.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { createMetrics, type Metrics } from '../../runtime/metrics.js';
import { createTraceExport, type TraceExport, type TraceExportOptions } from '../../runtime/otel/traceExport.js';
import { fanOutRunEnded } from '../../runtime/runEnded.js';
import type { RunEnded } from '../../domain/ports/runEnded.js';
import type { ConformanceRunner } from '../../domain/mcp/conformance/report.js';
import { webhookListeners } from '../../runtime/webhooks.js';

export interface TestStack {
  /** http://127.0.0.1:<port>/api/v1 */
  baseUrl: string;
  origin: string;
  db: TestDatabase;
  sql: TestDatabase['sql'];
  box: SecretBox;
  config: Config;
  app: App;
  /** what the API and the worker are built from (runtime/services.ts), once: a second app can take them too */
  services: Services;
  /** the stack's MCP connection pool and the operations on it (shared by the API and the worker) */
  pool: ConnectionPool;
  mcp: McpOperations;
  temporal: Client;
  taskQueue: string;
  /** every log line the API and the worker wrote */
  logs: string[];
  /** the stack's OpenTelemetry export (runtime/otel), and the metrics it counts in */
  traces: TraceExport;
  metrics: Metrics;
  startWorker(): Promise<Worker>;
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

export interface TestStackOptions {
  /** start a worker on the stack's own task queue (default true) */
  worker?: boolean;
  config?: Partial<Record<keyof Config, string>>;
  /** reuse another stack's database (several API instances on one Postgres) */
  database?: TestDatabase;
  /** the worker's conformance suite runner, in place of the real one (a test about the checks' plumbing) */
  conformanceRunner?: ConformanceRunner;
  /** the OpenTelemetry export's queue and timings (its targets come from `config`: OTEL_EXPORTER_OTLP_*) */
  traceExport?: Pick<TraceExportOptions, 'maxQueueSize' | 'exportTimeoutMs' | 'scheduledDelayMs' | 'targetTtlMs'>;
}

// The SDK's own logs only when something is wrong; once per test process.
Runtime.install({ logger: new DefaultLogger('WARN') });

/** The API in-process on a random port, a worker on a unique task queue, a fresh database, the shared Temporal. */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const db = options.database ?? (await createTestDatabase());
  const taskQueue = `test-${randomBase62(10)}`;
  // Files of the stack's own (stdio servers' working directories) go to a folder of its own, never the checkout.
  const dataDir = mkdtempSync(join(tmpdir(), 'runway-test-data-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    RUNWAY_ENCRYPTION_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    LOG_LEVEL: 'info',
    PORT: '0',
    // Every test request comes from 127.0.0.1, so the per-address limit on work without a usable key would
    // count all of a file's keyless and bad-key requests together; the tests of that limit set their own.
    RATE_LIMIT_ANON_BURST: '1000000',
    RATE_LIMIT_ANON_PER_MINUTE: '60000000',
    // Every reply a test sees is held to its route's response schema: one the document does not describe is a 500.
    REPLY_VALIDATION: 'strict',
    ...options.config,
  });
  const logs: string[] = [];
  const log: Logger = createLogger(
    config.LOG_LEVEL,
    new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  );
  const services = createServices(config, log, db.sql);
  const { box, pool, mcp } = services;
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const metrics = createMetrics();
  const traces = createTraceExport(
    config,
    { ...services, log, recorder: metrics, serviceName: 'runway-test' },
    options.traceExport,
  );
  // Told once per run that ends (domain/ports/runEnded.ts), by the API and the worker alike: one listener per feature.
  // What is told when a run ends or a check completes, as api/main.ts and worker/main.ts compose it.
  const webhooks = webhookListeners({ sql: db.sql, temporal, config, log });
  const runEndedListeners: RunEnded[] = [traces.runEnded, webhooks.runEnded];
  const runEnded = fanOutRunEnded(log, ...runEndedListeners);
  const app = createApp({ ...services, temporal, config, log, runEnded });
  const server: Server = await new Promise((resolve) => {
    const s = app.express.listen(0, '127.0.0.1', () => resolve(s));
  });
  answerClientErrors(server);
  const { port } = server.address() as { port: number };

  let worker: { worker: Worker; running: Promise<void>; connection: NativeConnection } | undefined;
  const startWorker = async () => {
    const workerConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    const w = await createRunwayWorker({
      connection: workerConnection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue,
      activities: workerActivities(services, {
        config,
        log,
        temporal,
        traces,
        runEnded,
        conformanceCompleted: webhooks.conformanceCompleted,
        ...(options.conformanceRunner && { conformanceRunner: options.conformanceRunner }),
      }),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    worker = { worker: w, running: w.run(), connection: workerConnection };
    return w;
  };
  const stopWorker = async () => {
    if (!worker) return;
    const current = worker;
    worker = undefined;
    current.worker.shutdown();
    await current.running;
    await current.connection.close();
  };
  if (options.worker !== false) await startWorker();

  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    origin: `http://127.0.0.1:${port}`,
    db,
    sql: db.sql,
    box,
    config,
    app,
    services,
    pool,
    mcp,
    temporal,
    taskQueue,
    logs,
    traces,
    metrics,
    startWorker,
    stopWorker,
    async stop() {
      await stopWorker();
      await traces.shutdown();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await pool.close();
      await connection.close();
      if (!options.database) await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
      // A reply off its schema is a 500 the test may not have looked at (one that only asserts `< 500` would): the
      // file fails here all the same, naming the route and the issues.
      const offSchema = logs.filter((line) => line.includes('"msg":"reply does not match its response schema"'));
      if (offSchema.length > 0)
        throw new Error(`replies that do not match their response schema:\n${offSchema.join('')}`);
    },
  };
}

/** MCP operations on the stack's database and settings over a pool of the test's own (composed as services.ts does). */
export function mcpOperationsOn(stack: TestStack, pool: ConnectionPool, log: Logger): McpOperations {
  return createMcpOperations({
    tokens: createOAuthTokenStore(stack.sql, stack.box),
    servers: createServerStore(stack.sql, stack.box),
    config: stack.config,
    log,
    pool,
  });
}
