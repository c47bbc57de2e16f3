import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunwayClient } from '../../api/client.js';
import type { CliContext } from '../../cli/runway/context.js';
import { readSuiteFile } from '../../cli/runway/suiteFile.js';

describe('runway evals run --suite-file: the file is checked like the API body, unknown keys refused with a hint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runway-suite-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const notes: string[] = [];
  // A real client aimed where nothing listens: a file refused for its keys never gets as far as a server lookup.
  const ctx: CliContext = {
    client: createRunwayClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_unused', gatewayRetries: 0 }),
    projectId: 'default',
    json: false,
    env: { MODEL_KEY: 'sk-model' },
    stdout: process.stdout,
    stderr: process.stderr,
    print: () => {},
    note: (line) => void notes.push(line),
  };
  let files = 0;
  const file = (content: object) => {
    const path = join(dir, `suite-${++files}.json`);
    writeFileSync(path, JSON.stringify(content, null, 2));
    return path;
  };
  const testCase = {
    title: 'echo',
    query: 'say hi',
    model: 'gpt-4.1',
    provider: 'openai',
    runs: 2,
    expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hi' } }],
  };
  const { expectedToolCalls, ...withoutExpectations } = testCase;

  it("the issue's file (`expectedToolcalls`, `passCritera`) is refused, each field named with the file and a hint", async () => {
    const path = file({
      suiteName: 's',
      servers: ['everything (stdio)'],
      passCritera: { minimumPassRate: 100 },
      tests: [{ ...withoutExpectations, expectedToolcalls: expectedToolCalls }],
    });
    const error = (await readSuiteFile(ctx, path, []).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message.startsWith(`${path}: unknown field`)).toBe(true);
    expect(error.message).toContain('unknown field `tests.0.expectedToolcalls`; did you mean `expectedToolCalls`?');
    expect(error.message).toContain('unknown field `passCritera`; did you mean `passCriteria`?');
  });

  it.each([
    [
      { suiteName: 's', servres: ['everything (stdio)'], tests: [testCase] },
      'unknown field `servres`; did you mean `servers`?',
    ],
    [
      { suiteName: 's', serverIds: ['srv_1'], tests: [{ ...testCase, matchOptions: { extraToolCall: 0 } }] },
      'unknown field `tests.0.matchOptions.extraToolCall`; did you mean `extraToolCalls`?',
    ],
    [
      { suiteName: 's', serverIds: ['srv_1'], tests: [{ ...testCase, expectedToolCalls: [{ tool_name: 'echo' }] }] },
      'unknown field `tests.0.expectedToolCalls.0.tool_name`; did you mean `toolName`?',
    ],
    [
      { suiteName: 's', serverIds: ['srv_1'], tests: [{ ...testCase, advancedConfig: { temprature: 0 } }] },
      'unknown field `tests.0.advancedConfig.temprature`; did you mean `temperature`?',
    ],
  ])('%j', async (content, message) => {
    const path = file(content);
    await expect(readSuiteFile(ctx, path, [])).rejects.toThrow(`${path}: ${message}`);
  });

  it('a file of known keys is sent as written, with the model keys from the environment', async () => {
    const content = { suiteName: ' smoke ', serverIds: ['srv_1'], passCriteria: {}, tests: [testCase] };
    const suite = await readSuiteFile(ctx, file(content), ['openai=MODEL_KEY']);
    expect(suite).toEqual({ body: { ...content, modelApiKeys: { openai: 'sk-model' } }, suiteName: 'smoke' });
  });

  it('a file may give each case several models, and the run a budget and a concurrency (issue 16)', async () => {
    const { model, provider, ...oneModelLess } = testCase;
    const content = {
      suiteName: 'compare',
      serverIds: ['srv_1'],
      budget: { maxTokens: 50_000, maxIterations: 20 },
      concurrency: 4,
      models: [{ model, provider }],
      tests: [
        {
          ...oneModelLess,
          models: [
            { model, provider },
            { model: 'claude-haiku', provider: 'anthropic' },
          ],
        },
      ],
    };
    expect(await readSuiteFile(ctx, file(content), [])).toEqual({ body: content, suiteName: 'compare' });
    const misspelt = file({ ...content, budget: { maxToken: 1 } });
    await expect(readSuiteFile(ctx, misspelt, [])).rejects.toThrow(
      'unknown field `budget.maxToken`; did you mean `maxTokens`?',
    );
    const tooMany = file({ ...content, concurrency: 33 });
    await expect(readSuiteFile(ctx, tooMany, [])).rejects.toThrow(/concurrency: /);
  });

  it('other mistakes are reported as before', async () => {
    const path = file({ suiteName: 's', serverIds: ['srv_1'], tests: [{ ...testCase, runs: 0 }] });
    await expect(readSuiteFile(ctx, path, [])).rejects.toThrow(
      new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: tests\\.0\\.runs: `),
    );
  });
});
