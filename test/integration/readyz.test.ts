import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/http.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/**
 * GET /readyz (api/health.ts): Postgres and Temporal gate readiness, as probes have always relied on; whether a
 * worker polls the task queue is reported beside them, and gates readiness only for a caller that asks
 * (`?require=worker`: npm start before it prints its address). docs/OPERATIONS.md, "Health and readiness".
 */
describe('GET /readyz', () => {
  let stack: TestStack;
  let probe: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    stack = await startTestStack({ worker: false });
    probe = apiClient(stack.origin);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('reports that no worker polls the task queue, and stays ready for probes that do not ask for one', async () => {
    expect(await probe('GET', '/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { postgres: 'ok', temporal: 'ok', worker: 'no_worker' } },
    });
  });

  it('with ?require=worker: not ready until a worker polls the task queue, then ready', async () => {
    expect(await probe('GET', '/readyz?require=worker')).toMatchObject({
      status: 503,
      body: { status: 'not_ready', checks: { postgres: 'ok', temporal: 'ok', worker: 'no_worker' } },
    });
    await stack.startWorker();
    let reply = await probe('GET', '/readyz?require=worker');
    for (let i = 0; reply.status !== 200 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 200));
      reply = await probe('GET', '/readyz?require=worker');
    }
    expect(reply).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { postgres: 'ok', temporal: 'ok', worker: 'ok' } },
    });
    expect((await probe('GET', '/readyz')).body.checks.worker).toBe('ok');
  });

  it('names a require value it does not know', async () => {
    expect(await probe('GET', '/readyz?require=workers')).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', message: expect.stringContaining('require') },
    });
  });
});
