/**
 * Issue 27, finding 1: a server's tool schemas are compiled and run in the API process (case generation checks
 * drafted arguments against input schemas; the MCP SDK's Client checks structuredContent against output schemas).
 * A catastrophic pattern, a pattern no linear-time engine runs, and $refs that visit a value 2^60 times must
 * neither stall the API for everybody nor fail the request: each draft is found valid, invalid or uncheckable.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSavedServersByIds } from '../../db/servers.js';
import { openConnection } from '../../domain/mcp/connection.js';
import { resolveTimeouts } from '../../domain/mcp/timeouts.js';
import { expectUnharmed, healthzDuring, healthzWorstMs } from '../helpers/fairness.js';
import { startEvalWorld, type EvalWorld } from '../helpers/evals.js';
import { fixtureOverStdio, saveServer } from '../helpers/mcpServers.js';

// A backtracking engine takes about 2.5^n steps on "a" x n + "!": seconds at 26, years at 40.
const HOSTILE = `${'a'.repeat(40)}!`;
const MAX_RATIO = 5;
// /healthz can miss a stall that begins while its prober sleeps between probes: the attack's own time, against the
// same request on benign input, cannot. Below this many milliseconds a request counts as this many.
const REQUEST_FLOOR_MS = 250;

/** The result of `request` and how long it took. */
async function timed<T>(request: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await request();
  return { result, ms: performance.now() - started };
}

const draft = (title: string, toolName: string, args: Record<string, unknown>) => ({
  title,
  query: `${title}: use ${toolName}`,
  isNegative: false,
  expectedToolCalls: [{ toolName, arguments: args }],
});

describe('a server whose tool schemas attack the validator', () => {
  let world: EvalWorld;
  let serverId: string;
  let suiteId: string;

  beforeAll(async () => {
    world = await startEvalWorld();
    serverId = await saveServer(world.stack.sql, world.stack.box, {
      projectId: world.org.projectId,
      name: 'hostile-schemas',
      ...fixtureOverStdio('hostile-schemas'),
    });
    const created = await world.call('POST', `/projects/${world.org.projectId}/eval-suites`, {
      name: 'Hostile schemas',
      serverIds: [serverId],
      model: 'gen-1',
      provider: 'openai',
      tests: [{ title: 'Anything', query: 'Say hello', expectedToolCalls: [] }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    suiteId = created.body.suiteId;
  });
  afterAll(async () => world?.stop());

  it('case generation checks the drafts in linear time and answers normally; /healthz keeps its time', async () => {
    const generate = (cases: unknown[]) => {
      world.model.setScript('gen-1', [{ text: JSON.stringify({ cases }) }]);
      return timed(() =>
        world.call('POST', `/projects/${world.org.projectId}/eval-suites/${suiteId}/cases/generate`, { count: 5 }),
      );
    };
    // the same request on benign drafts first: it also starts the server's session
    const benign = await generate([1, 2, 3, 4].map((n) => draft(`Word ${n}`, 'match', { text: 'a'.repeat(n) })));
    expect(benign.result.status, JSON.stringify(benign.result.body)).toBe(201);
    const baseline = await healthzWorstMs(world.stack.origin);
    const { result: hostile, worstMs } = await healthzDuring(world.stack.origin, () =>
      generate([
        draft('Hostile word', 'match', { text: HOSTILE }),
        draft('Long word', 'match', { text: 'a'.repeat(40) }),
        draft('Lookahead word', 'lookahead', { text: 'abc' }),
        draft('Nested value', 'nested', { value: 'x' }),
        draft('Async value', 'later', {}),
      ]),
    );
    const reply = hostile.result;
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body.created.map((c: { title: string }) => c.title)).toEqual(['Long word']);
    expect(reply.body.skipped).toEqual([
      {
        title: 'Hostile word',
        error: expect.stringMatching(/^arguments of match do not match its input schema: \/text must match pattern/),
      },
      {
        title: 'Lookahead word',
        error: expect.stringMatching(/^the input schema of lookahead cannot be checked \(the pattern .* linear-time/),
      },
      {
        title: 'Nested value',
        error: expect.stringMatching(/^the input schema of nested cannot be checked \(checking it takes more than/),
      },
      { title: 'Async value', error: expect.stringMatching(/^the input schema of later cannot be checked .*\$async/) },
    ]);
    expectUnharmed('/healthz during case generation', baseline, worstMs, MAX_RATIO);
    expectUnharmed('case generation on hostile drafts', benign.ms, hostile.ms, MAX_RATIO, REQUEST_FLOOR_MS);
  });

  it('tools/call of a tool whose output schema is hostile answers its result unchanged, without a stall', async () => {
    const call = () =>
      world.call('POST', `/projects/${world.org.projectId}/servers/${serverId}/tools/call`, {
        toolName: 'shout',
        parameters: { length: 40 },
      });
    const benign = await timed(() =>
      world.call('POST', `/projects/${world.org.projectId}/servers/${serverId}/tools/call`, {
        toolName: 'shout',
        parameters: { length: 3, end: '' },
      }),
    );
    expect(benign.result.status).toBe(200);
    const baseline = await healthzWorstMs(world.stack.origin);
    const { result: hostile, worstMs } = await healthzDuring(world.stack.origin, () => timed(call));
    expect(hostile.result.status).toBe(200);
    expect(hostile.result.body.structuredContent).toEqual({ text: HOSTILE });
    expectUnharmed('/healthz during tools/call', baseline, worstMs, MAX_RATIO);
    expectUnharmed('tools/call of a hostile result', benign.ms, hostile.ms, MAX_RATIO, REQUEST_FLOOR_MS);
  });

  it("the MCP SDK Client's own check of structuredContent against the output schema is linear too", async () => {
    const [server] = await getSavedServersByIds(world.stack.sql, world.stack.box, world.org.projectId, [serverId]);
    const connection = await openConnection({
      server,
      timeouts: resolveTimeouts(world.stack.config, null),
      dataDir: world.stack.config.DATA_DIR,
    });
    try {
      // client.listTools() compiles a validator for each output schema; client.callTool() runs it
      const { tools } = await connection.client.listTools();
      expect(tools.map((t) => t.name)).toContain('shout');
      const benign = await timed(() =>
        connection.client.callTool({ name: 'shout', arguments: { length: 3, end: '' } }),
      );
      expect(benign.result.structuredContent).toEqual({ text: 'aaa' });
      const baseline = await healthzWorstMs(world.stack.origin);
      const { result: hostile, worstMs } = await healthzDuring(world.stack.origin, () =>
        timed(() =>
          connection.client.callTool({ name: 'shout', arguments: { length: 40 } }).then(
            () => undefined,
            (error: unknown) => error,
          ),
        ),
      );
      expect(hostile.result).toBeInstanceOf(McpError);
      expect((hostile.result as McpError).message).toMatch(
        /does not match the tool's output schema: .*must match pattern/,
      );
      expectUnharmed('/healthz during client.callTool', baseline, worstMs, MAX_RATIO);
      expectUnharmed('client.callTool on a hostile result', benign.ms, hostile.ms, MAX_RATIO, REQUEST_FLOOR_MS);
    } finally {
      await connection.close();
    }
  });
});
