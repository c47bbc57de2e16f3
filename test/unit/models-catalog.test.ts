import { describe, expect, it } from 'vitest';
import { OperationFailure } from '../../domain/failures.js';
import {
  parseHostedModels,
  resolveModel,
  validateRunModels,
  type ModelAccess,
  type ModelRequest,
} from '../../domain/models/catalog.js';
import { createLanguageModel } from '../../domain/models/providers.js';

const catalog = parseHostedModels(
  [
    'openai/gpt-4.1-mini, openai/gpt-4.1',
    'anthropic/claude-sonnet-4-5',
    'openrouter/meta-llama/llama-3.3-70b-instruct',
    'ollama/llama3.2:3b',
    'ollama/qwen3=http://gpu-box:11434/v1/',
    'openai-compatible/local-llm',
  ].join('\n'),
);

const access = (overrides: Partial<ModelAccess> = {}): ModelAccess => ({
  catalog,
  orgProviderKeys: { openai: { apiKey: 'org-openai', baseUrl: 'http://proxy.internal/v1' } },
  modelApiKeys: {},
  ...overrides,
});

const resolve = (request: ModelRequest, overrides: Partial<ModelAccess> = {}) =>
  resolveModel({ ...request, ...access(overrides) });

describe('HOSTED_MODELS', () => {
  it('reads <provider>/<name>[=baseURL] entries separated by commas, spaces or newlines', () => {
    expect(parseHostedModels('')).toEqual([]);
    expect(parseHostedModels(' ,\n ')).toEqual([]);
    expect(catalog.map((m) => m.id)).toEqual([
      'openai/gpt-4.1-mini',
      'openai/gpt-4.1',
      'anthropic/claude-sonnet-4-5',
      'openrouter/meta-llama/llama-3.3-70b-instruct',
      'ollama/llama3.2:3b',
      'ollama/qwen3',
      'openai-compatible/local-llm',
    ]);
    expect(catalog[3]).toEqual({
      id: 'openrouter/meta-llama/llama-3.3-70b-instruct',
      provider: 'openrouter',
      name: 'meta-llama/llama-3.3-70b-instruct',
    });
    expect(catalog[5]).toEqual({
      id: 'ollama/qwen3',
      provider: 'ollama',
      name: 'qwen3',
      baseURL: 'http://gpu-box:11434/v1',
    });
  });

  it.each([
    ['gpt-4o', /not <provider>\/<name>/],
    ['/gpt-4o', /not <provider>\/<name>/],
    ['openai/', /not <provider>\/<name>/],
    ['mistral/large', /unknown provider "mistral"/],
    ['openai/a,openai/a', /listed twice/],
    ['ollama/x=not a url', /invalid base URL/],
    ['ollama/x=ftp://host/v1', /http\(s\) base URL/],
  ])('rejects %j', (value, message) => {
    expect(() => parseHostedModels(value)).toThrow(message);
  });
});

describe('resolveModel: hosted ids', () => {
  it("runs on the organization's provider key and base URL", () => {
    expect(resolve({ model: 'openai/gpt-4.1-mini', provider: 'openai' })).toEqual({
      ok: true,
      hosted: true,
      keySource: 'organization',
      provider: 'openai',
      modelName: 'gpt-4.1-mini',
      apiKey: 'org-openai',
      baseURL: 'http://proxy.internal/v1',
    });
  });

  it('prefers the per-run key, still at the organization base URL', () => {
    expect(resolve({ model: 'openai/gpt-4.1' }, { modelApiKeys: { openai: 'run-key' } })).toMatchObject({
      ok: true,
      keySource: 'run',
      apiKey: 'run-key',
      baseURL: 'http://proxy.internal/v1',
    });
  });

  it('runs on a per-run key when the organization has none', () => {
    expect(resolve({ model: 'anthropic/claude-sonnet-4-5' }, { modelApiKeys: { anthropic: 'ant-run' } })).toEqual({
      ok: true,
      hosted: true,
      keySource: 'run',
      provider: 'anthropic',
      modelName: 'claude-sonnet-4-5',
      apiKey: 'ant-run',
    });
  });

  it('needs some key for a provider that requires one; blank keys do not count', () => {
    const rejected = resolve(
      { model: 'anthropic/claude-sonnet-4-5', provider: 'anthropic' },
      { modelApiKeys: { anthropic: '  ' }, orgProviderKeys: { anthropic: { apiKey: '' } } },
    );
    expect(rejected).toMatchObject({
      ok: false,
      details: {
        model: 'anthropic/claude-sonnet-4-5',
        provider: 'anthropic',
        hostedModels: [],
        reason: 'MODEL_KEY_MISSING',
      },
    });
  });

  it('runs Ollama keyless at the default, the catalog or the organization base URL', () => {
    expect(resolve({ model: 'ollama/llama3.2:3b' })).toEqual({
      ok: true,
      hosted: true,
      keySource: 'none',
      provider: 'ollama',
      modelName: 'llama3.2:3b',
      baseURL: 'http://127.0.0.1:11434/v1',
    });
    expect(resolve({ model: 'ollama/qwen3' })).toMatchObject({ ok: true, baseURL: 'http://gpu-box:11434/v1' });
    expect(
      resolve(
        { model: 'ollama/qwen3' },
        { orgProviderKeys: { ollama: { apiKey: '', baseUrl: 'http://org-ollama/v1' } } },
      ),
    ).toMatchObject({ ok: true, keySource: 'none', baseURL: 'http://org-ollama/v1' });
  });

  it('runs an openai-compatible model only where a base URL is configured', () => {
    expect(resolve({ model: 'openai-compatible/local-llm' })).toMatchObject({
      ok: false,
      details: { reason: 'BASE_URL_REQUIRED', hostedModels: [] },
    });
    const orgProviderKeys = { 'openai-compatible': { apiKey: 'vllm-key', baseUrl: 'http://vllm:8000/v1' } };
    expect(resolve({ model: 'openai-compatible/local-llm' }, { orgProviderKeys })).toMatchObject({
      ok: true,
      provider: 'openai-compatible',
      modelName: 'local-llm',
      apiKey: 'vllm-key',
      baseURL: 'http://vllm:8000/v1',
    });
  });

  it("reads a hosted id under another provider as that provider's own model id (OpenRouter)", () => {
    expect(
      resolve(
        { model: 'anthropic/claude-sonnet-4-5', provider: 'openrouter' },
        { modelApiKeys: { openrouter: 'or-key' } },
      ),
    ).toEqual({
      ok: true,
      hosted: false,
      keySource: 'run',
      provider: 'openrouter',
      modelName: 'anthropic/claude-sonnet-4-5',
      apiKey: 'or-key',
      baseURL: 'https://openrouter.ai/api/v1',
    });
  });
});

describe('resolveModel: bare ids', () => {
  it('run with provider on the per-run key when the run brings one, else on the organization key', () => {
    expect(resolve({ model: 'gpt-5-nano', provider: 'openai' }, { modelApiKeys: { openai: 'run-key' } })).toEqual({
      ok: true,
      hosted: false,
      keySource: 'run',
      provider: 'openai',
      modelName: 'gpt-5-nano',
      apiKey: 'run-key',
      baseURL: 'http://proxy.internal/v1',
    });
    expect(resolve({ model: 'gpt-5-nano', provider: 'openai' })).toEqual({
      ok: true,
      hosted: false,
      keySource: 'organization',
      provider: 'openai',
      modelName: 'gpt-5-nano',
      apiKey: 'org-openai',
      baseURL: 'http://proxy.internal/v1',
    });
  });

  it('with neither key are refused with what to do: MODEL_KEY_MISSING', () => {
    expect(resolve({ model: 'claude-3', provider: 'anthropic' })).toEqual({
      ok: false,
      message:
        "claude-3 needs a key for anthropic: give modelApiKeys.anthropic with the run, or set the organization's key with " +
        '`npm run -s admin -- provider-key set --org <organizationId> --provider anthropic`',
      details: { model: 'claude-3', provider: 'anthropic', hostedModels: [], reason: 'MODEL_KEY_MISSING' },
    });
  });

  it('run keyless on a provider that needs no key', () => {
    expect(resolve({ model: 'llama3.2:3b', provider: 'ollama' })).toMatchObject({
      ok: true,
      keySource: 'none',
      modelName: 'llama3.2:3b',
      baseURL: 'http://127.0.0.1:11434/v1',
    });
    expect(resolve({ model: 'mistral', provider: 'ollama' }, { modelApiKeys: { ollama: 'x' } })).toMatchObject({
      ok: true,
      keySource: 'run',
      modelName: 'mistral',
      baseURL: 'http://127.0.0.1:11434/v1',
    });
  });

  it('need a configured base URL for openai-compatible, and run on its key unless the run brings one', () => {
    const modelApiKeys = { 'openai-compatible': 'run-key' };
    expect(resolve({ model: 'my-model', provider: 'openai-compatible' }, { modelApiKeys })).toMatchObject({
      ok: false,
      message: expect.stringContaining(
        'provider-key set --org <organizationId> --provider openai-compatible --base-url <url>',
      ),
      details: { reason: 'BASE_URL_REQUIRED' },
    });
    const orgProviderKeys = { 'openai-compatible': { apiKey: 'org', baseUrl: 'http://vllm:8000/v1' } };
    expect(
      resolve({ model: 'my-model', provider: 'openai-compatible' }, { modelApiKeys, orgProviderKeys }),
    ).toMatchObject({
      ok: true,
      apiKey: 'run-key',
      baseURL: 'http://vllm:8000/v1',
    });
    expect(resolve({ model: 'my-model', provider: 'openai-compatible' }, { orgProviderKeys })).toMatchObject({
      ok: true,
      keySource: 'organization',
      apiKey: 'org',
      baseURL: 'http://vllm:8000/v1',
    });
  });

  it('need a provider; the rejection lists every usable hosted id', () => {
    expect(resolve({ model: 'gpt-5-nano' }, { modelApiKeys: { openai: 'run-key' } })).toEqual({
      ok: false,
      message:
        'gpt-5-nano is not a hosted model; give its provider (openai, anthropic, google, openrouter, ollama, openai-compatible)',
      details: {
        model: 'gpt-5-nano',
        provider: null,
        hostedModels: ['openai/gpt-4.1-mini', 'openai/gpt-4.1', 'ollama/llama3.2:3b', 'ollama/qwen3'],
        reason: 'PROVIDER_REQUIRED',
      },
    });
  });
});

describe('resolveModel: not executable', () => {
  it('rejects a <provider>/<name> id outside the catalog, even with a per-run key', () => {
    expect(resolve({ model: 'openai/gpt-5' })).toMatchObject({
      ok: false,
      details: { provider: null, hostedModels: ['openai/gpt-4.1-mini', 'openai/gpt-4.1'], reason: 'NOT_HOSTED' },
    });
    expect(
      resolve({ model: 'openai/gpt-5', provider: 'openai' }, { modelApiKeys: { openai: 'run-key' } }),
    ).toMatchObject({
      ok: false,
      details: { provider: 'openai', reason: 'NOT_HOSTED' },
    });
  });

  it('rejects an unknown provider, listing the valid ones and the closest', () => {
    const providers = ['openai', 'anthropic', 'google', 'openrouter', 'ollama', 'openai-compatible'];
    expect(resolve({ model: 'large', provider: 'mistral' }, { modelApiKeys: { mistral: 'k' } })).toEqual({
      ok: false,
      message: `unknown model provider "mistral"; valid providers: ${providers.join(', ')}`,
      details: {
        model: 'large',
        provider: 'mistral',
        reason: 'UNKNOWN_PROVIDER',
        providers,
        hostedModels: expect.arrayContaining(['openai/gpt-4.1']),
      },
    });
    expect(resolve({ model: 'gpt-4.1', provider: 'open-ai' })).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /^unknown model provider "open-ai" \(did you mean "openai"\?\); valid providers: openai, /,
      ),
    });
    expect(resolve({ model: 'c', provider: 'Antropic' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('(did you mean "anthropic"?)'),
    });
  });

  it('rejects an empty model', () => {
    expect(resolve({ model: ' ', provider: 'openai' })).toMatchObject({
      ok: false,
      details: { reason: 'MODEL_REQUIRED' },
    });
  });

  it('lists nothing when the catalog is empty', () => {
    expect(resolve({ model: 'openai/gpt-4.1' }, { catalog: [] })).toMatchObject({
      ok: false,
      details: { hostedModels: [], reason: 'NOT_HOSTED' },
    });
  });
});

describe('validateRunModels', () => {
  it('passes when every case can run', () => {
    const cases = [{ model: 'openai/gpt-4.1', provider: 'openai' }, { model: 'ollama/qwen3' }];
    expect(validateRunModels(cases, access())).toBeUndefined();
  });

  it('answers the first unexecutable case as a VALIDATION_ERROR with details.hostedModels', () => {
    const failure = validateRunModels(
      [{ model: 'openai/gpt-4.1' }, { model: 'claude-3', provider: 'anthropic' }, { model: 'x' }],
      access(),
    );
    expect(failure).toBeInstanceOf(OperationFailure);
    expect(failure).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { model: 'claude-3', provider: 'anthropic', hostedModels: [], reason: 'MODEL_KEY_MISSING' },
    });
  });
});

describe('createLanguageModel', () => {
  it("builds each provider's chat model", () => {
    const build = (provider: Parameters<typeof createLanguageModel>[0]['provider'], baseURL?: string) =>
      createLanguageModel({ provider, modelName: 'm', apiKey: 'k', ...(baseURL && { baseURL }) });
    expect(build('openai')).toMatchObject({ provider: 'openai.chat', modelId: 'm' });
    expect(build('anthropic').provider).toMatch(/^anthropic/);
    expect(build('google').provider).toMatch(/^google/);
    expect(build('openrouter').provider).toMatch(/^openrouter/);
    expect(build('ollama').provider).toMatch(/^ollama/);
    expect(build('openai-compatible', 'http://x/v1').provider).toMatch(/^openai-compatible/);
  });

  it("never falls back to the environment's key, and needs a base URL for openai-compatible", () => {
    expect(() => createLanguageModel({ provider: 'openai', modelName: 'm' })).toThrow(/needs an API key/);
    expect(() => createLanguageModel({ provider: 'openai-compatible', modelName: 'm' })).toThrow(/needs a base URL/);
    expect(createLanguageModel({ provider: 'ollama', modelName: 'm' }).modelId).toBe('m');
  });
});
