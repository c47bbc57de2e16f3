import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureJaeger } from '../../scripts/jaeger.js';
import { freePort } from './ports.js';

/** A span as Jaeger's query API (`/api/traces/{id}`) answers it. */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: Array<{ refType: string; traceID: string; spanID: string }>;
  startTime: number;
  duration: number;
  tags: Array<{ key: string; type: string; value: unknown }>;
  logs: Array<{ timestamp: number; fields: Array<{ key: string; value: unknown }> }>;
  processID: string;
}

export interface Jaeger {
  /** the OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT) */
  otlpUrl: string;
  queryUrl: string;
  /** the trace's spans, [] while Jaeger has none of it */
  spans(traceId: string): Promise<JaegerSpan[]>;
  stop(): Promise<void>;
}

/**
 * Jaeger v2 (scripts/jaeger.ts) on free loopback ports, from a config file of its own: an OTLP/HTTP receiver,
 * in-memory storage and the query API; its own telemetry off, so that nothing listens on a fixed port.
 */
export async function startJaeger(): Promise<Jaeger> {
  const binary = ensureJaeger();
  const [otlp, query, queryGrpc, health] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'runway-jaeger-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${health}
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${query}
    grpc:
      endpoint: 127.0.0.1:${queryGrpc}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlp}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`,
  );
  const output: string[] = [];
  const child: ChildProcess = spawn(binary, ['--config', `file:${config}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const queryUrl = `http://127.0.0.1:${query}`;
  // Ready when its query API answers (its receiver starts before it).
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`jaeger exited (${child.exitCode}):\n${output.join('')}`);
    const ready = await fetch(`${queryUrl}/api/services`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`jaeger did not start within 60 s:\n${output.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    otlpUrl: `http://127.0.0.1:${otlp}`,
    queryUrl,
    async spans(traceId) {
      const response = await fetch(`${queryUrl}/api/traces/${traceId}`);
      if (response.status === 404) return [];
      if (!response.ok) throw new Error(`jaeger ${response.status}: ${await response.text()}`);
      const body = (await response.json()) as { data?: Array<{ spans: JaegerSpan[] }> };
      return body.data?.[0]?.spans ?? [];
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A span's tag value by key. */
export const tag = (span: JaegerSpan, key: string): unknown => span.tags.find((t) => t.key === key)?.value;
