import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SecretBox } from '../../db/secretBox.js';
import { allIterations, startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import type { apiClient } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import type { ScriptedModelServer } from '../fixtures/model/server.js';
import type { SeededOrganization } from '../helpers/seed.js';
import type { TestStack } from '../helpers/stack.js';

const KEYS = { openai: 'sk-cases' };

describe("a suite's cases through the case routes", () => {
  let world: EvalWorld;
  let stack: TestStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;
  let suiteId: string;
  let cases: string;
  let echoCaseId: string;

  beforeAll(async () => {
    world = await startEvalWorld({ HOSTED_MODELS: 'openai/hosted-mini' });
    ({ stack, model, org, call, serverId } = world);
    const suite = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Cases',
      serverIds: [serverId],
      model: 'openai/hosted-mini',
      tests: [{ title: 'echo', query: 'echo hello', expectedToolCalls: ['echo'] }],
    });
    expect(suite.status).toBe(201);
    suiteId = suite.body.suiteId;
    echoCaseId = suite.body.caseUpsert.committed[0].id;
    cases = `/projects/${org.projectId}/eval-suites/${suiteId}/cases`;
  });
  afterAll(async () => world?.stop());

  const caseCount = async () =>
    (await stack.sql`SELECT count(*)::int AS n FROM eval_cases WHERE suite_id = ${suiteId} AND deleted_at IS NULL`)[0]
      .n as number;

  it("lists a suite's cases in the real product's shape", async () => {
    const reply = await call('GET', cases);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      items: [
        {
          id: echoCaseId,
          suiteId,
          title: 'echo',
          kind: 'prompt',
          prompt: 'echo hello',
          expectedToolCalls: [{ toolName: 'echo' }],
          iterations: 1,
          isNegative: false,
          models: [],
          createdAt: expect.any(Number),
          updatedAt: expect.any(Number),
        },
      ],
    });
  });

  it("adds a case written in the real product's names or in Runway's, and stores match options in the scorer's form", async () => {
    const publicNames = await call('POST', cases, {
      kind: 'prompt',
      title: 'sum',
      prompt: 'add 1 and 2',
      expectedToolCalls: [{ toolName: 'get-sum', arguments: { a: 1, b: 2 } }],
      expectedOutput: '3',
      scenario: 'adding',
      iterations: 2,
      isNegative: false,
      models: [{ model: 'scripted-cases', provider: 'openai' }],
      matchOptions: { toolCallOrder: 'in-order', extraToolCalls: 0, arguments: 'exact' },
    });
    expect(publicNames.status, JSON.stringify(publicNames.body)).toBe(201);
    expect(publicNames.body).toEqual({
      id: expect.stringMatching(/^case_/),
      suiteId,
      title: 'sum',
      kind: 'prompt',
      prompt: 'add 1 and 2',
      expectedToolCalls: [{ toolName: 'get-sum', arguments: { a: 1, b: 2 } }],
      expectedOutput: '3',
      scenario: 'adding',
      iterations: 2,
      isNegative: false,
      models: [{ model: 'scripted-cases', provider: 'openai' }],
      matchOptions: { toolCallOrder: 'in-order', extraToolCalls: 0, arguments: 'exact' },
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const [stored] =
      await stack.sql`SELECT match_options, runs, query, model, provider FROM eval_cases WHERE id = ${publicNames.body.id}`;
    expect(stored).toEqual({
      match_options: { toolCallOrder: 'superset', maxExtraToolCalls: 0, argumentMatching: 'exact' },
      runs: 2,
      query: 'add 1 and 2',
      model: 'scripted-cases',
      provider: 'openai',
    });
    expect((await call('GET', `${cases}/${publicNames.body.id}`)).body).toEqual(publicNames.body);

    const runwayNames = await call('POST', cases, {
      title: 'quiet',
      query: 'say nothing',
      runs: 3,
      isNegativeTest: true,
      model: 'scripted-cases',
      provider: 'openai',
      matchOptions: { maxExtraToolCalls: 1 },
      advancedConfig: { system: 'be brief' },
    });
    expect(runwayNames.status).toBe(201);
    expect(runwayNames.body).toMatchObject({
      prompt: 'say nothing',
      iterations: 3,
      isNegative: true,
      models: [{ model: 'scripted-cases', provider: 'openai' }],
      matchOptions: { extraToolCalls: 1 },
      advancedConfig: { system: 'be brief' },
      expectedToolCalls: [],
    });
    // One field under both names, with the same value, is fine.
    const both = await call('POST', cases, {
      title: 'both',
      prompt: 'p',
      query: 'p',
      iterations: 2,
      runs: 2,
      models: [{ model: 'm' }],
      model: 'm',
    });
    expect(both).toMatchObject({ status: 201, body: { prompt: 'p', iterations: 2, models: [{ model: 'm' }] } });
  });

  it('refuses a case that cannot be stored as it was meant, and writes nothing', async () => {
    const before = await caseCount();
    const refusals: [string, Record<string, unknown>, string][] = [
      ['prompt and query differ', { title: 't', prompt: 'a', query: 'b' }, 'body.query'],
      ['iterations and runs differ', { title: 't', prompt: 'a', iterations: 1, runs: 2 }, 'body.runs'],
      [
        'isNegative and isNegativeTest differ',
        { title: 't', prompt: 'a', isNegative: true, isNegativeTest: false },
        'body.isNegativeTest',
      ],
      ['models and model differ', { title: 't', prompt: 'a', models: [{ model: 'x' }], model: 'y' }, 'body.model'],
      [
        'eleven models',
        { title: 't', prompt: 'a', models: Array.from({ length: 11 }, (_, i) => ({ model: `m${i}` })) },
        'body.models',
      ],
      ['another kind', { title: 't', prompt: 'a', kind: 'widget_probe' }, 'body.kind'],
      ['no prompt', { title: 't' }, 'body.prompt'],
      ['no title', { prompt: 'a' }, 'body.title'],
      ['11 iterations', { title: 't', prompt: 'a', iterations: 11 }, 'body.iterations'],
      [
        'match options that disagree',
        { title: 't', prompt: 'a', matchOptions: { extraToolCalls: 'unlimited', allowExtraToolCalls: false } },
        'body.matchOptions.allowExtraToolCalls',
      ],
    ];
    for (const [what, body, path] of refusals) {
      const reply = await call('POST', cases, body);
      expect(reply.status, what).toBe(400);
      expect(
        reply.body.details.issues.map((i: { path: string }) => i.path),
        what,
      ).toContain(path);
    }
    const misspelt = await call('POST', cases, { title: 't', promt: 'a' });
    expect(misspelt.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'UNKNOWN_FIELD', issues: [{ path: 'body.promt', hint: 'did you mean `prompt`?' }] },
    });
    const unknownOption = await call('POST', cases, { title: 't', prompt: 'a', matchOptions: { order: 'any' } });
    expect(unknownOption.body).toMatchObject({
      details: { reason: 'UNKNOWN_FIELD', issues: [{ path: 'body.matchOptions.order' }] },
    });
    const conflict = await call('POST', cases, { title: 't', prompt: 'a', query: 'b' });
    expect(conflict.body.message).toContain('`prompt` and `query` are one field under two names');
    expect(await caseCount()).toBe(before);
  });

  it('a case with the title and prompt of another case of the suite is refused (400 DUPLICATE_CASE), on POST and PATCH', async () => {
    const duplicate = await call('POST', cases, { title: 'echo', prompt: 'echo hello' });
    expect(duplicate).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', details: { reason: 'DUPLICATE_CASE', caseId: echoCaseId } },
    });
    expect(duplicate.body.message).toContain('title + prompt');
    const sibling = await call('POST', cases, { title: 'echo', prompt: 'echo goodbye' });
    expect(sibling.status).toBe(201);
    const clash = await call('PATCH', `${cases}/${sibling.body.id}`, { prompt: 'echo hello' });
    expect(clash).toMatchObject({ status: 400, body: { details: { reason: 'DUPLICATE_CASE', caseId: echoCaseId } } });
    expect((await call('GET', `${cases}/${sibling.body.id}`)).body.prompt).toBe('echo goodbye');
    // Its own title and prompt again is no clash.
    expect((await call('PATCH', `${cases}/${sibling.body.id}`, { title: 'echo', prompt: 'echo goodbye' })).status).toBe(
      200,
    );
  });

  it("warns about expected tools the suite's servers do not list, and never refuses the case", async () => {
    const typo = await call('POST', cases, { title: 'typo', prompt: 'sum it', expectedToolCalls: ['get-summ'] });
    expect(typo.status).toBe(201);
    expect(typo.body.warnings).toEqual([
      {
        reason: 'UNKNOWN_TOOL',
        toolName: 'get-summ',
        testTitle: 'typo',
        message: 'no tool `get-summ` on the selected servers (did you mean `get-sum`?)',
      },
    ]);
    const edited = await call('PATCH', `${cases}/${typo.body.id}`, { expectedToolCalls: [{ toolName: 'ech0' }] });
    expect(edited.body.warnings).toEqual([
      expect.objectContaining({ toolName: 'ech0', message: expect.stringContaining('did you mean `echo`?') }),
    ]);
    const fixed = await call('PATCH', `${cases}/${typo.body.id}`, { expectedToolCalls: ['echo'] });
    expect(fixed.status).toBe(200);
    expect(fixed.body).not.toHaveProperty('warnings');
  });

  it("no warning is looked for while a suite's server is disabled, and its secrets stay sealed then", async () => {
    const sealed = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'sealed',
      transportType: 'http',
      url: 'http://127.0.0.1:9/mcp',
      headers: { 'x-api-key': 'sealed' },
    });
    const suite = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Sealed',
      serverIds: [sealed],
      model: 'openai/hosted-mini',
      tests: [{ title: 'first', query: 'q' }],
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const sealedCases = `/projects/${org.projectId}/eval-suites/${suite.body.suiteId}/cases`;
    const enable = (enabled: boolean) => stack.sql`UPDATE servers SET enabled = ${enabled} WHERE id = ${sealed}`;
    const opened = vi.spyOn(SecretBox.prototype, 'decrypt');
    try {
      await enable(false);
      const added = await call('POST', sealedCases, {
        title: 'while off',
        prompt: 'q',
        expectedToolCalls: ['anything'],
      });
      expect(added.status).toBe(201);
      expect(added.body).not.toHaveProperty('warnings');
      expect(opened).not.toHaveBeenCalled();
      await enable(true);
      expect(
        (await call('POST', sealedCases, { title: 'while on', prompt: 'q', expectedToolCalls: ['anything'] })).status,
      ).toBe(201);
      expect(opened).toHaveBeenCalled();
    } finally {
      opened.mockRestore();
    }
  });

  it('PATCH changes the fields given and null clears; DELETE removes a case; unknown ids are 404', async () => {
    const created = await call('POST', cases, {
      title: 'editable',
      prompt: 'before',
      expectedOutput: 'x',
      scenario: 's',
      models: [{ model: 'm', provider: 'openai' }],
      matchOptions: { toolCallOrder: 'exact' },
    });
    const path = `${cases}/${created.body.id}`;
    const edited = await call('PATCH', path, {
      prompt: 'after',
      iterations: 4,
      isNegative: true,
      expectedOutput: null,
      scenario: null,
      models: [],
      matchOptions: null,
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).toEqual({
      id: created.body.id,
      suiteId,
      title: 'editable',
      kind: 'prompt',
      prompt: 'after',
      expectedToolCalls: [],
      iterations: 4,
      isNegative: true,
      models: [],
      createdAt: created.body.createdAt,
      updatedAt: expect.any(Number),
    });
    expect((await call('PATCH', path, { model: 'other' })).body.models).toEqual([{ model: 'other' }]);
    expect((await call('PATCH', path, { runs: 2, iterations: 3 })).status).toBe(400);

    for (const [method, target] of [
      ['GET', `${cases}/case_unknown`],
      ['PATCH', `${cases}/case_unknown`],
      ['DELETE', `${cases}/case_unknown`],
      ['GET', `/projects/${org.projectId}/eval-suites/sui_unknown/cases`],
    ]) {
      const reply = await call(method, target, method === 'PATCH' ? { title: 'x' } : undefined);
      expect(reply.status, `${method} ${target}`).toBe(404);
    }

    expect(await call('DELETE', path)).toMatchObject({ status: 200, body: { id: created.body.id, deleted: true } });
    expect((await call('GET', path)).status).toBe(404);
    expect((await call('PATCH', path, { title: 'x' })).status).toBe(404);
    expect((await call('DELETE', path)).status).toBe(404);
    expect((await call('GET', cases)).body.items.map((c: { id: string }) => c.id)).not.toContain(created.body.id);
    // Its title and prompt are free again.
    const reborn = await call('POST', cases, { title: 'editable', prompt: 'after' });
    expect(reborn.status).toBe(201);
    expect(reborn.body.id).not.toBe(created.body.id);
  });

  it('runs use the cases as edited; a run scores with public-vocabulary options; past runs stay whole after cases are edited or deleted', async () => {
    model.setScript('scripted-cases', {
      byQuery: {
        'two calls': [
          {
            toolCalls: [
              { name: 'echo', arguments: { message: 'x' } },
              { name: 'get-sum', arguments: { a: 1, b: 2 } },
            ],
          },
          { text: 'done' },
        ],
      },
    });
    const common = {
      query: 'two calls',
      model: 'scripted-cases',
      provider: 'openai',
      expectedToolCalls: [{ toolName: 'echo' }],
    };
    const first = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Scored',
      serverIds: [serverId],
      modelApiKeys: KEYS,
      tests: [
        { ...common, title: 'no extras', matchOptions: { extraToolCalls: 0 } },
        { ...common, title: 'extras fine', matchOptions: { extraToolCalls: 'unlimited', toolCallOrder: 'in-order' } },
      ],
    });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const { suiteId: scored, runId } = first.body;
    const [noExtras, extrasFine] = first.body.caseUpsert.committed.map((c: { id: string }) => c.id);
    await waitForRun(call, org.projectId, runId);
    const before = await allIterations(call, org.projectId, runId);
    expect(before.map((i) => [i.title, i.testCaseId, i.result])).toEqual([
      ['no extras', noExtras, 'failed'],
      ['extras fine', extrasFine, 'passed'],
    ]);
    const failedTrace = await call(
      'GET',
      `/projects/${org.projectId}/eval-runs/${runId}/iterations/${before[0].id}/trace`,
    );
    expect(failedTrace.body.prompts[0]).toMatchObject({
      passed: false,
      unexpected: [expect.objectContaining({ toolName: 'get-sum' })],
    });

    const scoredCases = `/projects/${org.projectId}/eval-suites/${scored}/cases`;
    expect(
      (
        await call('PATCH', `${scoredCases}/${noExtras}`, {
          title: 'extras allowed now',
          matchOptions: { allowExtraToolCalls: true },
        })
      ).status,
    ).toBe(200);
    expect((await call('DELETE', `${scoredCases}/${extrasFine}`)).status).toBe(200);

    const rerun = await call('POST', `/projects/${org.projectId}/eval-runs`, { suiteId: scored, modelApiKeys: KEYS });
    expect(rerun.status).toBe(202);
    expect(await waitForRun(call, org.projectId, rerun.body.runId)).toMatchObject({
      status: 'completed',
      result: 'passed',
      summary: { total: 1, passed: 1 },
    });
    const after = await allIterations(call, org.projectId, rerun.body.runId);
    expect(after.map((i) => [i.title, i.testCaseId, i.result])).toEqual([['extras allowed now', noExtras, 'passed']]);

    // The first run reads as it did: same iterations, case ids, results and traces.
    expect(await allIterations(call, org.projectId, runId)).toEqual(before);
    expect((await call('GET', `/projects/${org.projectId}/eval-runs/${runId}`)).body).toMatchObject({
      status: 'completed',
      summary: { total: 2, passed: 1, failed: 1 },
    });
    const deletedCaseTrace = await call(
      'GET',
      `/projects/${org.projectId}/eval-runs/${runId}/iterations/${before[1].id}/trace`,
    );
    expect(deletedCaseTrace).toMatchObject({ status: 200, body: { prompts: [{ passed: true }] } });
  });
});
