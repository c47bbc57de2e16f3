import { randomUUID } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import type { Client } from '@temporalio/client';
import type { Config } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import type { McpOperations } from '../domain/mcp/index.js';
import type { Sql } from '../db/connection.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import { createRunStore } from '../db/runStore.js';
import { createRunSetupStore } from '../db/runSetupStore.js';
import type { HostedModelCatalog } from '../domain/models/catalog.js';
import { authenticate, keyManagementSurface, keyRefusal } from './auth.js';
import { jsonObjectBody } from './body.js';
import { consoleRoutes } from './console.js';
import { CursorCodec } from './cursor.js';
import { EventIdCodec } from './eventIds.js';
import { docsRoutes } from './docs.js';
import { EventStreams, type EventStreamLimits } from './eventStream.js';
import { RunLauncher } from './runLauncher.js';
import { temporalRunWorkflowStates } from '../runtime/runReconciler.js';
import { analyzeRunTools } from '../domain/useCases/runs/analyzeRunTools.js';
import { cancelRun } from '../domain/useCases/runs/cancelRun.js';
import { compareRuns } from '../domain/useCases/runs/compareRuns.js';
import { finalizeRun, type FinalizeRun } from '../domain/useCases/runs/finalizeRun.js';
import type { RunEnded } from '../domain/ports/runEnded.js';
import { followRun } from '../domain/useCases/runs/followRun.js';
import { followRuns } from '../domain/useCases/runs/followRuns.js';
import { getRun } from '../domain/useCases/runs/getRun.js';
import { getTrace } from '../domain/useCases/runs/getTrace.js';
import { listIterations } from '../domain/useCases/runs/listIterations.js';
import { reconcileRuns, type ReconcileRuns } from '../domain/useCases/runs/reconcileRuns.js';
import { regradeRun } from '../domain/useCases/runs/regradeRun.js';
import { startRun } from '../domain/useCases/runs/startRun.js';
import { estimateRun } from '../domain/useCases/runs/estimateRun.js';
import { promoteQueuedRuns, type PromoteQueuedRuns } from '../domain/useCases/runs/promoteQueuedRuns.js';
import { createScheduledSuites } from '../db/runStore.js';
import { fanOutRunEnded } from '../runtime/runEnded.js';
import { SuiteScheduler } from './suiteScheduler.js';
import { errorHandler, unknownRoute } from './errors.js';
import { healthRoutes } from './health.js';
import { createMetrics, instrumentMcp, registerActiveRuns, type Metrics } from '../runtime/metrics.js';
import { httpMetrics, metricsRoute } from './httpMetrics.js';
import { Idempotency, type IdempotencyOptions } from './idempotency.js';
import { createIdempotencyKeyStore, purgeExpiredIdempotencyKeys } from '../db/idempotencyKeys.js';
import { methodNotAllowed } from './methodNotAllowed.js';
import { mountedRoutes, openApiRoute } from './openapi.js';
import { AddressLimit } from './rateLimit.js';
import { replyCheck } from './replyCheck.js';
import { toHandler, type RouteSpec } from './route.js';
import { allRoutes, type RouteGroups } from './routes/index.js';
import { sdkRouter } from './routes/ingestSdk.js';
// catalog use cases (bound in catalogUseCases, at the end of this file)
import { createCatalogStore } from '../db/catalogStore.js';
import { createHostStore } from '../db/hostStore.js';
import { createServerStore } from '../db/serverStore.js';
import { closeTunnel } from '../domain/useCases/catalog/closeTunnel.js';
import { createHost } from '../domain/useCases/catalog/createHost.js';
import { createTunnel } from '../domain/useCases/catalog/createTunnel.js';
import { deleteHost } from '../domain/useCases/catalog/deleteHost.js';
import { editHost } from '../domain/useCases/catalog/editHost.js';
import { getAccount } from '../domain/useCases/catalog/getAccount.js';
import { getChatbox } from '../domain/useCases/catalog/getChatbox.js';
import { getHost } from '../domain/useCases/catalog/getHost.js';
import { listChatboxes } from '../domain/useCases/catalog/listChatboxes.js';
import { listChatSessions } from '../domain/useCases/catalog/listChatSessions.js';
import { listHosts } from '../domain/useCases/catalog/listHosts.js';
import { listProjects } from '../domain/useCases/catalog/listProjects.js';
import { listProjectServers } from '../domain/useCases/catalog/listProjectServers.js';
import { runServerOperation } from '../domain/useCases/catalog/runServerOperation.js';
import { diffServerSurfaces } from '../domain/useCases/surfaces/diffServerSurfaces.js';
import { getServerSurface } from '../domain/useCases/surfaces/getServerSurface.js';
import { listServerSurfaces } from '../domain/useCases/surfaces/listServerSurfaces.js';
import { recordExportSurface } from '../domain/useCases/surfaces/recordExportSurface.js';
import { createSurfaceStore } from '../db/toolSurfaces.js';
import type { Principal } from '../domain/principal.js';
// ingest use cases (bound in ingestUseCases, at the end of this file)
import { createIngestStore } from '../db/ingestStore.js';
import { appendIngestResults } from '../domain/useCases/ingest/appendIngestResults.js';
import { createUploadUrl } from '../domain/useCases/ingest/createUploadUrl.js';
import { finalizeIngestRun } from '../domain/useCases/ingest/finalizeIngestRun.js';
import { reportIngestRun } from '../domain/useCases/ingest/reportIngestRun.js';
import { startIngestRun } from '../domain/useCases/ingest/startIngestRun.js';
import { uploadArtifact } from '../domain/useCases/ingest/uploadArtifact.js';
// suite use cases (bound in suiteUseCases, at the end of this file)
import { createSuiteStore } from '../db/suiteStore.js';
import { createServerDirectory } from '../db/serverDirectory.js';
import { addCase } from '../domain/useCases/suites/addCase.js';
import { deleteCase } from '../domain/useCases/suites/deleteCase.js';
import { editCase } from '../domain/useCases/suites/editCase.js';
import { getCase } from '../domain/useCases/suites/getCase.js';
import { listCases } from '../domain/useCases/suites/listCases.js';
import { createSuite } from '../domain/useCases/suites/createSuite.js';
import { deleteSuite } from '../domain/useCases/suites/deleteSuite.js';
import { editSuite } from '../domain/useCases/suites/editSuite.js';
import { generateCases } from '../domain/useCases/suites/generateCases.js';
import { lintSuiteTools } from '../domain/useCases/suites/lintSuiteTools.js';
import { getSuite } from '../domain/useCases/suites/getSuite.js';
import { getSuiteOverview } from '../domain/useCases/suites/getSuiteOverview.js';
import { listSuiteRuns } from '../domain/useCases/suites/listSuiteRuns.js';
import { listSuites } from '../domain/useCases/suites/listSuites.js';
import { setSuiteSchedule } from '../domain/useCases/suites/setSuiteSchedule.js';
// conformance check use cases (bound in conformanceUseCases, at the end of this file)
import { createConformanceCheckStore } from '../db/conformanceChecks.js';
import { ConformanceLauncher } from './conformanceLauncher.js';
import { cancelConformanceCheck } from '../domain/useCases/servers/cancelConformanceCheck.js';
import { getConformanceCheck } from '../domain/useCases/servers/getConformanceCheck.js';
import { listConformanceChecks } from '../domain/useCases/servers/listConformanceChecks.js';
import { startConformanceCheck } from '../domain/useCases/servers/startConformanceCheck.js';
// webhook use cases (bound in webhookUseCases, at the end of this file)
import { createWebhookStore } from '../db/webhooks.js';
import { TemporalWebhookDeliveries, webhookTargets } from '../runtime/webhooks.js';
import { deleteWebhook } from '../domain/useCases/webhooks/deleteWebhook.js';
import { editWebhook } from '../domain/useCases/webhooks/editWebhook.js';
import { getWebhook } from '../domain/useCases/webhooks/getWebhook.js';
import { listWebhookDeliveries } from '../domain/useCases/webhooks/listWebhookDeliveries.js';
import { listWebhooks } from '../domain/useCases/webhooks/listWebhooks.js';
import { redeliverWebhook } from '../domain/useCases/webhooks/redeliverWebhook.js';
import { registerWebhook } from '../domain/useCases/webhooks/registerWebhook.js';
import { rotateWebhookSecret } from '../domain/useCases/webhooks/rotateWebhookSecret.js';

/**
 * What the API process hands its app: the services its entry point built once (runtime/services.ts createServices:
 * sql, box, mcp, catalog), the Temporal client, config and log. createApp builds none of these again.
 */
export interface AppDeps {
  sql: Sql;
  /** seals and opens stored secrets */
  box: SecretBox;
  /** the models runs may execute (HOSTED_MODELS) */
  catalog: HostedModelCatalog;
  temporal: Client;
  config: Config;
  log: Logger;
  /** operations on saved MCP servers (domain/mcp), called directly by the server-operation routes */
  mcp: McpOperations;
  /** this process's Prometheus registry and instruments (default: a fresh one), served at /metrics */
  metrics?: Metrics;
  /** the built console served at /console (default: console/dist, scripts/build-console.ts) */
  consoleDir?: string;
  /** the bounds of event streams (GET /eval-runs/{id}/events), when not the defaults (api/eventStream.ts) */
  eventStreamLimits?: Partial<EventStreamLimits>;
  /** told once when a run ends here (a cancel's reconcile, a failed start, an ingest): domain/ports/runEnded.ts */
  runEnded?: RunEnded;
  /** the Idempotency-Key bounds (lease, wait, kept replies), when not the defaults (api/idempotency.ts) */
  idempotency?: Partial<IdempotencyOptions>;
}

export interface App {
  express: Express;
  routes: RouteSpec[];
  metrics: Metrics;
  /** the routes' run reconciler; the process entry point also runs its periodic sweep (startRunSweep) */
  reconciler: ReconcileRuns;
  /** suites' Temporal Schedules; the process entry point restores missing ones at start (restoreSuiteSchedules) */
  schedules: SuiteScheduler;
  /** the open event streams (what each wrote, whether it waits for its client) */
  eventStreams: EventStreams;
  /** starts queued runs in their turn (issue 33); the process entry point also runs its sweep (startQueueSweep) */
  runQueue: PromoteQueuedRuns;
}

export function createApp(deps: AppDeps): App {
  const metrics = deps.metrics ?? createMetrics();
  registerActiveRuns(metrics, deps.sql);
  const mcp = instrumentMcp(deps.mcp, metrics);
  const eventStreams = new EventStreams(deps.eventStreamLimits);
  const cursors = new CursorCodec(deps.config.RUNWAY_ENCRYPTION_KEY);
  const addressLimit = new AddressLimit(deps.sql, {
    perMinute: deps.config.RATE_LIMIT_ANON_PER_MINUTE,
    burst: deps.config.RATE_LIMIT_ANON_BURST,
    onReject: () => metrics.rateLimitRejections.inc(),
  });
  // The one way a run ends, and the reconciler that ends runs whose workflow closed without it (the runs block below).
  const runs = createRunStore(deps.sql);
  // A run that ends here frees a slot: the queue (issue 33) is told first, then the listeners the process gave.
  const runEnded = fanOutRunEnded(
    deps.log,
    (event) => runQueue.onRunEnded(event),
    ...(deps.runEnded ? [deps.runEnded] : []),
  );
  const endRun = finalizeRun({ runs, runEnded });
  const runQueue = promoteQueuedRuns({
    setup: createRunSetupStore(deps.sql, deps.box),
    suites: createScheduledSuites(deps.sql),
    workflows: new RunLauncher(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE),
    finalizeRun: endRun,
    maxConcurrentRuns: deps.config.MAX_CONCURRENT_RUNS,
    defaultConcurrency: deps.config.EVAL_ITERATION_CONCURRENCY,
    log: deps.log,
  });
  const reconciler = reconcileRuns({
    runs,
    workflows: temporalRunWorkflowStates(deps.temporal),
    finalizeRun: endRun,
    log: deps.log,
  });
  const schedules = new SuiteScheduler(deps.temporal, {
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    minuteMs: deps.config.SCHEDULE_MINUTE_MS,
  });
  // What the route modules take, by group (api/routes/index.ts): every use case bound once, here.
  const groups: RouteGroups = {
    catalogDeps: catalogUseCases({ ...deps, mcp, cursors }),
    runDeps: runUseCases({ ...deps, mcp, cursors, reconciler, finalizeRun: endRun, eventStreams, runQueue }),
    ingestDeps: ingestUseCases({ ...deps, addressLimit }),
    suiteDeps: suiteUseCases({ ...deps, mcp, cursors, reconciler, schedules }),
    conformanceDeps: conformanceUseCases({ ...deps, cursors, reconciler }),
    webhookDeps: webhookUseCases({ ...deps, cursors }),
  };
  const { config } = deps;

  const rate = {
    perMinute: config.RATE_LIMIT_PER_MINUTE,
    burst: config.RATE_LIMIT_BURST,
    anonPerMinute: config.RATE_LIMIT_ANON_PER_MINUTE,
    anonBurst: config.RATE_LIMIT_ANON_BURST,
  };
  const routes: RouteSpec[] = [...allRoutes(groups), openApiRoute(() => routes, rate)];
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // Which address is the client's (req.ip, req.protocol): the peer's unless the operator trusts a proxy in front.
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.use(requestLog(deps.log));
  app.use(httpMetrics(metrics, () => mountedRoutes(app)));

  const checkReply = replyCheck(config.REPLY_VALIDATION, deps.log);
  // Idempotency-Key on the routes that take it (`idempotent: true`), here and at the /sdk/v1 alias alike.
  const idempotency = new Idempotency(createIdempotencyKeyStore(deps.sql), deps.idempotency, (now, limit) =>
    purgeExpiredIdempotencyKeys(deps.sql, now, limit),
  );
  const v1 = express.Router();
  v1.all(['/api-keys', '/api-keys/*rest'], keyManagementSurface);
  for (const route of routes.filter((r) => r.auth === false))
    v1[route.method](route.path, toHandler(route, checkReply));
  const admit = authenticate(
    deps.sql,
    {
      perMinute: deps.config.RATE_LIMIT_PER_MINUTE,
      burst: deps.config.RATE_LIMIT_BURST,
      onReject: () => metrics.rateLimitRejections.inc(),
    },
    addressLimit,
  );
  v1.use(admit);
  const bodies = jsonObjectBody();
  for (const route of routes.filter((r) => r.auth !== false)) {
    v1[route.method](
      route.path,
      ...(route.method === 'get' ? [] : route.bodyLimit ? jsonObjectBody(route.bodyLimit) : bodies),
      toHandler(route, checkReply, idempotency),
    );
  }

  app.use(healthRoutes(deps));
  app.get('/metrics', metricsRoute(metrics, deps.config.METRICS_TOKEN));
  app.use(docsRoutes());
  app.use(consoleRoutes(deps.consoleDir));
  app.use('/api/v1', v1);
  app.use('/sdk/v1', sdkRouter(routes, admit, checkReply, idempotency));
  app.use(methodNotAllowed(() => mountedRoutes(app)));
  app.use(unknownRoute);
  app.use(errorHandler(deps.log));
  return {
    express: app,
    routes,
    metrics,
    reconciler,
    schedules,
    eventStreams,
    runQueue,
  };
}

function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const requestId = req.get('x-request-id')?.slice(0, 100) || randomUUID();
    res.locals.requestId = requestId;
    res.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    // Read now: once a router has the request, req.path is relative to its mount point (`/me`, not `/api/v1/me`).
    const path = req.path;
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        { requestId, method: req.method, path, status: res.statusCode, ms: Math.round(ms * 100) / 100 },
        'request',
      );
    });
    next();
  };
}

// ---- catalog: account, projects, chat, hosts, server operations, tunnels (domain/useCases/catalog) ----

/** The catalog's use cases, bound once to this app's services: exactly what its route modules receive. */
function catalogUseCases(deps: { sql: Sql; box: SecretBox; mcp: McpOperations; cursors: CursorCodec; config: Config }) {
  const { mcp, cursors, config } = deps;
  const catalog = createCatalogStore(deps.sql);
  const hosts = createHostStore(deps.sql, deps.box);
  const servers = createServerStore(deps.sql, deps.box);
  const surfaces = createSurfaceStore(deps.sql);
  return {
    listServerSurfaces: listServerSurfaces({ servers, surfaces, cursors }),
    getServerSurface: getServerSurface({ servers, surfaces }),
    diffServerSurfaces: diffServerSurfaces({ servers, surfaces }),
    recordExportSurface: recordExportSurface({ surfaces }),
    getAccount: getAccount({ catalog }),
    listProjects: listProjects({ catalog }),
    listProjectServers: listProjectServers({ servers }),
    listChatSessions: listChatSessions({ catalog, cursors }),
    listChatboxes: listChatboxes({ catalog }),
    getChatbox: getChatbox({ catalog }),
    listHosts: listHosts({ hosts }),
    getHost: getHost({ hosts }),
    createHost: createHost({ hosts }),
    editHost: editHost({ hosts }),
    deleteHost: deleteHost({ hosts }),
    runServerOperation: runServerOperation({ servers, mcp }),
    createTunnel: createTunnel({ catalog }),
    closeTunnel: closeTunnel({ servers }),
    cursors,
    config,
  };
}

export type CatalogDeps = ReturnType<typeof catalogUseCases>;

// ---- runs: start, cancel, read, follow, compare (domain/useCases/runs) ----

/** The run use cases, bound once to this app's services: what the run route modules receive. */
function runUseCases(deps: {
  sql: Sql;
  box: SecretBox;
  catalog: HostedModelCatalog;
  mcp: McpOperations;
  cursors: CursorCodec;
  config: Config;
  log: Logger;
  temporal: Client;
  reconciler: ReconcileRuns;
  finalizeRun: FinalizeRun;
  eventStreams: EventStreams;
  runQueue: PromoteQueuedRuns;
}) {
  const { sql, config, log, reconciler } = deps;
  const workflows = new RunLauncher(deps.temporal, config.TEMPORAL_TASK_QUEUE);
  const runs = createRunStore(sql);
  const surfaces = createSurfaceStore(sql);
  const eventIds = new EventIdCodec(config.RUNWAY_ENCRYPTION_KEY);
  // What creating a run needs, for starting one and for a dry run's preview alike.
  const runCreation = {
    setup: createRunSetupStore(sql, deps.box),
    box: deps.box,
    catalog: deps.catalog,
    maxConcurrentRuns: config.MAX_CONCURRENT_RUNS,
    maxQueuedRuns: config.MAX_QUEUED_RUNS,
    reconcileAtCap: (organizationId: string) => reconciler.reconcileOrganization(organizationId),
    defaultConcurrency: config.EVAL_ITERATION_CONCURRENCY,
  };
  return {
    followRun: followRun({ runs, reconciler, eventIds, surfaces }),
    followRuns: followRuns({ runs, reconciler }),
    eventStreams: deps.eventStreams,
    eventIds,
    keyRefusal: (principal: Pick<Principal, 'keyId'>) => keyRefusal(sql, principal),
    log,
    startRun: startRun({
      runs,
      ...runCreation,
      mcp: deps.mcp,
      workflows,
      finalizeRun: deps.finalizeRun,
      queue: deps.runQueue,
    }),
    estimateRun: estimateRun({ runs, ...runCreation }),
    getRun: getRun({ runs, reconciler, surfaces }),
    cancelRun: cancelRun({ runs, reconciler, workflows, finalizeRun: deps.finalizeRun }),
    regradeRun: regradeRun({ runs, ...runCreation, workflows, finalizeRun: deps.finalizeRun }),
    listIterations: listIterations({ runs, cursors: deps.cursors }),
    getTrace: getTrace({ runs }),
    compareRuns: compareRuns({ runs, surfaces }),
    analyzeRunTools: analyzeRunTools({ runs }),
  };
}

export type RunDeps = ReturnType<typeof runUseCases>;

// ---- ingest: results reported from outside (CI, the MCPJam SDK reporter, artifact uploads) (domain/useCases/ingest) ----

/** The ingest use cases, bound once to this app's services: exactly what its route modules receive. */
function ingestUseCases(deps: { sql: Sql; config: Config; addressLimit: AddressLimit; runEnded?: RunEnded }) {
  const { config, addressLimit } = deps;
  const ingest = createIngestStore(deps.sql);
  // Ingest ends runs on its own transaction: runEnded is told after it commits (issue 33).
  const told = { ...(deps.runEnded && { runEnded: deps.runEnded }) };
  return {
    reportIngestRun: reportIngestRun({ ingest, ...told }),
    startIngestRun: startIngestRun({ ingest }),
    appendIngestResults: appendIngestResults({ ingest }),
    finalizeIngestRun: finalizeIngestRun({ ingest, ...told }),
    createUploadUrl: createUploadUrl({ ingest }),
    uploadArtifact: uploadArtifact({ ingest, ...told }),
    config,
    addressLimit,
  };
}

export type IngestDeps = ReturnType<typeof ingestUseCases>;

// ---- suites: suites, their cases and schedules, the overview, case generation (domain/useCases/suites) ----

/** The suites' use cases, bound once to this app's services: exactly what their route modules receive. */
function suiteUseCases(deps: {
  sql: Sql;
  box: SecretBox;
  mcp: McpOperations;
  catalog: HostedModelCatalog;
  cursors: CursorCodec;
  config: Config;
  log: Logger;
  reconciler: ReconcileRuns;
  schedules: SuiteScheduler;
}) {
  const { mcp, catalog, cursors, config, log, reconciler, schedules } = deps;
  const suites = createSuiteStore(deps.sql, deps.box);
  const servers = createServerDirectory(deps.sql, deps.box);
  return {
    suites: {
      createSuite: createSuite({ suites, servers, mcp }),
      listSuites: listSuites({ suites }),
      getSuite: getSuite({ suites }),
      editSuite: editSuite({ suites, servers, schedules, log }),
      deleteSuite: deleteSuite({ suites, schedules, reconciler }),
      listSuiteRuns: listSuiteRuns({ suites }),
      scheduleMinuteMs: config.SCHEDULE_MINUTE_MS,
    },
    overview: { getSuiteOverview: getSuiteOverview({ suites, cursors }) },
    schedule: { setSuiteSchedule: setSuiteSchedule({ suites, schedules }) },
    caseGeneration: { generateCases: generateCases({ suites, servers, mcp, catalog }) },
    toolLint: { lintSuiteTools: lintSuiteTools({ suites, servers, mcp }) },
    cases: {
      listCases: listCases({ suites }),
      addCase: addCase({ suites, mcp }),
      getCase: getCase({ suites }),
      editCase: editCase({ suites, mcp }),
      deleteCase: deleteCase({ suites }),
    },
  };
}

export type SuiteDeps = ReturnType<typeof suiteUseCases>;

// ---- conformance checks of saved servers (issue 32; domain/useCases/servers) ----

/** The conformance check use cases, bound once to this app's services: what serverConformance.ts receives. */
function conformanceUseCases(deps: {
  sql: Sql;
  box: SecretBox;
  cursors: CursorCodec;
  config: Config;
  temporal: Client;
  reconciler: ReconcileRuns;
}) {
  const { config, reconciler } = deps;
  const servers = createServerStore(deps.sql, deps.box);
  const checks = createConformanceCheckStore(deps.sql);
  const workflows = new ConformanceLauncher(deps.temporal, config.TEMPORAL_TASK_QUEUE);
  return {
    startConformanceCheck: startConformanceCheck({
      servers,
      checks,
      workflows,
      timeoutMs: config.CONFORMANCE_TIMEOUT_MS,
      maxConcurrentRuns: config.MAX_CONCURRENT_RUNS,
      reconcileAtCap: (organizationId: string) => reconciler.reconcileOrganization(organizationId),
    }),
    getConformanceCheck: getConformanceCheck({ servers, checks }),
    listConformanceChecks: listConformanceChecks({ servers, checks, cursors: deps.cursors }),
    cancelConformanceCheck: cancelConformanceCheck({ servers, checks, workflows }),
  };
}

// ---- signed webhooks (issue 33; domain/useCases/webhooks) ----

/** The webhook use cases, bound once to this app's services: what webhooks.ts receives. */
function webhookUseCases(deps: { sql: Sql; box: SecretBox; cursors: CursorCodec; config: Config; temporal: Client }) {
  const webhooks = createWebhookStore(deps.sql);
  const targets = webhookTargets(deps.config);
  return {
    registerWebhook: registerWebhook({ webhooks, box: deps.box, targets }),
    listWebhooks: listWebhooks({ webhooks, cursors: deps.cursors }),
    getWebhook: getWebhook({ webhooks }),
    editWebhook: editWebhook({ webhooks, targets }),
    rotateWebhookSecret: rotateWebhookSecret({ webhooks, box: deps.box }),
    deleteWebhook: deleteWebhook({ webhooks }),
    listWebhookDeliveries: listWebhookDeliveries({ webhooks, cursors: deps.cursors }),
    redeliverWebhook: redeliverWebhook({
      webhooks,
      deliveries: new TemporalWebhookDeliveries(deps.temporal, deps.config),
    }),
  };
}
