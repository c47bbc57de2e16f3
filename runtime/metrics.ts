import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { listenOn } from './ports.js';
import type { McpOperations } from '../domain/mcp/index.js';
import type { Db } from '../db/connection.js';
import type { SavedServer } from '../domain/catalog/server.js';

/**
 * The Prometheus metrics of one process (API or worker), on its own registry: passed in as a dependency, never a
 * module-level singleton, so tests and several apps in one process keep separate counts.
 */
export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  rateLimitRejections: Counter;
  mcpCallDuration: Histogram<'server_id' | 'transport' | 'operation' | 'outcome'>;
  iterations: Counter<'result'>;
  /** the eval worker's hook (activities/runIterations.ts): one finished iteration */
  iterationFinished(outcome: { status: string; result: string | null }): void;
  scheduledRuns: Counter<'outcome' | 'reason'>;
  /** the worker's hook (domain/useCases/runs/startScheduledRun.ts): a suite's schedule came due */
  scheduledRunOutcome(outcome: { outcome: 'started' | 'queued' | 'skipped'; reason?: string }): void;
  otelSpansExported: Counter;
  otelSpansDropped: Counter<'reason'>;
  /** the OpenTelemetry export's hooks (runtime/otel/traceExport.ts): spans a collector took, spans lost */
  spansExported(count: number): void;
  spansDropped(count: number, reason: 'queue_full' | 'export_failed'): void;
  retentionRemoved: Counter<'kind'>;
  /** the worker's hook (domain/useCases/retention/applyRetention.ts): what a retention batch removed, by kind */
  retentionDeleted(kind: string, count: number): void;
}

const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: 'runway_' });
  const iterations = new Counter({
    name: 'runway_eval_iterations_total',
    help: 'Eval iterations finished by this worker, by result (passed, failed, or error when the iteration broke)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const scheduledRuns = new Counter({
    name: 'runway_scheduled_runs_total',
    help: "Due runs of suites' schedules, by outcome (started; queued: past the cap, the organization queues runs; or skipped: the run could not start then) and the reason of a skip",
    labelNames: ['outcome', 'reason'] as const,
    registers: [registry],
  });
  const otelSpansExported = new Counter({
    name: 'runway_otel_spans_exported_total',
    help: "Eval trace spans an OTLP endpoint accepted (the deployment's and the organizations' together)",
    registers: [registry],
  });
  const otelSpansDropped = new Counter({
    name: 'runway_otel_spans_dropped_total',
    help: 'Eval trace spans never exported, by reason: export_failed (the collector refused, was unreachable or timed out), queue_full',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const retentionRemoved = new Counter({
    name: 'runway_retention_deleted_total',
    help: 'What retention removed, by kind (traces, iterations, runs, ingestBlobs, artifactBlobs, uploadUrls, ...)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'runway_http_request_duration_seconds',
      help: 'HTTP requests by route pattern (not the raw path) and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: latencyBuckets,
      registers: [registry],
    }),
    rateLimitRejections: new Counter({
      name: 'runway_rate_limit_rejections_total',
      help: 'Requests refused with 429 by the per-key rate limit or the per-address limit on work without a usable key',
      registers: [registry],
    }),
    mcpCallDuration: new Histogram({
      name: 'runway_mcp_call_duration_seconds',
      help: 'MCP operations on saved servers, by server, operation and outcome (ok or the error code)',
      labelNames: ['server_id', 'transport', 'operation', 'outcome'] as const,
      buckets: latencyBuckets,
      registers: [registry],
    }),
    iterations,
    iterationFinished(outcome) {
      iterations.inc({ result: outcome.status === 'failed' ? 'error' : (outcome.result ?? 'error') });
    },
    scheduledRuns,
    scheduledRunOutcome(outcome) {
      scheduledRuns.inc({ outcome: outcome.outcome, reason: outcome.reason ?? '' });
    },
    otelSpansExported,
    otelSpansDropped,
    spansExported(count) {
      otelSpansExported.inc(count);
    },
    spansDropped(count, reason) {
      otelSpansDropped.inc({ reason }, count);
    },
    retentionRemoved,
    retentionDeleted(kind, count) {
      retentionRemoved.inc({ kind }, count);
    },
  };
}

/** Runs with status `running`, by source, read from Postgres at scrape time (exact across any number of processes). */
export function registerActiveRuns(metrics: Metrics, sql: Db): void {
  const name = 'runway_eval_runs_active';
  if (metrics.registry.getSingleMetric(name)) return;
  new Gauge({
    name,
    help: 'Eval runs currently running, by source (api, schedule and regrade: executed here; sdk: chunked ingest still open)',
    labelNames: ['source'] as const,
    registers: [metrics.registry],
    async collect() {
      const rows = await sql<{ source: string; n: number }[]>`
        SELECT source, count(*)::int AS n FROM eval_runs WHERE status = 'running' GROUP BY source`;
      this.reset();
      this.set({ source: 'api' }, 0);
      this.set({ source: 'schedule' }, 0);
      this.set({ source: 'regrade' }, 0);
      for (const row of rows) this.set({ source: row.source }, row.n);
    },
  });
}

/**
 * Times every MCP operation on a saved server. Wraps the operations object at composition time (API and worker
 * alike), so domain/mcp needs no knowledge of metrics.
 */
export function instrumentMcp(mcp: McpOperations, metrics: Metrics): McpOperations {
  // Opening an iteration's own sessions is no operation on a server: its calls are timed as they go.
  const wrapped: Record<string, unknown> = { isolatedSession: mcp.isolatedSession };
  for (const [operation, fn] of Object.entries(mcp) as [
    string,
    (server: SavedServer, ...rest: unknown[]) => Promise<unknown>,
  ][]) {
    if (operation in wrapped) continue;
    wrapped[operation] = async (server: SavedServer, ...rest: unknown[]) => {
      const end = metrics.mcpCallDuration.startTimer({
        server_id: server.id,
        transport: server.transportType,
        operation,
      });
      try {
        const result = await fn(server, ...rest);
        end({ outcome: 'ok' });
        return result;
      } catch (error) {
        end({
          outcome: typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'error',
        });
        throw error;
      }
    };
  }
  return wrapped as unknown as McpOperations;
}

/**
 * Whether a scrape may read the metrics: always when no token is configured, else only with
 * `Authorization: Bearer <token>` (compared in constant time).
 */
function authorized(token: string | undefined, header: string | undefined): boolean {
  if (!token) return true;
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** Answers one scrape of `metrics` (the API's route and the worker's listener). */
export async function answerScrape(
  metrics: Metrics,
  token: string | undefined,
  authorization: string | undefined,
  res: ServerResponse,
): Promise<void> {
  if (!authorized(token, authorization)) {
    res
      .writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' })
      .end('metrics need Authorization: Bearer <METRICS_TOKEN>\n');
    return;
  }
  const body = await metrics.registry.metrics();
  res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body);
}

/** The worker's own `GET /metrics` listener (it has no HTTP server otherwise), on METRICS_PORT. */
export async function serveMetrics(
  metrics: Metrics,
  options: { port: number; host: string; token?: string },
): Promise<Server> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('only GET /metrics here\n');
      return;
    }
    answerScrape(metrics, options.token, req.headers.authorization, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  // A taken port rejects with a PortInUseError naming METRICS_PORT.
  await listenOn(server, {
    port: options.port,
    host: options.host,
    setting: 'METRICS_PORT',
    what: "the worker's metrics",
  });
  return server;
}
