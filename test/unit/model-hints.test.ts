import { describe, expect, it } from 'vitest';
import { parseHostedModels, resolveModel, validateRunModels, type ModelAccess } from '../../domain/models/catalog.js';

/*
 * Issue 29, item 9: a model the run cannot execute is refused with what is available (or why nothing is) and how
 * to get a model that runs; a case without a model is named.
 */

const none: ModelAccess = { catalog: [], orgProviderKeys: {}, modelApiKeys: {} };
const message = (result: ReturnType<typeof resolveModel>) => (result.ok ? '' : result.message);

describe('a <provider>/<name> id that is not in the hosted catalog', () => {
  it('with an empty catalog and no key: says no hosted model is available, why, and how to run the model', () => {
    const text = message(resolveModel({ model: 'openai/gpt-4.1-mini', ...none }));
    expect(text).toMatch(/^openai\/gpt-4\.1-mini is not a hosted model, and no hosted model is available: /);
    expect(text).toContain('the hosted catalog is empty (an operator lists hosted models in HOSTED_MODELS)');
    expect(text).toContain('"model": "gpt-4.1-mini", "provider": "openai"');
    expect(text).toContain('modelApiKeys.openai');
    expect(text).toContain(
      'npm run -s admin -- provider-key set --org <organizationId> --provider openai --api-key-env OPENAI_API_KEY',
    );
    expect(text).toContain('docs/MODEL-KEYS.md');
  });

  it('with catalog entries for the provider but no key: none is available because no key is set', () => {
    const catalog = parseHostedModels('openai/gpt-4.1, anthropic/claude-sonnet-4-5');
    const result = resolveModel({ model: 'openai/gpt-5', ...none, catalog });
    expect(result).toMatchObject({ ok: false, details: { reason: 'NOT_HOSTED', hostedModels: [] } });
    expect(message(result)).toContain('no hosted model is available: no key for openai is set');
  });

  it('with usable hosted models: lists them; with a key for the provider, asks for no key', () => {
    const catalog = parseHostedModels('openai/gpt-4.1, openai/gpt-4.1-mini');
    const result = resolveModel({
      model: 'openai/gpt-5',
      catalog,
      orgProviderKeys: { openai: { apiKey: 'org' } },
      modelApiKeys: {},
    });
    expect(result).toMatchObject({ details: { hostedModels: ['openai/gpt-4.1', 'openai/gpt-4.1-mini'] } });
    const text = message(result);
    expect(text).toMatch(
      /^openai\/gpt-5 is not a hosted model; hosted models available: openai\/gpt-4\.1, openai\/gpt-4\.1-mini/,
    );
    expect(text).toContain('"model": "gpt-5", "provider": "openai"');
    expect(text).not.toContain('provider-key set');
  });

  it('a catalog without the provider says so; a provider that needs no key gets no key advice', () => {
    const catalog = parseHostedModels('anthropic/claude-sonnet-4-5');
    expect(message(resolveModel({ model: 'ollama/llama3.2', ...none, catalog }))).toContain(
      'no hosted model is available: the hosted catalog (HOSTED_MODELS) has no ollama model',
    );
    expect(message(resolveModel({ model: 'ollama/llama3.2', ...none, catalog }))).not.toContain('provider-key set');
  });
});

describe('validateRunModels names the case a refusal is about', () => {
  it('a case without a model: its title and id, and what to do', () => {
    const failure = validateRunModels(
      [
        { model: 'ollama/x', case: { id: 'case_a', title: 'fine' } },
        { model: '', provider: null, case: { id: 'case_b', title: 'Echo' } },
      ],
      { ...none, catalog: parseHostedModels('ollama/x') },
    );
    expect(failure).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'MODEL_REQUIRED', caseId: 'case_b', caseTitle: 'Echo' },
    });
    expect(failure?.message).toMatch(/^case "Echo" \(case_b\) has no model: /);
    expect(failure?.message).toContain("the suite's default model");
  });

  it('an inline test of the request is named by its place', () => {
    const failure = validateRunModels([{ model: 'openai/nope', case: { title: 'inline', test: 2 } }], none);
    expect(failure).toMatchObject({ details: { reason: 'NOT_HOSTED', caseTitle: 'inline', test: 2 } });
    expect(failure?.message).toMatch(/^case "inline" \(tests\[2\]\): openai\/nope is not a hosted model/);
  });
});
