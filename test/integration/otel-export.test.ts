import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOtlpTargetStore } from '../../db/otlpTargets.js';
import { runSpanContext } from '../../runtime/otel/iterationSpans.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { startJaeger, tag, type Jaeger, type JaegerSpan } from '../helpers/jaeger.js';
import { fixtureOverStdio, saveServer } from '../helpers/mcpServers.js';

const TRACEPARENT = /^traceparent 00-([0-9a-f]{32})-[0-9a-f]{16}-01$/;

/**
 * The OpenTelemetry export (issue 33) against a real backend: Jaeger v2 (scripts/jaeger.ts) receives the worker's
 * OTLP/HTTP exports as the deployment's collector (OTEL_EXPORTER_OTLP_ENDPOINT), and the test reads the spans back
 * through its query API. An organization's own endpoint (sealed in the database) is a recording receiver. With the
 * collector stopped, a run ends with the same results and the lost spans are counted.
 */
describe('eval traces exported over OTLP', () => {
  let jaeger: Jaeger;
  let world: EvalWorld;
  let serverId: string;
  let receiver: Server;
  const received: Array<{ url?: string; headers: IncomingHttpHeaders; bytes: number }> = [];

  beforeAll(async () => {
    jaeger = await startJaeger();
    receiver = createServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        received.push({ url: req.url, headers: req.headers, bytes });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    world = await startEvalWorld(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpUrl,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-deployment-secret=deployment-only',
        MCP_CONNECT_TIMEOUT_MS: '60000',
        MCP_INITIALIZE_TIMEOUT_MS: '60000',
      },
      { traceExport: { scheduledDelayMs: 100, exportTimeoutMs: 2_000 } },
    );
    serverId = await saveServer(world.stack.sql, world.stack.box, {
      projectId: world.org.projectId,
      name: 'questions',
      ...fixtureOverStdio('questions'),
    });
    const { port } = receiver.address() as AddressInfo;
    await createOtlpTargetStore(world.stack.sql, world.stack.box).set(world.org.organizationId, {
      endpoint: `http://127.0.0.1:${port}/v1/traces`,
      headers: { 'x-tenant': 'acme' },
    });
    world.model.setScript('otel-model', {
      byQuery: {
        'Where is my trace?': [{ toolCalls: [{ name: 'trace_context', arguments: {} }] }, { text: 'It is traced.' }],
      },
    });
  });
  afterAll(async () => {
    await world?.stop();
    await jaeger?.stop();
    receiver?.close();
  });

  async function run(name: string) {
    const { call, org } = world;
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: name,
      serverIds: [serverId],
      tests: [
        {
          title: 'traced case',
          query: 'Where is my trace?',
          model: 'otel-model',
          provider: 'openai',
          runs: 2,
          expectedToolCalls: [{ toolName: 'trace_context' }],
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const runId = created.body.runId as string;
    const finished = await waitForRun(call, org.projectId, runId);
    const iterations = await allIterations(call, org.projectId, runId);
    const traces = await Promise.all(
      iterations.map(async (iteration) => {
        const reply = await call(
          'GET',
          `/projects/${org.projectId}/eval-runs/${runId}/iterations/${iteration.id}/trace`,
        );
        expect(reply.status).toBe(200);
        return reply.body;
      }),
    );
    // Everything queued goes out now (the BatchSpanProcessors' forceFlush), so the test needs no sleep.
    await world.stack.traces.flush();
    return { runId, run: finished, iterations, traces };
  }

  /** The trace's spans once Jaeger has stored `count` of them (it batches what it received). */
  async function spansOf(traceId: string, count: number): Promise<JaegerSpan[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const spans = await jaeger.spans(traceId);
      if (spans.length >= count || Date.now() > deadline) return spans;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const counter = async (name: string, labels = '') => {
    const text = await world.stack.metrics.registry.getSingleMetricAsString(name);
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
    return line ? Number(line.split(' ')[1]) : 0;
  };

  let first: Awaited<ReturnType<typeof run>>;

  it('exports each iteration as one trace under the trace id its MCP server received, with GenAI attributes', async () => {
    first = await run('otel export');
    expect(first.run.status).toBe('completed');
    expect(first.iterations).toHaveLength(2);
    for (const [index, iteration] of first.iterations.entries()) {
      const trace = first.traces[index];
      // What the MCP server saw in params._meta.traceparent: the trace's id.
      const answer = trace.messages
        .filter((m: any) => m.role === 'tool')
        .flatMap((m: any) => m.content)
        .find((part: any) => part.toolName === 'trace_context').output.value as string;
      const traceId = TRACEPARENT.exec(answer)?.[1];
      expect(traceId).toBe(trace.traceId);

      const stored = trace.spans.length;
      // the root, each recorded span, and the grading
      const spans = await spansOf(traceId!, stored + 2);
      expect(spans).toHaveLength(stored + 2);
      expect(new Set(spans.map((s) => s.traceID))).toEqual(new Set([traceId]));

      const root = spans.find((s) => s.operationName === 'invoke_agent traced case')!;
      expect(root).toBeDefined();
      expect(tag(root, 'gen_ai.operation.name')).toBe('invoke_agent');
      expect(tag(root, 'gen_ai.provider.name')).toBe('openai');
      expect(tag(root, 'gen_ai.request.model')).toBe('otel-model');
      expect(tag(root, 'gen_ai.usage.input_tokens')).toBe(iteration.usage.inputTokens);
      expect(tag(root, 'gen_ai.usage.output_tokens')).toBe(iteration.usage.outputTokens);
      expect(tag(root, 'runway.run.id')).toBe(first.runId);
      expect(tag(root, 'runway.iteration.id')).toBe(iteration.id);
      expect(tag(root, 'runway.case.id')).toBe(iteration.testCaseId);
      expect(tag(root, 'runway.iteration.result')).toBe('passed');
      // its link to the run's span
      const run = runSpanContext(first.runId);
      expect(root.references).toContainEqual(expect.objectContaining({ traceID: run.traceId, spanID: run.spanId }));

      const chats = spans.filter((s) => tag(s, 'gen_ai.operation.name') === 'chat');
      expect(chats).toHaveLength(2);
      for (const chat of chats) {
        expect(tag(chat, 'gen_ai.request.model')).toBe('otel-model');
        expect(tag(chat, 'gen_ai.usage.input_tokens')).toBeGreaterThan(0);
        expect(chat.references).toContainEqual(expect.objectContaining({ refType: 'CHILD_OF' }));
      }
      const tool = spans.find((s) => s.operationName === 'execute_tool trace_context')!;
      expect(tool).toBeDefined();
      expect(tag(tool, 'gen_ai.tool.name')).toBe('trace_context');
      expect(tag(tool, 'mcp.method.name')).toBe('tools/call');
      const grade = spans.find((s) => s.operationName === 'grade')!;
      expect(grade.logs.flatMap((l) => l.fields).filter((f) => f.key === 'gen_ai.evaluation.score.label')).toEqual([
        expect.objectContaining({ value: 'pass' }),
      ]);
    }

    // The run's span, in its own trace, once the run ended.
    const [runSpan] = await spansOf(runSpanContext(first.runId).traceId, 1);
    expect(runSpan).toMatchObject({ operationName: `eval run #${first.run.runNumber}` });
    expect(tag(runSpan!, 'runway.run.status')).toBe('completed');
    expect(tag(runSpan!, 'runway.run.total')).toBe(2);

    expect(await counter('runway_otel_spans_exported_total')).toBeGreaterThan(0);
    expect(await counter('runway_otel_spans_dropped_total', '{reason="export_failed"}')).toBe(0);
  });

  it("sends the organization's spans to its own endpoint too, with its headers and never the deployment's", async () => {
    const [row] = await world.stack.sql<{ endpoint_enc: string; headers_enc: string }[]>`
      SELECT endpoint_enc, headers_enc FROM organization_otel_exports WHERE organization_id = ${world.org.organizationId}`;
    expect(row!.endpoint_enc).not.toContain('127.0.0.1');
    expect(row!.headers_enc).not.toContain('acme');
    expect(received.length).toBeGreaterThan(0);
    for (const request of received) {
      expect(request.url).toBe('/v1/traces');
      expect(request.headers).toMatchObject({ 'x-tenant': 'acme', 'content-type': 'application/x-protobuf' });
      expect(request.headers['x-deployment-secret']).toBeUndefined();
      expect(request.bytes).toBeGreaterThan(0);
    }
  });

  it('runs the same with the collector stopped: the spans are lost and counted, never the iterations', async () => {
    await jaeger.stop();
    const droppedBefore = await counter('runway_otel_spans_dropped_total', '{reason="export_failed"}');
    const second = await run('otel export');
    expect(second.run.status).toBe(first.run.status);
    expect(second.run.result).toBe(first.run.result);
    expect(second.run.summary).toMatchObject({
      total: first.run.summary.total,
      passed: first.run.summary.passed,
      failed: first.run.summary.failed,
    });
    expect(second.iterations.map((i) => [i.status, i.result])).toEqual(
      first.iterations.map((i) => [i.status, i.result]),
    );
    // every span of both iterations (root, recorded, grade) and the run's span never reached the collector
    const spans = second.traces.reduce((n, trace) => n + trace.spans.length + 2, 0) + 1;
    // The run's span is queued once the run's end is committed (RunEnded), which a reader may see first.
    const dropped = () => counter('runway_otel_spans_dropped_total', '{reason="export_failed"}');
    const deadline = Date.now() + 10_000;
    while ((await dropped()) < droppedBefore + spans && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      await world.stack.traces.flush();
    }
    expect(await dropped()).toBe(droppedBefore + spans);
    expect(world.stack.logs.some((line) => line.includes('an OTLP export failed: spans dropped'))).toBe(true);
  });
});
