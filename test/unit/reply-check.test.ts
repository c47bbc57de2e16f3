import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../runtime/logger.js';
import { errorHandler } from '../../api/errors.js';
import { replyCheck, replyIssues, type ReplyValidation } from '../../api/replyCheck.js';
import { defineRoute, toHandler } from '../../api/route.js';

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
