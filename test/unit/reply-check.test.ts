import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../runtime/logger.js';
import { errorHandler } from '../../api/errors.js';
import { replyCheck, replyIssues, type ReplyValidation } from '../../api/replyCheck.js';
import { AlternateReply, alternateReply, defineRoute, toHandler, type AlternateResponse } from '../../api/route.js';

const run = z.object({
  id: z.string(),
  runNumber: z.number(),
  summary: z.object({ total: z.number() }).catchall(z.unknown()).nullable(),
  tool: z.looseObject({ name: z.string() }),
  metadata: z.record(z.string(), z.string()).optional(),
  items: z.array(z.object({ id: z.string() })),
});

const good = {
  id: 'run_1',
  runNumber: 1,
  summary: { total: 2, passAtK: { k: 1 } },
  tool: { name: 'echo', _meta: {} },
  metadata: { a: 'b' },
  items: [{ id: 'i' }],
};

describe('replyIssues', () => {
  it('accepts a reply its schema describes, open objects and records keeping their extra keys', () => {
    expect(replyIssues(run, good)).toEqual([]);
  });

  it('reports a missing or mistyped field with its path', () => {
    const { runNumber: _, ...missing } = good;
    expect(replyIssues(run, missing)).toEqual([expect.objectContaining({ path: ['runNumber'], code: 'invalid_type' })]);
    expect(replyIssues(run, { ...good, items: [{ id: 7 }] })).toEqual([
      expect.objectContaining({ path: ['items', 0, 'id'] }),
    ]);
  });

  it('reports a field a closed object does not describe, which zod alone would drop silently', () => {
    expect(replyIssues(run, { ...good, externalIterationId: 'x', items: [{ id: 'i', extra: 1 }] })).toEqual([
      { code: 'unrecognized_keys', path: [], message: 'not in the response schema: externalIterationId' },
      { code: 'unrecognized_keys', path: ['items', 0], message: 'not in the response schema: extra' },
    ]);
  });

  it('checks the reply as the client receives it: JSON, without undefined fields, dates as strings', () => {
    expect(replyIssues(run, { ...good, metadata: undefined })).toEqual([]);
    expect(replyIssues(run, { ...good, runNumber: new Date(0) })).toEqual([
      expect.objectContaining({ path: ['runNumber'] }),
    ]);
  });
});

describe('REPLY_VALIDATION on a route', () => {
  const logs: string[] = [];
  const log = createLogger(
    'info',
    new Writable({ write: (chunk, _enc, done) => void (logs.push(String(chunk)), done()) }),
  );
  let reply: unknown = good;
  const route = defineRoute({
    method: 'get',
    path: '/runs/:runId',
    tag: 'Evals',
    summary: 'a run',
    params: z.object({ runId: z.string() }),
    response: run,
    errors: [],
    handler: async () => reply as z.input<typeof run>,
  });
  const servers: ReturnType<express.Express['listen']>[] = [];
  const origins = {} as Record<ReplyValidation, string>;

  beforeAll(async () => {
    for (const mode of ['off', 'log', 'strict'] as const) {
      const app = express();
      app.get(route.path, toHandler(route, replyCheck(mode, log)));
      app.use(errorHandler(log));
      const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
      servers.push(server);
      origins[mode] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  const get = async (mode: ReplyValidation) => {
    const res = await fetch(`${origins[mode]}/runs/run_1`);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('strict: a reply off its schema is a 500 naming the route and the issues, and is logged so', async () => {
    reply = { ...good, runNumber: '1', surprise: true };
    logs.length = 0;
    const answer = await get('strict');
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({
      code: 'INTERNAL_ERROR',
      details: {
        reason: 'REPLY_SCHEMA_MISMATCH',
        route: 'GET /runs/:runId',
        issues: [expect.objectContaining({ path: 'runNumber', code: 'invalid_type' })],
      },
    });
    const line = logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'reply does not match its response schema');
    expect(line).toMatchObject({
      level: 50,
      route: 'GET /runs/:runId',
      issues: [expect.objectContaining({ path: 'runNumber' })],
    });
  });

  it('strict: a reply its schema describes is sent unchanged', async () => {
    reply = good;
    expect(await get('strict')).toEqual({ status: 200, body: good });
  });

  it('log: the reply is sent and the mismatch logged as a warning; off: nothing is checked', async () => {
    reply = { ...good, surprise: true };
    logs.length = 0;
    expect(await get('log')).toEqual({ status: 200, body: reply });
    expect(logs.map((l) => JSON.parse(l))).toContainEqual(
      expect.objectContaining({
        level: 40,
        route: 'GET /runs/:runId',
        issues: [expect.objectContaining({ code: 'unrecognized_keys' })],
      }),
    );
    logs.length = 0;
    expect(await get('off')).toEqual({ status: 200, body: reply });
    expect(logs).toEqual([]);
  });
});

describe('a route with an alternate success reply (POST /eval-runs with dryRun: 200 and an estimate)', () => {
  const log = createLogger('silent');
  const created = z.object({ runId: z.string() });
  const estimate = z.object({ dryRun: z.literal(true), iterations: z.number() });
  const estimated: AlternateResponse<typeof estimate> = {
    status: 200,
    description: 'the estimate',
    response: estimate,
  };
  let answer: z.input<typeof created> | AlternateReply = { runId: 'run_1' };
  const route = defineRoute({
    method: 'post',
    path: '/runs',
    tag: 'Evals',
    summary: 'start a run',
    status: 202,
    response: created,
    alternates: [estimated],
    errors: [],
    handler: async () => answer,
  });
  let server: ReturnType<express.Express['listen']>;
  let origin: string;

  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.post(route.path, toHandler(route, replyCheck('strict', log)));
    app.use(errorHandler(log));
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  const post = async () => {
    const res = await fetch(`${origin}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('sends the main reply with the main status, and an alternate with its own status and schema', async () => {
    answer = { runId: 'run_1' };
    expect(await post()).toEqual({ status: 202, body: { runId: 'run_1' } });
    answer = alternateReply(estimated, { dryRun: true, iterations: 6 });
    expect(await post()).toEqual({ status: 200, body: { dryRun: true, iterations: 6 } });
  });

  it("holds an alternate to its own schema, not the main one's, and refuses a status the route does not declare", async () => {
    answer = new AlternateReply(200, { runId: 'run_1' });
    const wrong = await post();
    expect(wrong.status).toBe(500);
    // the alternate's schema: the main reply's fields are not what it describes
    expect(wrong.body.details.issues.map((i: { path: string }) => i.path)).toEqual(['dryRun', 'iterations']);
    answer = new AlternateReply(201, { dryRun: true, iterations: 1 });
    const undeclared = await post();
    expect(undeclared.status).toBe(500);
    expect(undeclared.body.details.issues).toEqual([
      { code: 'undeclared_status', path: '', message: 'status 201 is not a declared success reply' },
    ]);
  });
});
