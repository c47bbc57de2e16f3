import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultEventStreamLimits } from '../../api/eventStream.js';
import { removeMembership, revokeApiKey } from '../../db/accounts.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** An open events stream, read as the console reads it; `ended` resolves with every event once the server closes. */
async function openEvents(url: string, key: string) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
  expect(response.status).toBe(200);
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { events, at: performance.now() };
      parser.feed(decoder.decode(value, { stream: true }));
    }
  })();
  return { events, ended, cancel: () => reader.cancel() };
}

/**
 * Issue 27, finding 8: a key revoked (or whose user left the organization) while it holds an events stream kept the
 * stream, and so the run's events, until the run ended (up to the stream's 10-minute lifetime). The stream checks
 * its key every few seconds now and ends, saying why, once the key can no longer act.
 */
describe('an events stream whose key stops being usable', () => {
  let stack: TestStack;
  const checkMs = defaultEventStreamLimits.keyCheckMs;

  beforeAll(async () => {
    stack = await startTestStack({ worker: false });
  });
  afterAll(async () => stack?.stop());

  /** An organization with a running (reported, never finalized) run and a stream open on it. */
  async function streamOnRunningRun(org: SeededOrganization, name: string) {
    const call = apiClient(stack.baseUrl, org.apiKey);
    const start = await call('POST', `/projects/${org.projectId}/eval-ingest/runs/start`, {
      suiteName: name,
      externalRunId: `${name}-1`,
    });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const stream = await openEvents(
      `${stack.baseUrl}/projects/${org.projectId}/eval-runs/${start.body.runId}/events`,
      org.apiKey,
    );
    await vi.waitFor(() => expect(stream.events.map((e) => e.event)).toContain('run'));
    return stream;
  }

  /** Waits for the stream to end, at most `checkMs` and some slack (a poll, a loaded machine) after `since`. */
  async function endsSoon(stream: Awaited<ReturnType<typeof streamOnRunningRun>>, since: number) {
    const limit = checkMs + 3_000;
    const timeout = new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), limit));
    const outcome = await Promise.race([stream.ended, timeout]);
    if (outcome === 'still open') await stream.cancel();
    expect(outcome, `the stream was still open ${limit} ms after the key stopped being usable`).not.toBe('still open');
    const { events, at } = outcome as Awaited<typeof stream.ended>;
    expect(at - since).toBeLessThan(limit);
    return events;
  }

  it('ends within the check interval once the key is revoked, with an `error` event saying why', async () => {
    const org = await seedOrganization(stack.sql);
    const stream = await streamOnRunningRun(org, 'Revoked');
    const revokedAt = performance.now();
    expect((await revokeApiKey(stack.sql, org.keyId)).status).toBe('revoked');
    const events = await endsSoon(stream, revokedAt);
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({
      code: 'UNAUTHORIZED',
      message: expect.stringContaining('revoked'),
      details: { reason: 'KEY_REVOKED' },
    });
    expect(events.map((e) => e.event)).not.toContain('end');
    await vi.waitFor(() => expect(stack.app.eventStreams.states()).toHaveLength(0));
  }, 30_000);

  it("ends within the check interval once the key's user leaves the organization", async () => {
    const org = await seedOrganization(stack.sql);
    const stream = await streamOnRunningRun(org, 'Orphaned');
    const leftAt = performance.now();
    await removeMembership(stack.sql, org.organizationId, org.userId);
    const events = await endsSoon(stream, leftAt);
    expect(events.at(-1)!.event).toBe('error');
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({
      code: 'UNAUTHORIZED',
      details: { reason: 'ORPHANED_KEY' },
    });
  }, 30_000);

  it('keeps the stream of a key that stays usable open past the check interval', async () => {
    const org = await seedOrganization(stack.sql);
    const stream = await streamOnRunningRun(org, 'Kept');
    const early = await Promise.race([
      stream.ended.then(() => 'ended'),
      new Promise((resolve) => setTimeout(() => resolve('open'), checkMs * 2)),
    ]);
    expect(early).toBe('open');
    await stream.cancel();
  }, 30_000);
});
