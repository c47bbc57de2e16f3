import http from 'node:http';
import type { Server } from 'node:http';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, type App } from '../../api/app.js';
import type { Db } from '../../db/connection.js';
import type { StreamState } from '../../api/eventStream.js';
import { evalRunSchema, iterationSchema } from '../../api/schemas/evals.js';
import { createLogger } from '../../runtime/logger.js';
import { allIterations, startEvalWorld, type EvalWorld } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { sampleResults } from '../helpers/ingest.js';
import { iterationsOf, readEvents } from '../helpers/runEvents.js';
import { seedOrganization } from '../helpers/seed.js';

describe('GET /eval-runs/{id}/events', () => {
  let world: EvalWorld;
  let p: string;
  const eventsUrl = (runId: string, base = world.stack.baseUrl) => `${base}/projects/${p}/eval-runs/${runId}/events`;
  const ingest = (suffix: string, body: unknown) => world.call('POST', `/projects/${p}/eval-ingest/${suffix}`, body);

  beforeAll(async () => {
    world = await startEvalWorld();
    p = world.org.projectId;
  });
  afterAll(async () => world?.stop());

  it('sends the run, every finished iteration once in order with an opaque id each, and `end`, then closes', async () => {
    const { call, model, serverId, org } = world;
    model.setScript('scripted-events', {
      byQuery: {
        'say one': [{ toolCalls: [{ name: 'echo', arguments: { message: 'one' } }], delayMs: 20 }, { text: 'ok' }],
        'say two': [{ toolCalls: [{ name: 'echo', arguments: { message: 'two' } }], delayMs: 20 }, { text: 'ok' }],
      },
    });
    const test = (title: string, query: string) => ({
      title,
      query,
      runs: 6,
      model: 'scripted-events',
      provider: 'openai',
      expectedToolCalls: [{ toolName: 'echo' }],
    });
    const started = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Events',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      concurrency: 4,
      tests: [test('one', 'say one'), test('two', 'say two')],
    });
    expect(started.status).toBe(202);
    const { runId } = started.body;

    const read = await readEvents(eventsUrl(runId), org.apiKey);
    expect(read.status).toBe(200);
    expect(read.headers.get('cache-control')).toContain('no-cache');
    const names = read.events.map((e) => e.event);
    expect(names[0]).toBe('run');
    expect(names.at(-1)).toBe('end');
    expect(names.filter((n) => n === 'end')).toHaveLength(1);

    // Every event's data is what the JSON routes answer: the run (EvalRun) and the iterations list's items.
    for (const [i, event] of read.events.entries()) {
      const schema = event.event === 'iteration' ? iterationSchema : evalRunSchema;
      expect(schema.safeParse(read.data[i]).success, `${event.event} event ${i}`).toBe(true);
    }

    const iterations = iterationsOf(read);
    // ids are sealed stream positions (api/eventIds.ts): opaque, one per iteration here (none committed late)
    const ids = iterations.map((e) => e.id!);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // each iteration exactly once: the same set as the iterations list
    const listed = await allIterations(call, p, runId);
    const streamed = iterations.map((e) => JSON.parse(e.data).id);
    expect(new Set(streamed).size).toBe(streamed.length);
    expect(streamed.toSorted()).toEqual(listed.map((i) => i.id).toSorted());
    expect(listed).toHaveLength(12);

    // progress only grows; the end is the run as GET answers it
    const runs = read.data.filter((_, i) => read.events[i].event === 'run');
    for (let i = 1; i < runs.length; i++)
      expect(runs[i].progress.completed).toBeGreaterThanOrEqual(runs[i - 1].progress.completed);
    const end = read.data.at(-1);
    expect(end).toMatchObject({ id: runId, status: 'completed', progress: { total: 12, completed: 12 } });
    expect(end).toEqual((await call('GET', `/projects/${p}/eval-runs/${runId}`)).body);

    // A reconnect after the 5th iteration gets the 7 after it (and the run, and its end), nothing before.
    const resumed = await readEvents(eventsUrl(runId), org.apiKey, { lastEventId: iterations[4].id });
    expect(resumed.events.map((e) => e.event)).toEqual(['run', ...Array(7).fill('iteration'), 'end']);
    expect(iterationsOf(resumed).map((e) => JSON.parse(e.data).id)).toEqual(streamed.slice(5));
  });

  it('follows a run live and resumes after Last-Event-ID with only the later iterations', async () => {
    const { org } = world;
    const start = await ingest('runs/start', { suiteName: 'Live events', externalRunId: 'live-1' });
    expect(start.status).toBe(200);
    const { runId } = start.body;
    const results = sampleResults(10, { prefix: 'live', cases: 2 });
    expect((await ingest('runs/iterations', { runId, results: results.slice(0, 4) })).status).toBe(200);

    // Open while the run is running: the 4 so far arrive, the stream stays open; the client leaves.
    const first = await readEvents(eventsUrl(runId), org.apiKey, {
      stop: (events) => events.filter((e) => e.event === 'iteration').length === 4,
    });
    expect(first.events[0].event).toBe('run');
    expect(first.data[0]).toMatchObject({ status: 'running', progress: { completed: 4 } });
    const seen = iterationsOf(first).map((e) => JSON.parse(e.data).externalIterationId);
    expect(seen).toEqual(['live-1', 'live-2', 'live-3', 'live-4']);

    // More arrive while it is away; it comes back with the last id it saw and reads to the end.
    expect((await ingest('runs/iterations', { runId, results: results.slice(4) })).status).toBe(200);
    const second = readEvents(eventsUrl(runId), org.apiKey, { lastEventId: iterationsOf(first).at(-1)!.id });
    await vi.waitFor(() => expect(world.stack.app.eventStreams.states()).toHaveLength(1));
    expect((await ingest('runs/finalize', { runId, externalRunId: 'live-1' })).status).toBe(200);
    const rest = await second;
    expect(iterationsOf(rest).map((e) => JSON.parse(e.data).externalIterationId)).toEqual(
      results.slice(4).map((r) => r.externalIterationId),
    );
    expect(rest.events.at(-1)!.event).toBe('end');
    expect(rest.data.at(-1)).toMatchObject({ status: 'completed', progress: { total: 10, completed: 10 } });
    expect(world.stack.app.eventStreams.states()).toHaveLength(0);
  });

  it('sends an iteration whose commit became visible after a later position, once', async () => {
    const { sql } = world.stack;
    const { runId } = (await ingest('runs/start', { suiteName: 'Late commits', externalRunId: 'late-1' })).body;
    // Two iterations finish at once; the one that took the earlier position commits last.
    await sql`INSERT INTO eval_iterations (id, run_id, title, iteration_number, status)
      VALUES ('itr_late_a', ${runId}, 'a', 1, 'pending'), ('itr_late_b', ${runId}, 'b', 1, 'pending')`;
    const finish = (db: Db, id: string) =>
      db<{ position: number }[]>`
        UPDATE eval_iterations SET status = 'completed', result = 'passed' WHERE id = ${id}
        RETURNING stream_position AS position`;

    let sawB!: () => void;
    const bSent = new Promise<void>((resolve) => (sawB = resolve));
    const reading = readEvents(eventsUrl(runId), world.org.apiKey, {
      onEvent: (e) => e.event === 'iteration' && JSON.parse(e.data).id === 'itr_late_b' && sawB(),
      stop: (events) => events.filter((e) => e.event === 'iteration').length === 2,
    });
    await vi.waitFor(() => expect(world.stack.app.eventStreams.states()).toHaveLength(1));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let positionA = 0;
    let tookA!: () => void;
    const aTook = new Promise<void>((resolve) => (tookA = resolve));
    const a = sql.begin(async (tx) => {
      positionA = (await finish(tx, 'itr_late_a'))[0].position;
      tookA();
      await held;
    });
    await aTook;
    const [{ position: positionB }] = await finish(sql, 'itr_late_b');
    expect(positionB).toBeGreaterThan(positionA);
    await bSent;
    release();
    await a;
    const read = await reading;
    const iterations = iterationsOf(read);
    expect(iterations.map((e) => JSON.parse(e.data).id)).toEqual(['itr_late_b', 'itr_late_a']);
    // the late one carries the highest position sent (b's), which a reconnect resumes after: b's id again
    expect(iterations[1].id).toBe(iterations[0].id);
    const resumed = await readEvents(eventsUrl(runId), world.org.apiKey, {
      lastEventId: iterations[1].id,
      stop: (events) => events.some((e) => e.event === 'run'),
    });
    expect(iterationsOf(resumed)).toEqual([]);
    expect((await ingest('runs/finalize', { runId, externalRunId: 'late-1' })).status).toBe(200);
  });

  it("answers 404 for another organization's run and 400 for a malformed Last-Event-ID, in the envelope", async () => {
    const report = await ingest('report', {
      suiteName: 'Mine',
      externalRunId: 'mine-1',
      results: sampleResults(2, { prefix: 'mine' }),
    });
    expect(report.status).toBe(200);
    const { runId } = report.body;
    expect((await readEvents(eventsUrl(runId), world.org.apiKey)).status).toBe(200);
    const other = await seedOrganization(world.stack.sql);
    const foreign = await readEvents(eventsUrl(runId), other.apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'NOT_FOUND' });
    // through its own default project too
    const viaDefault = await readEvents(
      `${world.stack.baseUrl}/projects/default/eval-runs/${runId}/events`,
      other.apiKey,
    );
    expect(viaDefault.status).toBe(404);

    for (const bad of ['abc', '-1', '1e5', '12 3', '9'.repeat(16), '1', '9007199254740991']) {
      const reply = await readEvents(eventsUrl(runId), world.org.apiKey, { lastEventId: bad });
      expect(reply.status, bad).toBe(400);
      expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { header: 'Last-Event-ID' } });
    }
    // HEAD answers the headers alone: no stream is opened
    const head = await fetch(eventsUrl(runId), {
      method: 'HEAD',
      headers: { authorization: `Bearer ${world.org.apiKey}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toContain('text/event-stream');
    expect(world.stack.app.eventStreams.states()).toHaveLength(0);
    const unauthenticated = await readEvents(eventsUrl(runId), 'sk_nope');
    expect(unauthenticated.status).toBe(401);
  });

  describe('GET /eval-runs/events?runIds= (several runs, without their iterations)', () => {
    const runsUrl = (runIds: string, base = world.stack.baseUrl) =>
      `${base}/projects/${p}/eval-runs/events?runIds=${runIds}`;

    it("sends each run's state, again when it changes and once when it ends, then `end` once all ended", async () => {
      const { org, call } = world;
      const startRun = async (externalRunId: string) =>
        (await ingest('runs/start', { suiteName: 'Several live', externalRunId })).body.runId as string;
      const a = await startRun('several-a');
      const results = sampleResults(6, { prefix: 'several-a', cases: 2 });
      expect((await ingest('runs/iterations', { runId: a, results: results.slice(0, 2) })).status).toBe(200);
      const finished = await ingest('report', {
        suiteName: 'Several done',
        externalRunId: 'several-b',
        results: sampleResults(3, { prefix: 'several-b' }),
      });
      expect(finished.status).toBe(200);
      const b: string = finished.body.runId;
      const c = await startRun('several-c');

      const events: { event: string; data: any }[] = [];
      const reading = readEvents(runsUrl(`${a},${b},${c},${a}`), org.apiKey, {
        onEvent: (e) => events.push({ event: e.event!, data: JSON.parse(e.data) }),
      });
      const statesOf = (runId: string) => events.filter((e) => e.event === 'run' && e.data.id === runId);
      // First each run as it is now: the finished one too (a client that reconnects learns of an end it missed).
      await vi.waitFor(() => expect(new Set(events.map((e) => e.data.id))).toEqual(new Set([a, b, c])));
      expect(statesOf(a)[0].data).toMatchObject({ status: 'running', progress: { completed: 2 } });
      expect(statesOf(b)).toHaveLength(1);
      expect(statesOf(b)[0].data).toEqual((await call('GET', `/projects/${p}/eval-runs/${b}`)).body);

      // Progress: a run event when it changed, none when it did not.
      expect((await ingest('runs/iterations', { runId: a, results: results.slice(2) })).status).toBe(200);
      await vi.waitFor(() => expect(statesOf(a).at(-1)!.data.progress.completed).toBe(6));
      expect(statesOf(c)).toHaveLength(1);

      // One run ends: its final state, and the stream goes on for the other.
      expect((await ingest('runs/finalize', { runId: a, externalRunId: 'several-a' })).status).toBe(200);
      await vi.waitFor(() => expect(statesOf(a).at(-1)!.data.status).toBe('completed'));
      expect(world.stack.app.eventStreams.states()).toHaveLength(1);
      expect(events.some((e) => e.event === 'end')).toBe(false);

      // The last one ends: its final state, `end`, and the server closes the stream.
      expect((await ingest('runs/finalize', { runId: c, externalRunId: 'several-c' })).status).toBe(200);
      const read = await reading;
      expect(read.status).toBe(200);
      expect(read.events.at(-1)!.event).toBe('end');
      expect(read.events.filter((e) => e.event === 'end')).toHaveLength(1);
      expect(read.events.every((e) => e.event === 'run' || e.event === 'end')).toBe(true);
      for (const event of events.filter((e) => e.event === 'run'))
        expect(evalRunSchema.safeParse(event.data).success, JSON.stringify(event.data)).toBe(true);
      for (const runId of [a, b, c]) {
        expect(statesOf(runId).at(-1)!.data).toEqual((await call('GET', `/projects/${p}/eval-runs/${runId}`)).body);
        // each state once: no event repeats the one before it
        const states = statesOf(runId).map((e) => JSON.stringify(e.data));
        expect(new Set(states).size, runId).toBe(states.length);
      }
      expect(world.stack.app.eventStreams.states()).toHaveLength(0);

      // Runs that ended already: their final states and `end` at once.
      const again = await readEvents(runsUrl(`${b},${c}`), org.apiKey);
      expect(again.events.map((e) => e.event)).toEqual(['run', 'run', 'end']);
      expect(again.data.slice(0, 2).map((r) => r.id)).toEqual([b, c]);
    });

    it('answers 400 for a missing or malformed runIds, 404 naming a run the project does not hold, 401 without a key', async () => {
      const { org } = world;
      const report = await ingest('report', {
        suiteName: 'Several refusals',
        externalRunId: 'several-refused',
        results: sampleResults(2, { prefix: 'several-refused' }),
      });
      const { runId } = report.body;
      const bad: [string, RegExp][] = [
        ['', /runIds/],
        [`${runId},`, /not a valid id/],
        [`${runId},a%20b`, /not a valid id/],
        [Array.from({ length: 101 }, (_, i) => `run_${i}`).join(','), /at most 100/],
      ];
      for (const [runIds, message] of bad) {
        const reply = await readEvents(runsUrl(runIds), org.apiKey);
        expect(reply.status, runIds).toBe(400);
        expect(reply.body, runIds).toMatchObject({ code: 'VALIDATION_ERROR' });
        expect(JSON.stringify(reply.body), runIds).toMatch(message);
      }
      const none = await readEvents(`${world.stack.baseUrl}/projects/${p}/eval-runs/events`, org.apiKey);
      expect(none.status).toBe(400);
      expect(JSON.stringify(none.body)).toMatch(/runIds/);

      const other = await seedOrganization(world.stack.sql);
      const otherRun = (
        await apiClient(world.stack.baseUrl, other.apiKey)('POST', `/projects/${other.projectId}/eval-ingest/report`, {
          suiteName: 'Theirs',
          externalRunId: 'theirs-1',
          results: sampleResults(1, { prefix: 'theirs' }),
        })
      ).body.runId;
      const foreign = await readEvents(runsUrl(`${runId},${otherRun},run_nope`), org.apiKey);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toMatchObject({ code: 'NOT_FOUND', details: { runIds: [otherRun, 'run_nope'] } });
      expect(world.stack.app.eventStreams.states()).toHaveLength(0);
      expect((await readEvents(runsUrl(runId), 'sk_nope')).status).toBe(401);
      // a run's own routes are still the run's
      expect((await world.call('GET', `/projects/${p}/eval-runs/${runId}`)).body).toMatchObject({ id: runId });
    });
  });

  describe('bounds', () => {
    let app: App;
    let server: Server;
    let base: string;
    beforeAll(async () => {
      const { stack } = world;
      // A second API process on the same database, with small bounds (the deps of createApp).
      app = createApp({
        ...stack.services,
        temporal: stack.temporal,
        config: stack.config,
        log: createLogger('silent'),
        eventStreamLimits: { perKey: 2, pollMs: 50, drainTimeoutMs: 1000, heartbeatMs: 200, maxLifetimeMs: 3000 },
      });
      server = app.express.listen(0, '127.0.0.1');
      await once(server, 'listening');
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1`;
    });
    afterAll(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    });

    it('refuses a key a stream beyond its cap with 429 RATE_LIMITED, and admits it again once one closes', async () => {
      const { runId } = (await ingest('runs/start', { suiteName: 'Capped', externalRunId: 'capped-1' })).body;
      const key = (await seedOrganization(world.stack.sql)).apiKey;
      const call = apiClient(base, key);
      // this key's organization cannot see the run; the cap is counted for the key that holds the streams
      expect((await call('GET', `/projects/${p}/eval-runs/${runId}/events`)).status).toBe(404);

      const open = () => {
        const abort = new AbortController();
        const reply = fetch(eventsUrl(runId, base), {
          headers: { authorization: `Bearer ${world.org.apiKey}` },
          signal: abort.signal,
        });
        return { abort, reply };
      };
      const a = open();
      const b = open();
      expect((await a.reply).status).toBe(200);
      expect((await b.reply).status).toBe(200);
      await vi.waitFor(() => expect(app.eventStreams.states()).toHaveLength(2));
      const third = await apiClient(base, world.org.apiKey)('GET', `/projects/${p}/eval-runs/${runId}/events`);
      expect(third.status).toBe(429);
      expect(third.body).toMatchObject({ code: 'RATE_LIMITED', details: { reason: 'TOO_MANY_STREAMS', limit: 2 } });
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      a.abort.abort();
      await vi.waitFor(() => expect(app.eventStreams.states()).toHaveLength(1));
      const again = open();
      expect((await again.reply).status).toBe(200);
      b.abort.abort();
      again.abort.abort();
      await vi.waitFor(() => expect(app.eventStreams.states()).toHaveLength(0));
      expect((await ingest('runs/finalize', { runId, externalRunId: 'capped-1' })).status).toBe(200);
    });

    it('counts a stream of several runs against the same cap', async () => {
      const { runId } = (await ingest('runs/start', { suiteName: 'Capped several', externalRunId: 'capped-2' })).body;
      const url = `${base}/projects/${p}/eval-runs/events?runIds=${runId}`;
      const aborts = [new AbortController(), new AbortController()];
      for (const abort of aborts) {
        const reply = await fetch(url, {
          headers: { authorization: `Bearer ${world.org.apiKey}` },
          signal: abort.signal,
        });
        expect(reply.status).toBe(200);
      }
      await vi.waitFor(() => expect(app.eventStreams.states()).toHaveLength(2));
      const third = await apiClient(base, world.org.apiKey)('GET', `/projects/${p}/eval-runs/events?runIds=${runId}`);
      expect(third.status).toBe(429);
      expect(third.body).toMatchObject({ code: 'RATE_LIMITED', details: { reason: 'TOO_MANY_STREAMS' } });
      for (const abort of aborts) abort.abort();
      await vi.waitFor(() => expect(app.eventStreams.states()).toHaveLength(0));
      expect((await ingest('runs/finalize', { runId, externalRunId: 'capped-2' })).status).toBe(200);
    });

    it('sends heartbeat comments and closes a stream at the end of its lifetime, without `end`', async () => {
      const { runId } = (await ingest('runs/start', { suiteName: 'Long', externalRunId: 'long-1' })).body;
      const closed = once(app.eventStreams, 'closed') as Promise<[StreamState]>;
      const comments: string[] = [];
      const read = await readEvents(eventsUrl(runId, base), world.org.apiKey, {
        onComment: (comment) => comments.push(comment),
      });
      expect(read.status).toBe(200);
      expect(read.events.map((e) => e.event)).toEqual(['run']);
      expect(comments.filter((c) => c.trim() === 'heartbeat').length).toBeGreaterThan(0);
      expect((await closed)[0].closed).toBe('lifetime');
      expect((await ingest('runs/finalize', { runId, externalRunId: 'long-1' })).status).toBe(200);
    });

    it('stops writing to a client that reads nothing, holds at most one event beyond the socket, and drops it', async () => {
      // ~10 MB of events: far more than the kernel's socket buffers hold for a client that never reads.
      const start = await ingest('runs/start', { suiteName: 'Unread', externalRunId: 'unread-1' });
      const { runId } = start.body;
      const padding = 'x'.repeat(5000);
      let total = 0;
      for (let chunk = 0; chunk < 10; chunk++) {
        const results = sampleResults(200, { prefix: `unread-${chunk}` }).map((r) => ({
          ...r,
          actualToolCalls: [{ toolName: 'echo', arguments: { message: padding } }],
        }));
        total += results.length * padding.length;
        expect((await ingest('runs/iterations', { runId, results })).status).toBe(200);
      }
      expect((await ingest('runs/finalize', { runId, externalRunId: 'unread-1' })).status).toBe(200);

      // The socket may fill and drain a few times while the kernel's buffers fill; the last wait is the one that lasts.
      const waits: StreamState[] = [];
      const onWait = (state: StreamState) => waits.push(state);
      app.eventStreams.on('waiting', onWait);
      const closed = once(app.eventStreams, 'closed') as Promise<[StreamState]>;
      // A client that reads nothing: the response is never consumed, so the socket stops being read.
      const request = http.get(eventsUrl(runId, base), { headers: { authorization: `Bearer ${world.org.apiKey}` } });
      const [response] = (await once(request, 'response')) as [http.IncomingMessage];
      expect(response.statusCode).toBe(200);
      response.pause();

      const [atClose] = await closed;
      app.eventStreams.off('waiting', onWait);
      const atWait = waits.at(-1)!;
      expect(atClose.closed).toBe('drain-timeout');
      // Nothing was written while the client did not read: not the rest of the run, not a heartbeat.
      expect(atClose.bytesWritten).toBe(atWait.bytesWritten);
      expect(atWait.bytesWritten).toBeLessThan(total / 2);
      // What this process held for the client: the socket's buffer plus at most the one event that overflowed it.
      expect(atWait.bytesBuffered).toBeLessThanOrEqual(64 * 1024 + 16 * 1024);
      expect(app.eventStreams.states()).toHaveLength(0);
      request.destroy();
    });
  });
});
