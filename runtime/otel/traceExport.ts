import { isIP, type LookupFunction } from 'node:net';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { createOtlpHttpExportDelegate, httpAgentFactoryFromOptions } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { lookup as dnsLookup } from 'node:dns';
import type { Config } from '../config.js';
import type { Db } from '../../db/connection.js';
import { createOtlpTargetStore } from '../../db/otlpTargets.js';
import type { SecretBox } from '../../domain/ports/secretBox.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { OtlpTarget, OtlpTargetStore } from '../../domain/ports/otlpTargets.js';
import type { RunEnded } from '../../domain/ports/runEnded.js';
import { outboundPolicyFor, type OutboundPolicy } from '../../domain/mcp/outbound.js';
import { otlpEndpointProblem } from './endpoint.js';
import { iterationSpans, runSpan, type SpanOrigin, type StoredIteration } from './iterationSpans.js';

type HttpAgentFactory = Parameters<typeof createOtlpHttpExportDelegate>[0]['agentFactory'];

/**
 * The export of eval traces over OTLP/HTTP (protobuf) (issue 33): the worker hands each stored iteration here
 * (`iterationStored`), whichever process ends a run its run span (`runEnded`). Spans go to the deployment's endpoint
 * (OTEL_EXPORTER_OTLP_*) and to the run's organization's own (`npm run admin -- otel set`), each through a
 * BatchSpanProcessor of its own: batched, a bounded queue, every export bounded in time.
 *
 * It never slows or fails a run: handing spans over is synchronous and only queues them; a full queue, a failed or
 * timed-out export (a dead collector), an organization target that cannot be read or is refused by the outbound rules
 * drop the spans and count them (runway_otel_spans_dropped_total), never the iteration.
 */

/** What the export counts (the process's Prometheus metrics, runtime/metrics.ts). */
export interface TraceExportRecorder {
  spansExported(count: number): void;
  spansDropped(count: number, reason: 'queue_full' | 'export_failed'): void;
}

export interface TraceExportOptions {
  /** the deployment's target (deploymentOtlpTarget(config)); undefined: none */
  deployment?: OtlpTarget;
  /** the organizations' own targets; undefined: none are read */
  targets?: Pick<OtlpTargetStore, 'get'>;
  recorder?: TraceExportRecorder;
  log: Logger;
  /** service.name of the spans' resource */
  serviceName: string;
  /** spans queued per target, at most (default 4096): more are dropped */
  maxQueueSize?: number;
  /** one export's time limit, retries included (default 10 s) */
  exportTimeoutMs?: number;
  /** how long queued spans wait for a batch (default 2 s) */
  scheduledDelayMs?: number;
  /** how long an organization's target is kept before it is read again (default 30 s) */
  targetTtlMs?: number;
}

/** The deployment's target from the standard variables: the traces URL as given, else `<base>/v1/traces`. */
export function deploymentOtlpTarget(
  config: Pick<
    Config,
    'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_EXPORTER_OTLP_HEADERS'
  >,
): OtlpTarget | undefined {
  const endpoint =
    config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (config.OTEL_EXPORTER_OTLP_ENDPOINT && `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  return endpoint ? { endpoint, headers: config.OTEL_EXPORTER_OTLP_HEADERS ?? {} } : undefined;
}

/**
 * An organization's endpoint goes through the outbound rules of saved servers (domain/mcp/outbound.ts): the address
 * connected to (after DNS) must be public or in the class the endpoint's own host resolved into when the target was
 * first used (the operator chose that network); link-local and cloud metadata addresses never. So a name the
 * operator set cannot later be re-pointed (DNS) into the deployment's loopback or private network.
 */
function guardedAgentFactory(endpoint: string): HttpAgentFactory {
  let policy: Promise<OutboundPolicy> | undefined;
  return async (protocol) => {
    const allowed = await (policy ??= outboundPolicyFor(endpoint));
    const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !allowed.allows(host)) throw new Error(`the outbound rules refuse ${host}`);
    const lookup: LookupFunction = (hostname, options, callback) => {
      dnsLookup(hostname, { all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        const usable = addresses.filter((a) => allowed.allows(a.address));
        if (usable.length === 0) return callback(new Error(`the outbound rules refuse ${hostname}`), '', 0);
        if (options.all) return (callback as unknown as (e: null, a: typeof usable) => void)(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      });
    };
    const { Agent } = protocol === 'https:' ? await import('node:https') : await import('node:http');
    return new Agent({ keepAlive: true, lookup });
  };
}

/** One target's pipeline: its exporter behind a BatchSpanProcessor, and the spans handed over but not yet settled. */
class Pipeline {
  readonly processor: BatchSpanProcessor;
  #pending = 0;
  #lastWarning = 0;

  constructor(
    readonly target: OtlpTarget,
    agentFactory: HttpAgentFactory,
    private readonly options: Required<
      Pick<TraceExportOptions, 'maxQueueSize' | 'exportTimeoutMs' | 'scheduledDelayMs'>
    > &
      Pick<TraceExportOptions, 'recorder' | 'log'>,
  ) {
    const headers = { ...target.headers, 'content-type': 'application/x-protobuf' };
    // Built from the OTLP exporter's parts (the delegate and serializer OTLPTraceExporter is made of) with every
    // setting explicit: OTLPTraceExporter would also merge the process's OTEL_EXPORTER_OTLP_* variables into every
    // exporter, sending the deployment's headers to an organization's endpoint.
    const otlp = new OTLPExporterBase<ReadableSpan[]>(
      createOtlpHttpExportDelegate(
        {
          url: target.endpoint,
          headers: async () => headers,
          agentFactory,
          compression: 'none',
          timeoutMillis: options.exportTimeoutMs,
          concurrencyLimit: 2,
        },
        ProtobufTraceSerializer,
      ),
    );
    const exporter: SpanExporter = {
      export: (spans, done) =>
        otlp.export(spans, (result) => {
          this.#settled(spans.length, result);
          done(result);
        }),
      shutdown: () => otlp.shutdown(),
      forceFlush: () => otlp.forceFlush(),
    };
    this.processor = new BatchSpanProcessor(exporter, {
      maxQueueSize: options.maxQueueSize,
      maxExportBatchSize: Math.min(512, options.maxQueueSize),
      scheduledDelayMillis: options.scheduledDelayMs,
      // past the exporter's own limit, so the exporter always settles (and counts) a batch first
      exportTimeoutMillis: options.exportTimeoutMs + 5_000,
    });
  }

  /** Queues spans; drops (and counts) them all when they do not fit the queue. */
  add(spans: ReadableSpan[]): void {
    if (this.#pending + spans.length > this.options.maxQueueSize) {
      this.options.recorder?.spansDropped(spans.length, 'queue_full');
      this.#warn('the OTLP export queue is full: spans dropped');
      return;
    }
    this.#pending += spans.length;
    for (const span of spans) this.processor.onEnd(span);
  }

  #settled(count: number, result: ExportResult): void {
    this.#pending = Math.max(0, this.#pending - count);
    if (result.code === ExportResultCode.SUCCESS) {
      this.options.recorder?.spansExported(count);
      return;
    }
    this.options.recorder?.spansDropped(count, 'export_failed');
    this.#warn(`an OTLP export failed: spans dropped (${result.error?.message ?? 'no reason given'})`);
  }

  /** At most one warning a minute per target: a dead collector must not flood the log. */
  #warn(message: string): void {
    const now = Date.now();
    if (now - this.#lastWarning < 60_000) return;
    this.#lastWarning = now;
    this.options.log.warn({ endpoint: new URL(this.target.endpoint).origin }, message);
  }
}

const targetKey = (target: OtlpTarget) => JSON.stringify([target.endpoint, Object.entries(target.headers).sort()]);

export class TraceExport {
  readonly #origin: SpanOrigin;
  readonly #options: TraceExportOptions;
  readonly #settings: Required<Pick<TraceExportOptions, 'maxQueueSize' | 'exportTimeoutMs' | 'scheduledDelayMs'>> &
    Pick<TraceExportOptions, 'recorder' | 'log'>;
  readonly #deployment: Pipeline | undefined;
  /** each organization's target as last read (undefined: none), and its pipeline */
  readonly #organizations = new Map<
    string,
    { readAt: number; key?: string; pipeline?: Pipeline; reading?: Promise<void> }
  >();
  /** in flight: spans waiting for their organization's target to be read */
  readonly #handing = new Set<Promise<void>>();

  constructor(options: TraceExportOptions) {
    this.#options = options;
    this.#origin = {
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, [ATTR_SERVICE_VERSION]: '0.1.0' }),
      scope: { name: 'runway', version: '0.1.0' },
    };
    this.#settings = {
      maxQueueSize: options.maxQueueSize ?? 4096,
      exportTimeoutMs: options.exportTimeoutMs ?? 10_000,
      scheduledDelayMs: options.scheduledDelayMs ?? 2_000,
      recorder: options.recorder,
      log: options.log,
    };
    this.#deployment = options.deployment
      ? new Pipeline(options.deployment, httpAgentFactoryFromOptions({ keepAlive: true }), this.#settings)
      : undefined;
  }

  /** Whether anything can be exported at all (a deployment target, or organizations' targets to read). */
  get enabled(): boolean {
    return this.#deployment !== undefined || this.#options.targets !== undefined;
  }

  /** A stored iteration's trace: queued for export, never waited for, never thrown from. */
  iterationStored(stored: StoredIteration): void {
    if (!this.enabled) return;
    try {
      this.#hand(stored.run.organizationId, iterationSpans(this.#origin, stored));
    } catch (error) {
      this.#options.log.warn(
        { runId: stored.run.id, iterationId: stored.iteration.id, err: error },
        'could not convert an iteration trace for export',
      );
    }
  }

  /** The RunEnded listener: the run's span, queued like an iteration's. */
  readonly runEnded: RunEnded = async ({ run, endedAt }) => {
    if (!this.enabled) return;
    this.#hand(run.organizationId, [runSpan(this.#origin, run, endedAt)]);
  };

  #hand(organizationId: string, spans: ReadableSpan[]): void {
    this.#deployment?.add(spans);
    if (!this.#options.targets) return;
    const handing = this.#organizationPipeline(organizationId)
      .then((pipeline) => pipeline?.add(spans))
      .catch((error: unknown) =>
        this.#options.log.warn({ organizationId, err: error }, "could not read the organization's OTLP target"),
      )
      .finally(() => this.#handing.delete(handing));
    this.#handing.add(handing);
  }

  async #organizationPipeline(organizationId: string): Promise<Pipeline | undefined> {
    const ttl = this.#options.targetTtlMs ?? 30_000;
    let entry = this.#organizations.get(organizationId);
    if (!entry || (Date.now() - entry.readAt > ttl && !entry.reading)) {
      const current = entry ?? { readAt: 0 };
      this.#organizations.set(organizationId, current);
      current.reading = this.#readTarget(organizationId, current).finally(() => (current.reading = undefined));
      entry = current;
    }
    await entry.reading;
    return entry.pipeline;
  }

  async #readTarget(organizationId: string, entry: { readAt: number; key?: string; pipeline?: Pipeline }) {
    const target = await this.#options.targets!.get(organizationId);
    entry.readAt = Date.now();
    const key = target && !otlpEndpointProblem(target.endpoint) ? targetKey(target) : undefined;
    if (key === entry.key) return;
    const old = entry.pipeline;
    entry.key = key;
    entry.pipeline =
      target && key ? new Pipeline(target, guardedAgentFactory(target.endpoint), this.#settings) : undefined;
    // The old target gets what it already queued.
    void old?.processor.shutdown().catch(() => {});
  }

  /** Exports everything queued now (tests; a process's end). */
  async flush(): Promise<void> {
    await Promise.all([...this.#handing]);
    await Promise.all(this.#pipelines().map((p) => p.processor.forceFlush().catch(() => {})));
  }

  /** Flushes and closes every pipeline. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.#handing]);
    await Promise.all(this.#pipelines().map((p) => p.processor.shutdown().catch(() => {})));
  }

  #pipelines(): Pipeline[] {
    const organizations = [...this.#organizations.values()].flatMap((e) => (e.pipeline ? [e.pipeline] : []));
    return [...(this.#deployment ? [this.#deployment] : []), ...organizations];
  }
}

/**
 * A process's trace export (worker/main.ts, api/main.ts, the test stack): the deployment's target from the standard
 * variables, the organizations' from the database (sealed with the process's secret box), counted in `recorder`.
 */
export function createTraceExport(
  config: Pick<
    Config,
    'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_EXPORTER_OTLP_HEADERS'
  >,
  deps: { sql: Db; box: SecretBox; log: Logger; recorder?: TraceExportRecorder; serviceName: string },
  options: Pick<TraceExportOptions, 'maxQueueSize' | 'exportTimeoutMs' | 'scheduledDelayMs' | 'targetTtlMs'> = {},
): TraceExport {
  return new TraceExport({
    ...options,
    deployment: deploymentOtlpTarget(config),
    targets: createOtlpTargetStore(deps.sql, deps.box),
    log: deps.log,
    serviceName: deps.serviceName,
    ...(deps.recorder && { recorder: deps.recorder }),
  });
}
