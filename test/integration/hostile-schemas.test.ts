/**
 * Issue 27, finding 1: a server's tool schemas are compiled and run in the API process (case generation checks
 * drafted arguments against input schemas; the MCP SDK's Client checks structuredContent against output schemas).
 * A catastrophic pattern, a pattern no linear-time engine runs, $refs that visit a value 2^60 times and an $async
 * schema must neither stall the API for everybody nor fail the request: each draft is valid, invalid or uncheckable.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSavedServersByIds } from '../../db/servers.js';
import { openConnection } from '../../domain/mcp/connection.js';
import { resolveTimeouts } from '../../domain/mcp/timeouts.js';
import { SCHEMA_CHECK_MS } from '../../domain/untrustedSchema.js';
import { expectUnharmed, healthzDuring, healthzWorstMs, RUN_FLOOR_MS, startBystander } from '../helpers/fairness.js';
import { startEvalWorld, type EvalWorld } from '../helpers/evals.js';
import { fixtureOverStdio, saveServer } from '../helpers/mcpServers.js';

// A backtracking engine takes about 2.5^n steps on "a" x n + "!": seconds at 26, years at 40.
const HOSTILE = `${'a'.repeat(40)}!`;
const MAX_RATIO = 5;

/**
 * `request`'s result and the longest the event loop was held meanwhile. The API runs in this process, so this sees
 * every stall, where a /healthz probe sees one only when it is in flight at the time.
 */
async function withLongestStall<T>(request: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  try {
    const result = await request();
    return { result, stallMs: delay.max / 1e6 };
  } finally {
    delay.disable();
  }
}

/**
 * `attack`, ending a moment after it: healthzDuring reports the probes that finished before the attack did, and the
 * probe a stall delays is the one in flight when it ends.
 */
function thenSettle<T>(attack: () => Promise<T>): () => Promise<T> {
  return async () => {
    const result = await attack();
    await new Promise((resolve) => setTimeout(resolve, 100));
    return result;
  };
}

/**
 * /healthz and the longest stall of the event loop, during the hostile request against before it (and during the
 * same request on benign input). A schema that runs out of time holds the loop for one check's budget, by design:
 * stalls count from that floor.
 */
async function expectNoStall<T>(
  what: string,
  benign: () => Promise<unknown>,
  hostile: () => Promise<T>,
  origin: string,
): Promise<T> {
  const before = await withLongestStall(benign);
  const baseline = await healthzWorstMs(origin);
  const { result: during, worstMs } = await healthzDuring(
    origin,
    thenSettle(() => withLongestStall(hostile)),
  );
  expectUnharmed(`/healthz during ${what}`, baseline, worstMs, MAX_RATIO, SCHEMA_CHECK_MS);
  expectUnharmed(
    `the longest event-loop stall during ${what}`,
    before.stallMs,
    during.stallMs,
    MAX_RATIO,
    SCHEMA_CHECK_MS,
  );
  return during.result;
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
    const generate = (cases: unknown[]) => () => {
      world.model.setScript('gen-1', [{ text: JSON.stringify({ cases }) }]);
      return world.call('POST', `/projects/${world.org.projectId}/eval-suites/${suiteId}/cases/generate`, {
        count: 5,
      });
    };
    const benign = generate([1, 2, 3, 4].map((n) => draft(`Word ${n}`, 'match', { text: 'a'.repeat(n) })));
    // the first generation starts the server's session: the comparison is about the checks, not a child starting
    expect((await benign()).status).toBe(201);
    const reply = await expectNoStall(
      'case generation',
      benign,
      generate([
        draft('Hostile word', 'match', { text: HOSTILE }),
        draft('Long word', 'match', { text: 'a'.repeat(40) }),
        draft('Lookahead word', 'lookahead', { text: 'abc' }),
        draft('Nested value', 'nested', { value: 'x' }),
        draft('Async value', 'later', {}),
      ]),
      world.stack.origin,
    );
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
        error: expect.stringMatching(
          /^the input schema of nested cannot be checked \((checking|compiling) it takes more than/,
        ),
      },
      { title: 'Async value', error: expect.stringMatching(/^the input schema of later cannot be checked .*\$async/) },
    ]);
  });

  it("another organization's run keeps its time while case generation checks hostile drafts", async () => {
    const bystander = await startBystander(world.stack, world.model);
    const baseline = await bystander.baselineMs();
    world.model.setScript('gen-1', [
      { text: JSON.stringify({ cases: [1, 2, 3].map((n) => draft(`Hostile ${n}`, 'match', { text: HOSTILE })) }) },
    ]);
    const [generated, during] = await Promise.all([
      world.call('POST', `/projects/${world.org.projectId}/eval-suites/${suiteId}/cases/generate`, { count: 5 }),
      bystander.runMs(),
    ]);
    expect(generated.status, JSON.stringify(generated.body)).toBe(201);
    expect(generated.body.skipped).toHaveLength(3);
    expectUnharmed("the other organization's run", baseline, during, 3, RUN_FLOOR_MS);
  });

  it('tools/call of a tool whose output schema is hostile answers its result unchanged, without a stall', async () => {
    const shout = (parameters: Record<string, unknown>) => () =>
      world.call('POST', `/projects/${world.org.projectId}/servers/${serverId}/tools/call`, {
        toolName: 'shout',
        parameters,
      });
    expect((await shout({ length: 3, end: '' })()).status).toBe(200);
    const reply = await expectNoStall(
      'tools/call',
      shout({ length: 3, end: '' }),
      shout({ length: 40 }),
      world.stack.origin,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.structuredContent).toEqual({ text: HOSTILE });
  });

  it("the MCP SDK Client's own check of structuredContent against the output schema is linear too", async () => {
    const [server] = await getSavedServersByIds(world.stack.sql, world.stack.box, world.org.projectId, [serverId]);
    const connection = await openConnection({
      server,
      timeouts: resolveTimeouts(world.stack.config, null),
      dataDir: world.stack.config.DATA_DIR,
    });
    try {
      // client.listTools() makes a validator for each output schema; client.callTool() runs it
      const { tools } = await connection.client.listTools();
      expect(tools.map((t) => t.name)).toContain('shout');
      const shout = (args: Record<string, unknown>) => () =>
        connection.client.callTool({ name: 'shout', arguments: args }).then(
          (result) => result,
          (error: unknown) => error,
        );
      expect(await shout({ length: 3, end: '' })()).toMatchObject({ structuredContent: { text: 'aaa' } });
      const refused = await expectNoStall(
        'client.callTool',
        shout({ length: 3, end: '' }),
        shout({ length: 40 }),
        world.stack.origin,
      );
      expect(refused).toBeInstanceOf(ProtocolError);
      expect((refused as ProtocolError).message).toMatch(
        /does not match the tool's output schema: .*must match pattern/,
      );
    } finally {
      await connection.close();
    }
  });
});
