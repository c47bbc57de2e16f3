import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { templateConfig } from '../../api/hostTemplates.js';
import { findOrCreateSuiteByName } from '../../db/evalSuites.js';
import { createHost } from '../../db/hosts.js';
import { SecretBox } from '../../db/secretBox.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import type { apiClient } from '../helpers/http.js';
import { everythingOverStdio, saveServer } from '../helpers/mcpServers.js';
import { referenceErrors } from '../helpers/referenceDocument.js';
import type { ScriptedModelServer } from '../fixtures/model/server.js';
import type { SeededOrganization } from '../helpers/seed.js';
import type { TestStack } from '../helpers/stack.js';

const KEYS = { openai: 'sk-manage' };

describe('managing eval suites: names, detail, edit, delete', () => {
  let world: EvalWorld;
  let stack: TestStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;
  let project: string;

  beforeAll(async () => {
    world = await startEvalWorld({ HOSTED_MODELS: 'openai/hosted-mini', MAX_CONCURRENT_RUNS: '5' });
    ({ stack, model, org, call, serverId } = world);
    project = `/projects/${org.projectId}`;
    model.setScript('hosted-mini', [{ text: 'nothing to do' }]);
  });
  afterAll(async () => world?.stop());

  const negative = { title: 'quiet', query: 'say nothing', isNegativeTest: true };
  const suiteBody = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    serverIds: [serverId],
    model: 'openai/hosted-mini',
    tests: [negative],
    ...extra,
  });
  const newSuite = async (name: string, extra: Record<string, unknown> = {}) => {
    const reply = await call('POST', `${project}/eval-suites`, suiteBody(name, extra));
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.suiteId as string;
  };
  const rowCounts = async () =>
    (
      await stack.sql`SELECT (SELECT count(*) FROM eval_suites)::int AS suites, (SELECT count(*) FROM eval_cases)::int AS cases`
    )[0];

  it('names are not unique: POST /eval-suites and POST /eval-runs with a suiteName make another suite each time', async () => {
    const first = await newSuite('Twice');
    const again = await call('POST', `${project}/eval-suites`, suiteBody('Twice'));
    expect(again.status).toBe(201);
    expect(referenceErrors('EvalSuiteCreated', again.body)).toEqual([]);
    const second = again.body.suiteId;
    expect(second).not.toBe(first);
    const list = await call('GET', `${project}/eval-suites`);
    expect(referenceErrors('EvalSuitePage', list.body)).toEqual([]);
    const listed = list.body.items.filter((s: { name: string }) => s.name === 'Twice');
    expect(listed.map((s: { id: string }) => s.id)).toEqual([first, second]);

    const run = () =>
      call('POST', `${project}/eval-runs`, {
        suiteName: 'Run twice',
        serverIds: [serverId],
        tests: [{ ...negative, model: 'openai/hosted-mini' }],
      });
    const [a, b] = [await run(), await run()];
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.body.suiteId).not.toBe(b.body.suiteId);
    for (const r of [a, b])
      expect(await waitForRun(call, org.projectId, r.body.runId)).toMatchObject({ status: 'completed', runNumber: 1 });

    // 409 is no longer an answer of suite creation for a name, in the document either: its only 409 is the
    // Idempotency-Key's (a key reused with another request), declared with that header as on every creating POST.
    const document = (await call('GET', '/openapi.json')).body;
    const post = document.paths['/projects/{projectId}/eval-suites'].post;
    expect(
      post.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name),
    ).toEqual(['Idempotency-Key']);
    expect(JSON.stringify(post.responses['409'])).toMatch(/CONFLICT/);
    expect(JSON.stringify(post.responses['409'])).not.toMatch(/name/i);
  });

  it('POST /eval-suites requires name, serverIds (1 or more), model and 1 to 100 tests; nothing is written otherwise', async () => {
    const before = await rowCounts();
    const { name: _name, serverIds: _servers, model: _model, tests: _tests, ...none } = suiteBody('x');
    const refusals: [string, Record<string, unknown>, string][] = [
      ['no name', { ...none, serverIds: [serverId], model: 'openai/hosted-mini', tests: [negative] }, 'body.name'],
      ['no serverIds', { ...none, name: 'x', model: 'openai/hosted-mini', tests: [negative] }, 'body.serverIds'],
      ['empty serverIds', suiteBody('x', { serverIds: [] }), 'body.serverIds'],
      ['no model', { ...none, name: 'x', serverIds: [serverId], tests: [negative] }, 'body.model'],
      ['no tests', { ...none, name: 'x', serverIds: [serverId], model: 'openai/hosted-mini' }, 'body.tests'],
      ['empty tests', suiteBody('x', { tests: [] }), 'body.tests'],
      [
        '101 tests',
        suiteBody('x', { tests: Array.from({ length: 101 }, (_, i) => ({ ...negative, title: `t${i}` })) }),
        'body.tests',
      ],
    ];
    for (const [what, body, path] of refusals) {
      const reply = await call('POST', `${project}/eval-suites`, body);
      expect(reply.status, what).toBe(400);
      expect(reply.body.code, what).toBe('VALIDATION_ERROR');
      expect(reply.body.details.issues[0].path, what).toBe(path);
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('GET /eval-suites/{s} gives the suite detail; a suite without a description has null', async () => {
    const host = await createHost(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'claude',
      template: 'claude',
      config: templateConfig('claude'),
    });
    const suiteId = await newSuite('Detailed', {
      description: 'what it checks',
      passCriteria: { minimumPassRate: 80 },
      hostId: host.id,
    });
    const reply = await call('GET', `${project}/eval-suites/${suiteId}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      id: suiteId,
      name: 'Detailed',
      description: 'what it checks',
      projectId: org.projectId,
      environment: { servers: ['everything'] },
      executionConfig: { model: 'openai/hosted-mini', systemPrompt: null, temperature: null },
      hosts: [],
      settings: { passCriteria: { minimumPassRate: 80 }, isolation: 'per-iteration' },
      isolation: 'per-iteration',
      schedule: {
        enabled: false,
        intervalMinutes: null,
        temporalScheduleId: null,
        lastRunId: null,
        lastRunAt: null,
        lastSkipped: null,
      },
      serverIds: [serverId],
      passCriteria: { minimumPassRate: 80 },
      hostId: host.id,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const plain = await call('GET', `${project}/eval-suites/${await newSuite('Plain')}`);
    expect(plain.body).toMatchObject({ description: null, hostId: null });
    expect((await call('GET', `${project}/eval-suites/sui_unknown`)).status).toBe(404);
  });

  it('PATCH /eval-suites/{s} edits name, description, servers, model, pass criteria and host; runs started later use them', async () => {
    const other = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'everything too',
      ...everythingOverStdio(),
    });
    const host = await createHost(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'cursor',
      template: 'cursor',
      config: templateConfig('cursor'),
    });
    const suiteId = await newSuite('Editable', { description: 'before' });
    const before = (await call('GET', `${project}/eval-suites/${suiteId}`)).body;

    const edited = await call('PATCH', `${project}/eval-suites/${suiteId}`, {
      name: 'Edited',
      description: null,
      serverIds: [other],
      model: null,
      passCriteria: { minimumPassRate: 0 },
      hostId: host.id,
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).toMatchObject({
      id: suiteId,
      name: 'Edited',
      description: null,
      serverIds: [other],
      environment: { servers: ['everything too'] },
      executionConfig: null,
      passCriteria: { minimumPassRate: 0 },
      hostId: host.id,
      createdAt: before.createdAt,
    });
    expect(edited.body.updatedAt).toBeGreaterThanOrEqual(before.updatedAt);
    expect((await call('GET', `${project}/eval-suites/${suiteId}`)).body).toEqual(edited.body);
    // The fields not given stay; null clears the host.
    const again = await call('PATCH', `${project}/eval-suites/${suiteId}`, {
      model: 'openai/hosted-mini',
      hostId: null,
    });
    expect(again.body).toMatchObject({
      name: 'Edited',
      serverIds: [other],
      executionConfig: { model: 'openai/hosted-mini' },
      hostId: null,
      passCriteria: { minimumPassRate: 0 },
    });

    const run = await call('POST', `${project}/eval-runs`, { suiteId });
    expect(run.status, JSON.stringify(run.body)).toBe(202);
    expect(run.body.servers).toEqual([{ id: other, name: 'everything too' }]);
    expect(await waitForRun(call, org.projectId, run.body.runId)).toMatchObject({
      status: 'completed',
      passCriteria: { minimumPassRate: 0 },
      hostId: null,
    });
  });

  it('PATCH checks the servers it selects (missing 404, disabled 400) without opening any secret', async () => {
    const suiteId = await newSuite('Selecting');
    const secretive = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'secretive',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
      headers: { 'x-api-key': 'sealed' },
    });
    const off = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'switched off',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
      enabled: false,
    });
    const patch = (serverIds: string[]) => call('PATCH', `${project}/eval-suites/${suiteId}`, { serverIds });
    const opened = vi.spyOn(SecretBox.prototype, 'decrypt');
    try {
      expect(await patch([secretive, 'srv_gone'])).toMatchObject({
        status: 404,
        body: { code: 'NOT_FOUND', details: { serverIds: ['srv_gone'] } },
      });
      expect(await patch([secretive, off])).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_ERROR', details: { reason: 'SERVER_DISABLED', serverIds: [off] } },
      });
      expect(await patch([secretive, secretive])).toMatchObject({
        status: 200,
        body: { serverIds: [secretive], environment: { servers: ['secretive'] } },
      });
      expect(opened).not.toHaveBeenCalled();
    } finally {
      opened.mockRestore();
    }
  });

  it('PATCH refuses what it cannot apply, and changes nothing then', async () => {
    const suiteId = await newSuite('Guarded');
    const before = (await call('GET', `${project}/eval-suites/${suiteId}`)).body;
    const patch = (body: unknown) => call('PATCH', `${project}/eval-suites/${suiteId}`, body);
    expect(await patch({ serverIds: [] })).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
    expect(await patch({ name: '' })).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
    expect(await patch({ serverIds: ['srv_unknown'] })).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await patch({ hostId: 'host_unknown' })).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await patch({ nmae: 'x' })).toMatchObject({
      status: 400,
      body: { details: { reason: 'UNKNOWN_FIELD', issues: [{ hint: 'did you mean `name`?' }] } },
    });
    expect(await patch({ passCriteria: { minimumPassRate: 101 } })).toMatchObject({ status: 400 });
    expect((await call('GET', `${project}/eval-suites/${suiteId}`)).body).toEqual(before);
    expect((await call('PATCH', `${project}/eval-suites/sui_unknown`, { name: 'x' })).status).toBe(404);
  });

  it('DELETE is refused while a run runs; then the suite is gone from every suite read and its runs stay readable', async () => {
    model.setScript('slow-manage', {
      byQuery: { fast: [{ text: 'quick' }], slow: [{ text: 'late', delayMs: 120_000 }] },
    });
    const slow = { model: 'slow-manage', provider: 'openai', isNegativeTest: true };
    const started = await call('POST', `${project}/eval-runs`, {
      suiteName: 'Doomed',
      serverIds: [serverId],
      modelApiKeys: KEYS,
      tests: [
        { ...slow, title: 'fast', query: 'fast' },
        { ...slow, title: 'slow', query: 'slow' },
      ],
    });
    expect(started.status).toBe(202);
    const { runId, suiteId } = started.body;
    await waitForRun(call, org.projectId, runId, (r) => r.progress.completed === 1);

    const refused = await call('DELETE', `${project}/eval-suites/${suiteId}`);
    expect(refused).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', details: { reason: 'SUITE_HAS_RUNNING_RUNS', suiteId, runIds: [runId] } },
    });
    expect(refused.body.message).toContain(`cancel it (POST /eval-runs/${runId}/cancel)`);
    expect((await call('GET', `${project}/eval-suites/${suiteId}`)).status).toBe(200);

    expect((await call('POST', `${project}/eval-runs/${runId}/cancel`)).status).toBe(202);
    await waitForRun(call, org.projectId, runId, undefined, 20_000);
    const deleted = await call('DELETE', `${project}/eval-suites/${suiteId}`);
    expect(deleted).toMatchObject({ status: 200, body: { id: suiteId, deleted: true } });

    // Gone from every suite read, and it cannot be run or edited.
    for (const [method, path, body] of [
      ['GET', `/eval-suites/${suiteId}`],
      ['PATCH', `/eval-suites/${suiteId}`, { name: 'x' }],
      ['DELETE', `/eval-suites/${suiteId}`],
      ['GET', `/eval-suites/${suiteId}/runs`],
      ['GET', `/eval-suites/${suiteId}/cases`],
      ['POST', `/eval-suites/${suiteId}/cases`, { title: 't', prompt: 'p' }],
      ['POST', '/eval-runs', { suiteId }],
    ] as [string, string, unknown?][]) {
      const reply = await call(method, `${project}${path}`, body);
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body.code).toBe('NOT_FOUND');
    }
    expect((await call('GET', `${project}/eval-suites`)).body.items.map((s: { id: string }) => s.id)).not.toContain(
      suiteId,
    );

    // Its run, iterations and traces are kept and readable.
    expect((await call('GET', `${project}/eval-runs/${runId}`)).body).toMatchObject({
      id: runId,
      suiteId,
      status: 'cancelled',
      summary: { total: 1, passed: 1 },
    });
    const iterations = await allIterations(call, org.projectId, runId);
    expect(iterations.map((i) => [i.title, i.status])).toEqual([
      ['fast', 'completed'],
      ['slow', 'cancelled'],
    ]);
    const trace = await call('GET', `${project}/eval-runs/${runId}/iterations/${iterations[0].id}/trace`);
    expect(trace).toMatchObject({ status: 200, body: { traceVersion: 1 } });
    const [row] = await stack.sql`SELECT deleted_at FROM eval_suites WHERE id = ${suiteId}`;
    expect(row.deleted_at).toBeInstanceOf(Date);
  });

  it('ingest keeps reporting into one suite per name: the same report twice is one run, concurrent reporters of a new name meet in one suite', async () => {
    const report = (suiteName: string, externalRunId: string) =>
      call('POST', `${project}/eval-ingest/report`, {
        suiteName,
        externalRunId,
        results: [{ caseTitle: 'c', query: 'q', passed: true }],
      });
    const first = await report('Reported', 'r1');
    const again = await report('Reported', 'r1');
    expect(again.body).toMatchObject({ runId: first.body.runId, suiteId: first.body.suiteId });
    expect((await report('Reported', 'r2')).body.suiteId).toBe(first.body.suiteId);
    const named =
      await stack.sql`SELECT count(*)::int AS n FROM eval_suites WHERE project_id = ${org.projectId} AND name = 'Reported'`;
    expect(named[0].n).toBe(1);

    // The newest live suite of the name takes reports; once it is deleted, the one before it.
    const authored = await newSuite('Reported');
    expect((await report('Reported', 'r3')).body.suiteId).toBe(authored);
    expect((await call('DELETE', `${project}/eval-suites/${authored}`)).status).toBe(200);
    expect((await report('Reported', 'r4')).body.suiteId).toBe(first.body.suiteId);

    const racing = await Promise.all(Array.from({ length: 6 }, (_, i) => report('Racing names', `race-${i}`)));
    expect(racing.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(new Set(racing.map((r) => r.body.suiteId)).size).toBe(1);
  });

  it('two reporters of one new name: the second waits for the first and reports into its suite', async () => {
    const input = { projectId: org.projectId, name: 'Serialized', source: 'sdk' };
    let second: Promise<string> | undefined;
    const first = await stack.sql.begin(async (tx) => {
      const suite = await findOrCreateSuiteByName(tx, input);
      second = stack.sql.begin(async (other) => (await findOrCreateSuiteByName(other, input)).id);
      // The second waits on the name's lock while the first has not committed.
      const deadline = Date.now() + 10_000;
      for (let waiting = 0; waiting === 0;) {
        if (Date.now() > deadline) throw new Error('the second reporter never waited for the first');
        [{ waiting }] = await stack.sql<
          { waiting: number }[]
        >`SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
      }
      return suite.id;
    });
    expect(await second).toBe(first);
  });

  it('GET /eval-suites/{s}/runs clamps limit to 1..100 (default 25) rather than refusing it', async () => {
    const suiteId = await newSuite('Run often');
    for (let i = 0; i < 3; i++) {
      const run = await call('POST', `${project}/eval-runs`, { suiteId });
      expect(run.status).toBe(202);
      await waitForRun(call, org.projectId, run.body.runId);
    }
    const count = async (query: string) => {
      const reply = await call('GET', `${project}/eval-suites/${suiteId}/runs${query}`);
      expect(reply.status, query).toBe(200);
      expect(referenceErrors('EvalRunPage', reply.body)).toEqual([]);
      return reply.body.items.map((r: { runNumber: number }) => r.runNumber);
    };
    expect(await count('')).toEqual([3, 2, 1]);
    expect(await count('?limit=2')).toEqual([3, 2]);
    expect(await count('?limit=0')).toEqual([3]);
    expect(await count('?limit=-7')).toEqual([3]);
    expect(await count('?limit=1000')).toEqual([3, 2, 1]);
    expect(await count('?limit=2.9')).toEqual([3, 2]);
    expect(await count('?limit=abc')).toEqual([3, 2, 1]);
  });
});
