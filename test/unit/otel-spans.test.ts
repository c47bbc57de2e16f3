import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { describe, expect, it } from 'vitest';
import type { IterationCompletion } from '../../domain/evals/iteration.js';
import type { TraceSpan } from '../../domain/models/trace.js';
import { loadConfig } from '../../runtime/config.js';
import {
  genAiProvider,
  iterationSpans,
  iterationTraceId,
  runSpan,
  runSpanContext,
  type StoredIteration,
} from '../../runtime/otel/iterationSpans.js';
import { deploymentOtlpTarget, TraceExport } from '../../runtime/otel/traceExport.js';
import { otlpEndpointProblem } from '../../runtime/otel/endpoint.js';
import { createLogger } from '../../runtime/logger.js';
import { freePort } from '../helpers/ports.js';

const origin = { resource: resourceFromAttributes({ 'service.name': 'test' }), scope: { name: 'runway' } };
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const STARTED = Date.UTC(2026, 10, 29, 9, 0, 0);

const spans: TraceSpan[] = [
  {
    id: 'step-1',
    name: 'step 1',
    category: 'step',
    startMs: 0,
    endMs: 40,
    status: 'ok',
    inputTokens: 12,
    outputTokens: 5,
  },
  {
    id: 'llm-2',
    parentId: 'step-1',
    name: 'gpt-x',
    category: 'llm',
    modelId: 'gpt-x',
    startMs: 1,
    endMs: 20,
    status: 'ok',
    inputTokens: 12,
    outputTokens: 5,
  },
  {
    id: 'tool-3',
    parentId: 'step-1',
    name: 'lookup',
    category: 'tool',
    toolName: 'lookup',
    startMs: 21,
    endMs: 38,
    status: 'error',
  },
  {
    id: 'rate-limit-4',
    parentId: 'step-1',
    name: 'rate-limit',
    category: 'rate-limit',
    provider: 'openai',
    delayMs: 7,
    startMs: 0,
    endMs: 1,
    status: 'ok',
  },
  {
    id: 'judge-1',
    name: 'judge-model',
    category: 'judge',
    modelId: 'judge-model',
    startMs: 45,
    endMs: 60,
    status: 'ok',
    inputTokens: 30,
    outputTokens: 2,
  },
];

function stored(overrides: Partial<IterationCompletion> = {}): StoredIteration {
  return {
    run: { id: 'run_1', organizationId: 'org_1', projectId: 'prj_1', suiteId: 'ste_1', runNumber: 3, source: 'api' },
    iteration: { id: 'itr_1', caseId: 'case_1', title: 'Looks up', iterationNumber: 2, modelIndex: 0 },
    startedAt: STARTED,
    outcome: {
      status: 'completed',
      result: 'failed',
      model: 'gpt-x',
      provider: 'openai',
      durationMs: 70,
      usage: { inputTokens: 42, outputTokens: 7, totalTokens: 49, cachedInputTokens: 3 },
      costUsd: 0.01,
      actualToolCalls: [],
      error: null,
      trace: {
        traceVersion: 1,
        traceId: TRACE_ID,
        spans,
        prompts: [
          {
            promptIndex: 0,
            passed: false,
            missing: [{ toolName: 'other' }],
            unexpected: [],
            reasons: ['Missing expected tool call: other', 'Output check (judge): wrong city'],
            outputCheck: { mode: 'judge', passed: false, reason: 'wrong city' },
          },
        ],
      },
      ...overrides,
    },
  };
}

const byName = (list: ReturnType<typeof iterationSpans>, name: string) => {
  const found = list.find((s) => s.name === name);
  expect(found, name).toBeDefined();
  return found!;
};

describe('an iteration trace as OpenTelemetry spans', () => {
  it('is one trace with the id the MCP requests carried, GenAI attributes, and the recorded times', () => {
    const list = iterationSpans(origin, stored());
    expect(new Set(list.map((s) => s.spanContext().traceId))).toEqual(new Set([TRACE_ID]));
    expect(new Set(list.map((s) => s.spanContext().spanId)).size).toBe(list.length);

    const root = list[0]!;
    expect(root.name).toBe('invoke_agent Looks up');
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-x',
      'gen_ai.usage.input_tokens': 42,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.usage.cache_read.input_tokens': 3,
      'runway.run.id': 'run_1',
      'runway.iteration.id': 'itr_1',
      'runway.case.id': 'case_1',
      'runway.iteration.result': 'failed',
    });
    expect(hrTimeToMilliseconds(root.startTime)).toBe(STARTED);
    expect(hrTimeToMilliseconds(root.endTime)).toBe(STARTED + 70);
    // linked to the run's span, whose ids come from the run's id alone
    expect(root.links.map((l) => l.context)).toEqual([runSpanContext('run_1')]);
    expect(runSpanContext('run_1')).toEqual(runSpanContext('run_1'));
    expect(runSpanContext('run_1').traceId).not.toBe(runSpanContext('run_2').traceId);

    const step = byName(list, 'step 1');
    expect(step.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    const chat = byName(list, 'chat gpt-x');
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-x',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
    });
    expect(hrTimeToMilliseconds(chat.startTime)).toBe(STARTED + 1);
    expect(hrTimeToMilliseconds(chat.endTime)).toBe(STARTED + 20);

    const tool = byName(list, 'execute_tool lookup');
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'mcp.method.name': 'tools/call',
      'runway.mcp.reply_ms': 17,
    });
    expect(tool.status.code).toBe(SpanStatusCode.ERROR);
    expect(byName(list, 'rate-limit wait').attributes).toMatchObject({ 'runway.rate_limit.delay_ms': 7 });

    // grading: after the agent loop, holding the judge's call and each turn's evaluations
    const grade = byName(list, 'grade');
    expect(hrTimeToMilliseconds(grade.startTime)).toBe(STARTED + 40);
    const judge = byName(list, 'chat judge-model');
    expect(judge.parentSpanContext?.spanId).toBe(grade.spanContext().spanId);
    expect(
      grade.events.map((e) => [
        e.attributes?.['gen_ai.evaluation.name'],
        e.attributes?.['gen_ai.evaluation.score.label'],
      ]),
    ).toEqual([
      ['tool_calls', 'fail'],
      ['output_check.judge', 'fail'],
    ]);
  });

  it('derives the same ids again (a re-export sends the same spans), and a trace id when none was recorded', () => {
    const ids = (list: ReturnType<typeof iterationSpans>) => list.map((s) => s.spanContext().spanId);
    expect(ids(iterationSpans(origin, stored()))).toEqual(ids(iterationSpans(origin, stored())));
    const regrade = iterationSpans(origin, stored({ trace: { prompts: [] }, traceMerge: true }));
    expect(regrade[0]!.spanContext().traceId).toBe(iterationTraceId('itr_1', undefined));
    expect(regrade[0]!.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(iterationTraceId('itr_1', '0'.repeat(32))).not.toBe('0'.repeat(32));
    expect(iterationTraceId('itr_1', 'not hex')).toBe(iterationTraceId('itr_1', undefined));
  });

  it('marks a failed iteration as an error with its reason, and survives a trace of another shape', () => {
    const [root, ...rest] = iterationSpans(
      origin,
      stored({
        status: 'failed',
        error: 'provider said no',
        errorDetails: { reason: 'AUTH_FAILED' },
        trace: { spans: 'x' },
      }),
    );
    expect(root!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'provider said no' });
    expect(root!.attributes['error.type']).toBe('AUTH_FAILED');
    expect(rest).toEqual([]);
  });

  it('gives the run its span with the derived context and its summary', () => {
    const span = runSpan(
      origin,
      {
        id: 'run_1',
        organizationId: 'org_1',
        projectId: 'prj_1',
        suiteId: 'ste_1',
        runNumber: 3,
        source: 'api',
        status: 'completed',
        result: 'passed',
        summary: { total: 2, passed: 2, failed: 0, passRate: 1 },
        createdAt: new Date(STARTED - 1000),
        startedAt: new Date(STARTED),
        error: null,
      },
      new Date(STARTED + 5000),
    );
    expect(span.spanContext()).toEqual(runSpanContext('run_1'));
    expect(span.attributes).toMatchObject({ 'runway.run.status': 'completed', 'runway.run.total': 2 });
    expect(hrTimeToMilliseconds(span.duration)).toBe(5000);
  });

  it('names providers as the conventions do', () => {
    expect(genAiProvider('google')).toBe('gcp.gemini');
    expect(genAiProvider('anthropic')).toBe('anthropic');
    expect(genAiProvider(null)).toBeUndefined();
  });
});

describe('the OTLP settings', () => {
  const base = {
    DATABASE_URL: 'postgres://x@127.0.0.1/x',
    RUNWAY_ENCRYPTION_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
  };

  it('read the standard variables: the base URL gets /v1/traces, the traces URL wins, headers decoded', () => {
    expect(deploymentOtlpTarget(loadConfig(base))).toBeUndefined();
    expect(deploymentOtlpTarget(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }))).toEqual({
      endpoint: 'http://c:4318/v1/traces',
      headers: {},
    });
    const both = loadConfig({
      ...base,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20abc, x-tenant=acme',
    });
    expect(deploymentOtlpTarget(both)).toEqual({
      endpoint: 'http://t:9/traces',
      headers: { authorization: 'Bearer abc', 'x-tenant': 'acme' },
    });
  });

  it('refuse malformed headers without echoing them', () => {
    expect(() => loadConfig({ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'secret-value-without-key' })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS: must be key=value pairs/,
    );
    expect(() => loadConfig({ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'secret-value-without-key' })).not.toThrow(
      /secret-value/,
    );
  });

  it("judge an organization's endpoint", () => {
    expect(otlpEndpointProblem('https://otlp.example.com/v1/traces')).toBeUndefined();
    expect(otlpEndpointProblem('ftp://x/')).toMatch(/http/);
    expect(otlpEndpointProblem('https://u:p@x/')).toMatch(/credentials/);
    expect(otlpEndpointProblem('nope')).toBe('not a URL');
  });
});

describe('the export', () => {
  const log = createLogger('silent');

  function counting() {
    const counts = { exported: 0, dropped: {} as Record<string, number> };
    return {
      counts,
      recorder: {
        spansExported: (n: number) => (counts.exported += n),
        spansDropped: (n: number, reason: string) => (counts.dropped[reason] = (counts.dropped[reason] ?? 0) + n),
      },
    };
  }

  it('posts protobuf with the target headers to a collector, and counts what it took', async () => {
    const received: Array<{ url?: string; headers: IncomingHttpHeaders; bytes: number }> = [];
    const server = createServer((req, res) => {
      let bytes = 0;
      req.on('data', (c: Buffer) => (bytes += c.length));
      req.on('end', () => {
        received.push({ url: req.url, headers: req.headers, bytes });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const { counts, recorder } = counting();
    const exporter = new TraceExport({
      deployment: { endpoint: `http://127.0.0.1:${port}/v1/traces`, headers: { 'x-tenant': 'acme' } },
      recorder,
      log,
      serviceName: 'test',
    });
    exporter.iterationStored(stored());
    await exporter.flush();
    await exporter.shutdown();
    server.close();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      url: '/v1/traces',
      headers: { 'x-tenant': 'acme', 'content-type': 'application/x-protobuf' },
    });
    expect(received[0]!.bytes).toBeGreaterThan(100);
    expect(counts).toEqual({ exported: iterationSpans(origin, stored()).length, dropped: {} });
  });

  it('drops and counts spans a dead collector never takes, and those beyond its queue, without throwing', async () => {
    const closed = await freePort();
    const { counts, recorder } = counting();
    const exporter = new TraceExport({
      deployment: { endpoint: `http://127.0.0.1:${closed}/v1/traces`, headers: {} },
      recorder,
      log,
      serviceName: 'test',
      maxQueueSize: 10,
      exportTimeoutMs: 1000,
    });
    const perIteration = iterationSpans(origin, stored()).length;
    exporter.iterationStored(stored());
    // the second does not fit the queue of 10 beside the first
    exporter.iterationStored(stored());
    await exporter.flush();
    await exporter.shutdown();
    expect(counts).toEqual({ exported: 0, dropped: { export_failed: perIteration, queue_full: perIteration } });
  });
});
