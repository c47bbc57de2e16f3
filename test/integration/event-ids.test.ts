import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient } from '../helpers/http.js';
import { sampleResults } from '../helpers/ingest.js';
import { iterationsOf, readEvents } from '../helpers/runEvents.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** What an `id:` of an iteration event is: an opaque token, nothing a number can be read from. */
const OPAQUE_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * Issue 27, finding 9: the `id:` of iteration events was a position of one counter for the whole installation, so
 * the gaps between one tenant's ids told it how many iterations everybody else finished meanwhile. Ids are sealed
 * now: opaque, bound to their run, and still what Last-Event-ID resumes after.
 */
describe('event ids of two organizations’ interleaved runs', () => {
  let stack: TestStack;
  const tenants: { org: SeededOrganization; call: ReturnType<typeof apiClient>; runId: string }[] = [];
  const eventsUrl = (tenant: (typeof tenants)[number], runId = tenant.runId) =>
    `${stack.baseUrl}/projects/${tenant.org.projectId}/eval-runs/${runId}/events`;
  const ingest = (tenant: (typeof tenants)[number], suffix: string, body: unknown) =>
    tenant.call('POST', `/projects/${tenant.org.projectId}/eval-ingest/${suffix}`, body);

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    for (const name of ['mine', 'theirs']) {
      const org = await seedOrganization(stack.sql);
      const call = apiClient(stack.baseUrl, org.apiKey);
      const start = await call('POST', `/projects/${org.projectId}/eval-ingest/runs/start`, {
        suiteName: name,
        externalRunId: `${name}-1`,
      });
      expect(start.status).toBe(200);
      tenants.push({ org, call, runId: start.body.runId });
    }
    // Interleaved: one of mine, then a varying number of theirs, five times.
    const [mine, theirs] = tenants;
    const results = sampleResults(5, { prefix: 'mine' });
    for (const [i, result] of results.entries()) {
      expect((await ingest(mine, 'runs/iterations', { runId: mine.runId, results: [result] })).status).toBe(200);
      const burst = sampleResults(10 * (i + 1), { prefix: `theirs-${i}` });
      expect((await ingest(theirs, 'runs/iterations', { runId: theirs.runId, results: burst })).status).toBe(200);
    }
  }, 60_000);
  afterAll(async () => stack?.stop());

  it('gives each iteration an opaque id, distinct, that says nothing of the other organization’s volume', async () => {
    const [mine] = tenants;
    const read = await readEvents(eventsUrl(mine), mine.org.apiKey, {
      stop: (events) => events.filter((e) => e.event === 'iteration').length >= 5,
    });
    const ids = iterationsOf(read).map((e) => e.id!);
    expect(ids).toHaveLength(5);
    for (const id of ids) expect(id, 'an iteration event id').toMatch(OPAQUE_ID);
    expect(new Set(ids).size).toBe(5);
    // No number in them: not the position, not a difference of positions.
    for (const id of ids) expect(Number.isNaN(Number(id)), id).toBe(true);
  });

  it('resumes after an id with each later iteration once, and refuses ids of another run or bare positions', async () => {
    const [mine, theirs] = tenants;
    const first = await readEvents(eventsUrl(mine), mine.org.apiKey, {
      stop: (events) => events.filter((e) => e.event === 'iteration').length >= 2,
    });
    const seen = iterationsOf(first);
    expect(seen.map((e) => JSON.parse(e.data).externalIterationId).slice(0, 2)).toEqual(['mine-1', 'mine-2']);

    // Back after the second: the third to fifth come, once each.
    const resumed = readEvents(eventsUrl(mine), mine.org.apiKey, { lastEventId: seen[1].id });
    await vi.waitFor(() => expect(stack.app.eventStreams.states()).toHaveLength(1));
    expect((await ingest(mine, 'runs/finalize', { runId: mine.runId, externalRunId: 'mine-1' })).status).toBe(200);
    const rest = await resumed;
    expect(iterationsOf(rest).map((e) => JSON.parse(e.data).externalIterationId)).toEqual([
      'mine-3',
      'mine-4',
      'mine-5',
    ]);
    expect(rest.events.at(-1)!.event).toBe('end');
    // the same id resumes the same way every time (a finished run: to its end)
    const again = await readEvents(eventsUrl(mine), mine.org.apiKey, { lastEventId: seen[1].id });
    expect(iterationsOf(again).map((e) => e.id)).toEqual(iterationsOf(rest).map((e) => e.id));

    // Their ids mean nothing on my run, and a bare number is no id of ours.
    const theirRead = await readEvents(eventsUrl(theirs), theirs.org.apiKey, {
      stop: (events) => events.filter((e) => e.event === 'iteration').length >= 1,
    });
    const theirId = iterationsOf(theirRead)[0].id!;
    for (const bad of [theirId, '1', '12345', `${seen[1].id!.slice(0, -1)}A`]) {
      if (bad === seen[1].id) continue;
      const reply = await readEvents(eventsUrl(mine), mine.org.apiKey, { lastEventId: bad });
      expect(reply.status, bad).toBe(400);
      expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { header: 'Last-Event-ID' } });
    }
  });
});
