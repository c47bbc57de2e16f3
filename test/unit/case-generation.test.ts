import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAI } from '@ai-sdk/openai';
import { ArgumentChecker } from '../../domain/evals/caseGeneration/argumentCheck.js';
import { checkDrafts } from '../../domain/evals/caseGeneration/drafts.js';
import { chooseGenerationModel, generatedCaseModel } from '../../domain/evals/caseGeneration/generationModel.js';
import { askModelForDrafts } from '../../domain/evals/caseGeneration/modelDrafts.js';
import {
  buildGenerationPrompt,
  CASE_GENERATION_PROMPT_VERSION,
  negativeCount,
  promptBounds,
} from '../../domain/evals/caseGeneration/prompt.js';
import type { SuiteTool } from '../../domain/evals/caseGeneration/suiteTools.js';
import { OperationFailure } from '../../domain/failures.js';
import { createLanguageModel } from '../../domain/models/providers.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../fixtures/model/server.js';

const tools: SuiteTool[] = [
  {
    serverId: 'srv_1',
    name: 'echo',
    description: 'Echoes back the input',
    inputSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
      additionalProperties: false,
    },
  },
  {
    serverId: 'srv_1',
    name: 'get-sum',
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
  {
    serverId: 'srv_2',
    name: 'fetch-page',
    description: 'Fetches a page',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri' },
        tags: { type: 'array', prefixItems: [{ type: 'string' }], items: false },
      },
      required: ['url'],
    },
  },
];

const draft = (title: string, query: string, calls: unknown[], isNegative = false) => ({
  title,
  query,
  isNegative,
  expectedToolCalls: calls,
});

describe('case drafts are checked against the tools', () => {
  it('keeps valid normal and negative drafts and skips the others with the reason', async () => {
    const answer = [
      draft('Echo a greeting', 'Please echo "hello"', [{ toolName: 'echo', arguments: { message: 'hello' } }]),
      draft('Add numbers', 'What is 2 + 3?', [{ toolName: 'get-sum', arguments: { a: 2, b: 3 } }]),
      draft('Small talk', 'How are you today?', [], true),
      draft('Unknown tool', 'Echo it loudly', [{ toolName: 'ecoh', arguments: { message: 'x' } }]),
      draft('Bad arguments', 'Add one and two', [{ toolName: 'get-sum', arguments: { a: 'one', b: 2 } }]),
      draft('Extra argument', 'Echo hi', [{ toolName: 'echo', arguments: { message: 'hi', volume: 11 } }]),
      draft('Echo a greeting', 'Please echo "hello"', [{ toolName: 'echo', arguments: { message: 'hello' } }]),
      draft('Negative with calls', 'Tell me a joke', [{ toolName: 'echo', arguments: { message: 'joke' } }], true),
      draft('Normal without calls', 'Add nothing', []),
      { title: 'No query', isNegative: false, expectedToolCalls: [] },
      'not even an object',
      draft('Lone \ud800 surrogate', 'Echo it', [{ toolName: 'echo', arguments: { message: 'x' } }]),
      draft('NUL in the prompt', 'Echo \u0000 it', [{ toolName: 'echo', arguments: { message: 'x' } }]),
    ];
    const { drafts, skipped } = await checkDrafts(answer, tools, 20);
    expect(drafts).toEqual([
      {
        title: 'Echo a greeting',
        query: 'Please echo "hello"',
        isNegative: false,
        expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hello' } }],
      },
      {
        title: 'Add numbers',
        query: 'What is 2 + 3?',
        isNegative: false,
        expectedToolCalls: [{ toolName: 'get-sum', arguments: { a: 2, b: 3 } }],
      },
      { title: 'Small talk', query: 'How are you today?', isNegative: true, expectedToolCalls: [] },
    ]);
    expect(skipped).toEqual([
      { title: 'Unknown tool', error: "no tool `ecoh` on the suite's servers (did you mean `echo`?)" },
      {
        title: 'Bad arguments',
        error: expect.stringMatching(/^arguments of get-sum do not match its input schema: \/a must be number/),
      },
      { title: 'Extra argument', error: expect.stringContaining('must NOT have additional properties (volume)') },
      { title: 'Echo a greeting', error: 'duplicate of an earlier draft (same title and query)' },
      {
        title: 'Negative with calls',
        error: expect.stringContaining('a negative case expects that no tool is called'),
      },
      { title: 'Normal without calls', error: expect.stringContaining('a normal case expects at least one tool call') },
      { title: 'No query', error: expect.stringMatching(/^not a case draft: query: /) },
      { title: 'draft 11', error: expect.stringMatching(/^not a case draft: /) },
      {
        title: 'Lone \ud800 surrogate',
        error: 'not a case draft: title: holds a character that cannot be stored (NUL or a lone surrogate)',
      },
      {
        title: 'NUL in the prompt',
        error: 'not a case draft: query: holds a character that cannot be stored (NUL or a lone surrogate)',
      },
    ]);
  });

  it('skips drafts past the count asked for, and treats missing arguments as {}', async () => {
    const answer = [
      draft('One', 'Echo one', [{ toolName: 'echo', arguments: { message: '1' } }]),
      draft('Two', 'Echo two', [{ toolName: 'echo' }]),
      draft('Three', 'Echo three', [{ toolName: 'echo', arguments: { message: '3' } }]),
    ];
    const { drafts, skipped } = await checkDrafts(answer, tools, 2);
    expect(drafts.map((d) => d.title)).toEqual(['One']);
    expect(skipped).toEqual([
      { title: 'Two', error: expect.stringContaining("must have required property 'message'") },
      { title: 'Three', error: 'beyond the 2 cases asked for' },
    ]);
  });

  it('reads each schema in its own dialect, formats included', () => {
    const checker = new ArgumentChecker();
    const fetchPage = tools[2];
    expect(checker.check('fetch-page', fetchPage.inputSchema, { url: 'https://example.com/a', tags: ['x'] })).toEqual({
      ok: true,
    });
    expect(checker.check('fetch-page', fetchPage.inputSchema, { url: 'not a uri' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('must match format "uri"'),
    });
    // 2020-12: `items: false` after prefixItems allows no second element
    expect(
      checker.check('fetch-page', fetchPage.inputSchema, { url: 'https://example.com', tags: ['x', 'y'] }),
    ).toMatchObject({ ok: false });
    // draft-07: tuple `items` arrays
    const tuple = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
    };
    expect(checker.check('tuple', tuple, { pair: ['a', 1] })).toEqual({ ok: true });
    expect(checker.check('tuple', tuple, { pair: [1, 'a'] })).toMatchObject({ ok: false });
  });

  it('says so when a schema cannot be compiled, and two tools may share an $id', () => {
    const checker = new ArgumentChecker();
    const remote = { type: 'object', properties: { x: { $ref: 'https://example.com/schemas/x.json' } } };
    expect(checker.check('remote', remote, { x: 1 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the input schema of remote cannot be checked/),
    });
    const shared = {
      $id: 'https://example.com/schemas/shared.json',
      type: 'object',
      properties: { n: { type: 'number' } },
    };
    expect(checker.check('first', shared, { n: 1 })).toEqual({ ok: true });
    expect(checker.check('second', shared, { n: 'x' })).toMatchObject({ ok: false });
  });
});

describe('the generation prompt', () => {
  it('is versioned and lists names, descriptions and input schemas', () => {
    const prompt = buildGenerationPrompt(tools, 5);
    expect(prompt.version).toBe(CASE_GENERATION_PROMPT_VERSION);
    expect(prompt.system).toContain('"isNegative": true');
    expect(prompt.prompt).toContain('Write 5 test cases: 4 normal and 1 negative.');
    for (const tool of tools) {
      expect(prompt.prompt).toContain(
        `### ${tool.name}\n${tool.description}\nInput schema: ${JSON.stringify(tool.inputSchema)}`,
      );
    }
    expect(prompt.toolsInPrompt).toEqual(['echo', 'get-sum', 'fetch-page']);
    expect(prompt.toolsLeftOut).toBe(0);
  });

  it('asks for about one negative case in four', () => {
    expect([1, 2, 3, 5, 8, 20].map(negativeCount)).toEqual([0, 1, 1, 1, 2, 5]);
  });

  it('stays within its bounds: tool count, schema size, total size', () => {
    const many = Array.from({ length: 80 }, (_, i): SuiteTool => ({
      serverId: 's',
      name: `tool-${i}`,
      description: 'd'.repeat(5_000),
      inputSchema: { type: 'object' },
    }));
    const byCount = buildGenerationPrompt(many, 3);
    expect(byCount.toolsInPrompt).toHaveLength(promptBounds.maxTools);
    expect(byCount.toolsLeftOut).toBe(30);
    expect(byCount.prompt).not.toContain('d'.repeat(promptBounds.maxDescriptionChars + 1));

    const properties = Object.fromEntries(
      Array.from({ length: 400 }, (_, i) => [`property_${i}`, { type: 'string', description: 'x'.repeat(40) }]),
    );
    const huge: SuiteTool[] = Array.from({ length: 40 }, (_, i) => ({
      serverId: 's',
      name: `big-${i}`,
      description: 'big',
      inputSchema: { type: 'object', properties, required: ['property_0'] },
    }));
    const bySize = buildGenerationPrompt(huge, 3);
    expect(bySize.prompt.length).toBeLessThan(promptBounds.maxToolListChars + 1_000);
    expect(bySize.toolsLeftOut).toBeGreaterThan(0);
    const abridged = JSON.parse(/Input schema: (.*)\n/.exec(bySize.prompt)![1]) as {
      properties: Record<string, unknown>;
      required: string[];
      note: string;
    };
    expect(abridged.required).toEqual(['property_0']);
    expect(abridged.properties.property_0).toEqual({ type: 'string' });
    expect(abridged.note).toMatch(/^schema abridged: \d+ of 400 properties shown/);
    expect(JSON.stringify(abridged).length).toBeLessThanOrEqual(promptBounds.maxSchemaChars);
  });
});

describe('the generation model', () => {
  const suite = { id: 'sui_1', defaultModel: 'gen-1' };
  it("is the one asked for, else the suite's, with the provider its cases use", () => {
    expect(chooseGenerationModel({ model: 'openai/hosted-mini' }, suite, [])).toEqual({ model: 'openai/hosted-mini' });
    expect(chooseGenerationModel({}, suite, [{ model: null, provider: 'openai' }])).toEqual({
      model: 'gen-1',
      provider: 'openai',
    });
    expect(chooseGenerationModel({ provider: 'anthropic' }, suite, [{ model: null, provider: 'openai' }])).toEqual({
      model: 'gen-1',
      provider: 'anthropic',
    });
    expect(
      chooseGenerationModel({}, { id: 'sui_2', defaultModel: null }, [{ model: 'case-model', provider: 'ollama' }]),
    ).toEqual({ model: 'case-model', provider: 'ollama' });
  });
  it("is not saved with the cases of a suite that has a default model: they run on the suite's", () => {
    expect(
      generatedCaseModel(suite, [{ model: null, provider: 'openai' }], { model: 'other', provider: 'anthropic' }),
    ).toEqual({ provider: 'openai' });
    expect(generatedCaseModel(suite, [], { model: 'openai/hosted-mini' })).toEqual({});
    expect(generatedCaseModel(suite, [], { model: 'gen-1', provider: 'openai' })).toEqual({ provider: 'openai' });
    expect(generatedCaseModel({ id: 'sui_2', defaultModel: null }, [], { model: 'gen-2', provider: 'openai' })).toEqual(
      { model: 'gen-2', provider: 'openai' },
    );
  });
  it('is required when the suite has none', () => {
    expect(() => chooseGenerationModel({}, { id: 'sui_3', defaultModel: null }, [])).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', details: { suiteId: 'sui_3', reason: 'MODEL_REQUIRED' } }),
    );
  });
});

describe('asking the model for drafts (scripted model server, OpenAI chat protocol)', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer();
  });
  afterAll(async () => server?.close());
  beforeEach(() => server.reset());

  const model = (id: string) =>
    createLanguageModel({ provider: 'openai', modelName: id, apiKey: 'k', baseURL: server.url });
  const prompt = buildGenerationPrompt(tools, 2);

  it('returns the drafts of a JSON answer, sending the prompt and the output schema', async () => {
    const cases = [
      draft('Echo', 'Echo hi', [{ toolName: 'echo', arguments: { message: 'hi' } }]),
      draft('Chat', 'Hello there', [], true),
    ];
    server.setScript('gen', [
      { text: JSON.stringify({ cases }), usage: { prompt_tokens: 120, completion_tokens: 40 } },
    ]);
    const bodies: any[] = [];
    const recording = createOpenAI({
      baseURL: server.url,
      apiKey: 'k',
      fetch: async (input, init) => {
        bodies.push(JSON.parse(String(init?.body)));
        return await fetch(input, init);
      },
    }).chat('gen');
    const answer = await askModelForDrafts(recording, prompt);
    // structured output: the drafts' schema as OpenAI's response_format, not strict (free-form arguments)
    expect(bodies[0].response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'case_drafts', strict: false, schema: { required: ['cases'] } },
    });
    expect(answer).toEqual({ drafts: cases, usage: { inputTokens: 120, outputTokens: 40, totalTokens: 160 } });
    const [call] = server.calls('gen');
    expect(call.messages[0]).toMatchObject({ role: 'system', content: prompt.system });
    expect(call.lastUserText).toBe(prompt.prompt);
  });

  it('refuses an answer that is not the JSON asked for', async () => {
    server.setScript('prose', [{ text: 'Sure! Here are some test cases: 1. echo hello' }]);
    const prose = await askModelForDrafts(model('prose'), prompt).catch((e: unknown) => e);
    expect(prose).toBeInstanceOf(OperationFailure);
    expect(prose).toMatchObject({
      code: 'SERVER_UNREACHABLE',
      details: { reason: 'MODEL_OUTPUT_INVALID', excerpt: 'Sure! Here are some test cases: 1. echo hello' },
    });

    server.setScript('wrong-json', [{ text: JSON.stringify({ tests: [] }) }]);
    await expect(askModelForDrafts(model('wrong-json'), prompt)).rejects.toMatchObject({
      code: 'SERVER_UNREACHABLE',
      details: { reason: 'MODEL_OUTPUT_INVALID' },
    });
  });

  it('names provider failures as eval iterations do, and bounds the wait', async () => {
    server.setScript('refused', [{ error: { status: 401, message: 'bad key' } }]);
    await expect(askModelForDrafts(model('refused'), prompt)).rejects.toMatchObject({
      code: 'SERVER_UNREACHABLE',
      details: { reason: 'PROVIDER_AUTH_FAILED', retryable: false, status: 401 },
    });
    server.setScript('slow', [{ delayMs: 30_000, text: '{"cases":[]}' }]);
    await expect(askModelForDrafts(model('slow'), prompt, { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'TIMEOUT',
      details: { reason: 'MODEL_TIMEOUT', timeoutMs: 300 },
    });
  });
});
