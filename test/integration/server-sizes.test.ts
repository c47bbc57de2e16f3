/**
 * Issue 27, finding 6: sizes a server controls are bounded. A server listing 20 pages x 5 MB of tools and answering
 * 10 MB results (test/fixtures/mcp/huge.ts) gets replies cut to the per-operation budget, marked `truncated`, while
 * /healthz keeps its normal time; an eval run calling its 10 MB tool stores a trace of bounded size, marked so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../../domain/limits.js';
import { FLOOD_CHARS, startHugeServer } from '../fixtures/mcp/huge.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { expectUnharmed, healthzDuring, RUN_FLOOR_MS, startBystander } from '../helpers/fairness.js';
import { fixtureOverStdio, saveServer } from '../helpers/mcpServers.js';
import { referenceErrors } from '../helpers/referenceDocument.js';
import { traceSchema } from '../../api/schemas/evals.js';

/**
 * The worst /healthz latency over a quiet stretch probed exactly as during an attack (healthzDuring), so that both
 * sides take the worst of as many probes: the machine is shared, and a worst of 10 against a worst of 100 would
 * compare noise, not the attack.
 */
const quietHealthzMs = async (origin: string) =>
  (await healthzDuring(origin, () => new Promise((resolve) => setTimeout(resolve, 1500)))).worstMs;

/** The JSON around the budgeted items and fields (ids, timestamps, the `truncated` marker). */
const ENVELOPE_BYTES = 4096;

describe('sizes a server controls', () => {
  let world: EvalWorld;
  let huge: string;
  let hugeForModel: string;

  beforeAll(async () => {
    world = await startEvalWorld();
    const { stack, org } = world;
    huge = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'huge',
      ...fixtureOverStdio('huge'),
    });
    hugeForModel = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'huge-small-listing',
      ...fixtureOverStdio('huge'),
      env: { HUGE_LISTING: 'off' },
    });
  });
  afterAll(async () => world?.stop());

  /**
   * POST a server operation: its status and its bytes as they came over the wire. The API runs in this process, so
   * the reply is parsed only after the probes of /healthz stop (`read`): the test's own work is not the attack's.
   */
  async function sent(serverId: string, suffix: string, body: unknown = {}) {
    const reply = await fetch(`${world.stack.baseUrl}/projects/${world.org.projectId}/servers/${serverId}/${suffix}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: reply.status, raw: Buffer.from(await reply.arrayBuffer()) };
  }
  const read = ({ status, raw }: { status: number; raw: Buffer }) => ({
    status,
    bytes: raw.length,
    body: JSON.parse(raw.toString('utf8')),
  });
  const operation = async (serverId: string, suffix: string, body: unknown = {}) =>
    read(await sent(serverId, suffix, body));

  it('export of 20 pages x 5 MB answers 200 under the budget, truncated, and /healthz keeps its time', async () => {
    // A first call starts the server's process: the attack is measured on a warm session, like any later call.
    expect((await operation(huge, 'tools')).status).toBe(200);
    const baseline = await quietHealthzMs(world.stack.baseUrl);
    const { result, worstMs } = await healthzDuring(world.stack.baseUrl, () => sent(huge, 'export'));
    const reply = read(result);
    expect(reply.status, JSON.stringify(reply.body).slice(0, 500)).toBe(200);
    // x8: the SDK v2 client's reading of 5 MB pages costs the loop a little more than v1's did (x5.3-5.6 measured
    // against x5 before the migration); still far below an unbounded export.
    expectUnharmed('/healthz during the export', baseline, worstMs, 8);
    expect(reply.bytes).toBeLessThanOrEqual(limits.serverReplyBytes + ENVELOPE_BYTES);
    expect(reply.body.truncated).toMatchObject({ reason: 'REPLY_TOO_LARGE', limitBytes: limits.serverReplyBytes });
    expect(reply.body.truncated.lists).toContain('tools');
    // What fit came whole, in the server's order.
    expect(reply.body.tools.length).toBeGreaterThan(2);
    expect(reply.body.tools.slice(0, 2).map((t: { name: string }) => t.name)).toEqual(['flood', 'ping']);
    // The published reference still describes the reply: `truncated` is an additive field.
    expect(referenceErrors('ExportSnapshot', reply.body)).toEqual([]);
  });

  it('doctor lists every list within the budget too', async () => {
    const reply = await operation(huge, 'doctor');
    expect(reply.status).toBe(200);
    expect(reply.bytes).toBeLessThanOrEqual(limits.serverReplyBytes + 2 * ENVELOPE_BYTES);
    expect(reply.body.truncated).toMatchObject({ reason: 'REPLY_TOO_LARGE', limitBytes: limits.serverReplyBytes });
    expect(reply.body.checks.tools.status).toBe('ok');
  });

  it('a 10 MB tool result, prompt and resource answer 200, cut to the budget and marked truncated', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['tools/call', { toolName: 'flood' }, 'CallToolResult'],
      ['prompts/get', { promptName: 'flood' }, 'GetPromptResult'],
      ['resources/read', { uri: 'fixture://flood' }, 'ResourceContents'],
    ];
    for (const [suffix, body, reference] of cases) {
      const baseline = await quietHealthzMs(world.stack.baseUrl);
      const { result, worstMs } = await healthzDuring(world.stack.baseUrl, () => sent(huge, suffix, body));
      const reply = read(result);
      expect(reply.status, `${suffix}: ${JSON.stringify(reply.body).slice(0, 300)}`).toBe(200);
      expect(reply.bytes, suffix).toBeLessThanOrEqual(limits.serverReplyBytes + ENVELOPE_BYTES);
      expect(reply.body.truncated, suffix).toMatchObject({
        reason: 'REPLY_TOO_LARGE',
        limitBytes: limits.serverReplyBytes,
      });
      expect(reply.body.truncated.originalBytes, suffix).toBeGreaterThan(FLOOD_CHARS);
      expect(referenceErrors(reference, reply.body), suffix).toEqual([]);
      // Reading one message of 10 MB (within serverMessageBytes) is one JSON.parse and a large allocation, which the
      // budget cannot split: more room than for the export, still far below the x47 of an unbounded reply (x12 since
      // the SDK v2 client: x8-9.6 measured, against x8 before the migration).
      expectUnharmed(`/healthz during ${suffix}`, baseline, worstMs, 12);
    }
    // What is small stays whole, without the marker.
    const ping = await operation(huge, 'tools/call', { toolName: 'ping' });
    expect(ping.body).toEqual({ content: [{ type: 'text', text: 'pong' }] });
  });

  it('a single message past the transport limit is not read: 502 MESSAGE_TOO_LARGE, and the server is usable after', async () => {
    const http = await startHugeServer();
    try {
      const overHttp = await saveServer(world.stack.sql, world.stack.box, {
        projectId: world.org.projectId,
        name: 'huge-http',
        transportType: 'http',
        url: http.url,
      });
      for (const serverId of [huge, overHttp]) {
        const reply = await operation(serverId, 'tools/call', { toolName: 'beyond' });
        expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(502);
        expect(reply.body).toMatchObject({
          code: 'SERVER_UNREACHABLE',
          details: { reason: 'MESSAGE_TOO_LARGE', limitBytes: limits.serverMessageBytes },
        });
        expect((await operation(serverId, 'tools/call', { toolName: 'ping' })).body).toEqual({
          content: [{ type: 'text', text: 'pong' }],
        });
      }
    } finally {
      await http.close();
    }
  });

  it("an eval run calling a 10 MB tool stores each iteration's trace with a per-part cap, marked truncated, and another organization's run keeps its time", async () => {
    const { call, model, org, stack } = world;
    const bystander = await startBystander(stack, model);
    const baseline = await bystander.baselineMs();
    model.setScript('flooded-model', {
      byQuery: { 'flood me': [{ toolCalls: [{ name: 'flood', arguments: {} }] }, { text: 'flooded' }] },
    });
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Huge results',
      serverIds: [hugeForModel],
      model: 'flooded-model',
      tests: [
        { title: 'flood', query: 'flood me', provider: 'openai', runs: 4, expectedToolCalls: [{ toolName: 'flood' }] },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const runId: string = created.body.runId;
    const during = await bystander.runMs();
    const run = await waitForRun(call, org.projectId, runId, (r) => r.status !== 'running' && r.status !== 'pending');
    expect(run.status).toBe('completed');
    expectUnharmed("the other organization's run", baseline, during, 3, RUN_FLOOR_MS);
    const iterations = await allIterations(call, org.projectId, runId);
    expect(iterations).toHaveLength(4);
    for (const iteration of iterations) {
      expect(iteration.status, JSON.stringify(iteration.error)).toBe('completed');
      expect(iteration.result, JSON.stringify(iteration).slice(0, 3000)).toBe('passed');
      const reply = await call('GET', `/projects/${org.projectId}/eval-runs/${runId}/iterations/${iteration.id}/trace`);
      expect(reply.status).toBe(200);
      const trace = reply.body;
      const stored = Buffer.byteLength(JSON.stringify(trace));
      // one capped tool result, the prompts and spans: far below one 10 MB result
      expect(stored).toBeLessThan(4 * limits.tracePartBytes);
      expect(trace.truncated).toMatchObject({ limitBytesPerPart: limits.tracePartBytes, parts: 1 });
      // the cut trace is still an EvalTrace as the OpenAPI document declares it
      expect(traceSchema.safeParse(trace).error).toBeUndefined();
      const toolMessage = trace.messages.find((m: { role: string }) => m.role === 'tool');
      const part = toolMessage.content[0];
      expect(part.truncated.originalBytes).toBeGreaterThan(limits.tracePartBytes);
      expect(Buffer.byteLength(JSON.stringify(part))).toBeLessThanOrEqual(limits.tracePartBytes + 256);
    }
    const [row] = await stack.sql<{ bytes: number }[]>`
      SELECT max(octet_length(t.trace::text))::int AS bytes FROM eval_traces t
      JOIN eval_iterations i ON i.id = t.iteration_id WHERE i.run_id = ${runId}`;
    expect(row.bytes).toBeLessThan(4 * limits.tracePartBytes);
  });
});
