import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setProviderKey } from '../../db/providerKeys.js';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { saveServer } from '../helpers/mcpServers.js';
import { freePort } from '../helpers/ports.js';

/**
 * What run creation tells a user before anything runs (issue 20 items 8 and 14): which model key a run uses (the
 * run's own for a provider when it brings one, else the organization's), what to do when there is none, valid
 * providers for a misspelt one, and expected tools that none of the servers has.
 */
describe('eval run creation: model keys, providers, expected tools', () => {
  let world: EvalWorld;

  beforeAll(async () => {
    // The world's organization has an `openai` key (`org-key`) pointing at the scripted model server.
    world = await startEvalWorld({ HOSTED_MODELS: 'openai/hosted-mini anthropic/claude-hosted' });
    await setProviderKey(world.stack.sql, world.stack.box, {
      organizationId: world.org.organizationId,
      provider: 'openai-compatible',
      apiKey: 'compat-org',
      baseUrl: world.model.url,
    });
    // Warm the stdio server's connection in the API process, so listing its tools at run creation is quick.
    expect(
      (await world.call('POST', `/projects/${world.org.projectId}/servers/${world.serverId}/tools`, {})).status,
    ).toBe(200);
  });
  afterAll(async () => world?.stop());

  const newRun = (body: Record<string, unknown>) =>
    world.call('POST', `/projects/${world.org.projectId}/eval-runs`, { serverIds: [world.serverId], ...body });
  /** Starts a run and says which keys the scripted model saw for the model id during it. */
  const keysUsed = async (body: Record<string, unknown>, modelId: string) => {
    world.model.setScript(modelId, [{ text: 'ok' }]);
    const before = world.model.calls(modelId).length;
    const created = await newRun(body);
    expect(created.status).toBe(202);
    expect(await waitForRun(world.call, world.org.projectId, created.body.runId)).toMatchObject({
      status: 'completed',
      summary: { errored: 0 },
    });
    return {
      keys: [
        ...new Set(
          world.model
            .calls(modelId)
            .slice(before)
            .map((c) => c.apiKey),
        ),
      ],
      suiteId: created.body.suiteId as string,
    };
  };
  const test = (model: string, provider?: string) => ({
    title: 'neg',
    query: 'hello',
    model,
    ...(provider && { provider }),
    isNegativeTest: true,
  });

  describe("the rule: the run's own key for a provider when it brings one, else the organization's", () => {
    it('hosted id, organization key only: runs on the organization key', async () => {
      expect((await keysUsed({ suiteName: 'k1', tests: [test('openai/hosted-mini')] }, 'hosted-mini')).keys).toEqual([
        'org-key',
      ]);
    });

    it("hosted id with the run's own key: runs on the run key", async () => {
      expect(
        (
          await keysUsed(
            { suiteName: 'k2', modelApiKeys: { openai: 'run-key' }, tests: [test('openai/hosted-mini')] },
            'hosted-mini',
          )
        ).keys,
      ).toEqual(['run-key']);
    });

    it("bare id with provider and the run's own key: runs on the run key", async () => {
      expect(
        (
          await keysUsed(
            { suiteName: 'k3', modelApiKeys: { openai: 'run-key' }, tests: [test('bare-1', 'openai')] },
            'bare-1',
          )
        ).keys,
      ).toEqual(['run-key']);
    });

    it('bare id with provider and only the organization key: runs on the organization key', async () => {
      expect((await keysUsed({ suiteName: 'k4', tests: [test('bare-2', 'openai')] }, 'bare-2')).keys).toEqual([
        'org-key',
      ]);
    });

    it.each([
      ['a bare id', test('gemini-x', 'google'), 'google', 'gemini-x'],
      ['a hosted id', test('anthropic/claude-hosted'), 'anthropic', 'anthropic/claude-hosted'],
    ])('%s with neither key: 400 MODEL_KEY_MISSING saying what to do', async (_label, testCase, provider, model) => {
      const reply = await newRun({ suiteName: 'k5', tests: [testCase] });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { reason: 'MODEL_KEY_MISSING', provider, model },
      });
      expect(reply.body.message).toContain(`modelApiKeys.${provider}`);
      expect(reply.body.message).toContain(
        `npm run -s admin -- provider-key set --org <organizationId> --provider ${provider}`,
      );
    });

    it("a suite started with a run key reruns by id alone on the organization key (the README's rerun)", async () => {
      const first = await keysUsed(
        {
          suiteName: 'Rerun me',
          modelApiKeys: { 'openai-compatible': 'compat-run' },
          tests: [test('compat-model', 'openai-compatible')],
        },
        'compat-model',
      );
      expect(first.keys).toEqual(['compat-run']);
      const rerun = await keysUsed({ suiteId: first.suiteId, serverIds: undefined }, 'compat-model');
      expect(rerun.keys).toEqual(['compat-org']);
    });
  });

  it('a misspelt provider is refused with the valid providers and the closest one', async () => {
    const reply = await newRun({ suiteName: 'p', tests: [test('gpt-4.1-mini', 'open-ai')] });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: {
        reason: 'UNKNOWN_PROVIDER',
        provider: 'open-ai',
        providers: ['openai', 'anthropic', 'google', 'openrouter', 'ollama', 'openai-compatible'],
      },
    });
    // The refusal names the case it is about (issue 29): here the request's first inline test.
    expect(reply.body.message).toBe(
      'case "neg" (tests[0]): unknown model provider "open-ai" (did you mean "openai"?); valid providers: openai, anthropic, google, openrouter, ollama, openai-compatible',
    );
  });

  describe('expected tools that none of the selected servers has', () => {
    it('a run is started anyway, with a warning per unknown tool and case', async () => {
      world.model.setScript('tools-model', [{ text: 'ok' }]);
      const reply = await newRun({
        suiteName: 'Typos',
        tests: [
          {
            title: 'typo',
            query: 'q',
            model: 'tools-model',
            provider: 'openai',
            expectedToolCalls: [{ toolName: 'ech0' }, { toolName: 'echo' }],
          },
          {
            title: 'fine',
            query: 'q2',
            model: 'tools-model',
            provider: 'openai',
            expectedToolCalls: [{ toolName: 'get-sum' }],
          },
          {
            title: 'made up',
            query: 'q3',
            model: 'tools-model',
            provider: 'openai',
            expectedToolCalls: [{ toolName: 'launch_rockets' }],
          },
        ],
      });
      expect(reply.status).toBe(202);
      expect(reply.body.warnings).toEqual([
        {
          reason: 'UNKNOWN_TOOL',
          toolName: 'ech0',
          testTitle: 'typo',
          message: 'no tool `ech0` on the selected servers (did you mean `echo`?)',
        },
        {
          reason: 'UNKNOWN_TOOL',
          toolName: 'launch_rockets',
          testTitle: 'made up',
          message: 'no tool `launch_rockets` on the selected servers',
        },
      ]);
      await waitForRun(world.call, world.org.projectId, reply.body.runId);
    });

    it('a run whose expected tools all exist has no warnings', async () => {
      world.model.setScript('tools-model', [{ text: 'ok' }]);
      const reply = await newRun({
        suiteName: 'No typos',
        tests: [
          {
            title: 't',
            query: 'q',
            model: 'tools-model',
            provider: 'openai',
            expectedToolCalls: [{ toolName: 'echo' }],
          },
        ],
      });
      expect(reply.status).toBe(202);
      expect(reply.body.warnings).toBeUndefined();
      await waitForRun(world.call, world.org.projectId, reply.body.runId);
    });

    it('POST /eval-suites warns the same way', async () => {
      const reply = await world.call('POST', `/projects/${world.org.projectId}/eval-suites`, {
        name: 'Authored with a typo',
        serverIds: [world.serverId],
        model: 'openai/hosted-mini',
        tests: [{ title: 'a', query: 'q', expectedToolCalls: ['get-summ'] }],
      });
      expect(reply.status).toBe(201);
      expect(reply.body.warnings).toEqual([
        {
          reason: 'UNKNOWN_TOOL',
          toolName: 'get-summ',
          testTitle: 'a',
          message: 'no tool `get-summ` on the selected servers (did you mean `get-sum`?)',
        },
      ]);
    });

    it('a server that cannot be listed is skipped: no warning, no error', async () => {
      const url = `http://127.0.0.1:${await freePort()}/mcp`;
      const down = await saveServer(world.stack.sql, world.stack.box, {
        projectId: world.org.projectId,
        name: 'down',
        transportType: 'http',
        url,
      });
      const reply = await world.call('POST', `/projects/${world.org.projectId}/eval-suites`, {
        name: 'Down server',
        serverIds: [world.serverId, down],
        model: 'openai/hosted-mini',
        tests: [{ title: 'a', query: 'q', expectedToolCalls: ['ech0'] }],
      });
      expect(reply.status).toBe(201);
      expect(reply.body.warnings).toBeUndefined();
    });
  });
});
