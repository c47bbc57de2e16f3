import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultyServer, type FaultyFixture } from '../fixtures/mcp/faulty.js';
import { startGuardedServer, type GuardedFixture } from '../fixtures/mcp/guarded.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { saveServer } from '../helpers/mcpServers.js';

/** An eval iteration against a server that answers with an error, or refuses our credentials: not an outage. */
describe('eval iterations against servers that say no', () => {
  let world: EvalWorld;
  let listFails: FaultyFixture;
  let guarded: GuardedFixture;

  beforeAll(async () => {
    [world, listFails, guarded] = await Promise.all([
      startEvalWorld(),
      startFaultyServer({ listFails: true }),
      startGuardedServer({ advertise: 'none' }),
    ]);
  });
  afterAll(async () => {
    await world?.stop();
    await Promise.all([listFails?.close(), guarded?.close()]);
  });

  it.each([
    ['a JSON-RPC error', 'SERVER_ERROR', 'answered with an error: tool index unavailable'],
    ['a 401 from a server without OAuth', 'SERVER_REFUSED_CREDENTIALS', 'Missing bearer token'],
  ])('%s is recorded as a failed iteration with the reason at once, not retried', async (_label, reason, words) => {
    const { stack, org, call } = world;
    const url = reason === 'SERVER_ERROR' ? listFails.url : guarded.url;
    const serverId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: `says-no-${reason}`,
      transportType: 'http',
      url,
    });
    const listed = () => (reason === 'SERVER_ERROR' ? listFails.stats.toolLists : guarded.stats.handshakeAttempts);
    const before = listed();
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: `says no: ${reason}`,
      serverIds: [serverId],
      modelApiKeys: { openai: 'sk-run' },
      tests: [
        { title: 'lists tools', query: 'anything', model: 'scripted-none', provider: 'openai', isNegativeTest: true },
      ],
    });
    expect(created.status).toBe(202);
    const run = await waitForRun(call, org.projectId, created.body.runId);
    expect(run).toMatchObject({ status: 'completed', result: 'failed', summary: { total: 1, failed: 0, errored: 1 } });
    const [iteration] = await allIterations(call, org.projectId, created.body.runId);
    expect(iteration).toMatchObject({ status: 'failed', error: expect.stringContaining(words) });
    const [row] = await stack.sql<
      { error_details: unknown }[]
    >`SELECT error_details FROM eval_iterations WHERE id = ${iteration.id}`;
    expect(row.error_details).toEqual({
      code: 'SERVER_UNREACHABLE',
      reason,
      attempt: 1,
      ...(reason === 'SERVER_REFUSED_CREDENTIALS' && { status: 401 }),
    });
    expect(run.summary.errored).toBe(1);
    // Asked once: an outage would have been retried (with backoff) up to the last attempt.
    expect(listed() - before).toBe(1);
  });
});
