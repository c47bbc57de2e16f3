import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, type wrapLanguageModel } from 'ai';
import { networkErrorCode } from './failures.js';

export const MODEL_PROVIDERS = ['openai', 'anthropic', 'google', 'openrouter', 'ollama', 'openai-compatible'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/**
 * A chat model object as the provider packages build it. `ai` does not export the LanguageModelV3 type by name and
 * `@ai-sdk/provider` is not a direct dependency, so it is taken from wrapLanguageModel's signature.
 */
export type ChatModel = Parameters<typeof wrapLanguageModel>[0]['model'];

interface ProviderTraits {
  /** Used when neither the organization's provider key nor the catalog entry names a base URL. */
  defaultBaseURL?: string;
  /**
   * Whether a run needs an API key. Local endpoints (Ollama, self-hosted OpenAI-compatible servers) often have none;
   * without a key no Authorization header is sent.
   */
  needsApiKey: boolean;
}

export const PROVIDER_TRAITS: Record<ModelProvider, ProviderTraits> = {
  openai: { needsApiKey: true },
  anthropic: { needsApiKey: true },
  google: { needsApiKey: true },
  openrouter: { needsApiKey: true, defaultBaseURL: 'https://openrouter.ai/api/v1' },
  ollama: { needsApiKey: false, defaultBaseURL: 'http://127.0.0.1:11434/v1' },
  'openai-compatible': { needsApiKey: false },
};

export function isModelProvider(value: unknown): value is ModelProvider {
  return typeof value === 'string' && (MODEL_PROVIDERS as readonly string[]).includes(value);
}

/** What a run needs to call a model: the output of resolveModel (catalog.ts). */
export interface ModelEndpoint {
  provider: ModelProvider;
  /** The id the provider knows the model by (no `<provider>/` prefix). */
  modelName: string;
  apiKey?: string;
  /** Overrides the provider's default endpoint; required for `openai-compatible`. */
  baseURL?: string;
}

/**
 * fetch for the provider packages. A host name that does not resolve will not resolve on a retry either: the retry
 * policy (activities/retryPolicy.ts) fails the iteration at once. Where the AI SDK does retry (case generation,
 * domain/evals/caseGeneration/modelDrafts.ts), as it would any network error with seconds of backoff, this fetch
 * tells it the same (a non-retryable APICallError), so it does not retry first.
 */
const providerFetch: typeof fetch = async (input, init) => {
  try {
    return await fetch(input, init);
  } catch (error) {
    if (networkErrorCode(error) !== 'ENOTFOUND') throw error;
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    throw new APICallError({
      message: `Cannot connect to API: ${cause instanceof Error ? cause.message : String(cause)}`,
      url: input instanceof Request ? input.url : String(input),
      requestBodyValues: {},
      cause: error,
      isRetryable: false,
    });
  }
};

/** Builds the AI SDK model for a resolved endpoint. Throws on an endpoint resolveModel would never produce. */
export function createLanguageModel(endpoint: ModelEndpoint): ChatModel {
  const { provider, modelName } = endpoint;
  const baseURL = endpoint.baseURL ?? PROVIDER_TRAITS[provider].defaultBaseURL;
  const apiKey = endpoint.apiKey || undefined;
  // The provider packages fall back to OPENAI_API_KEY & co. when apiKey is missing: that would bill the operator's
  // environment for a run that brought no key, so refuse instead.
  if (PROVIDER_TRAITS[provider].needsApiKey && apiKey === undefined) {
    throw new Error(`model provider ${provider} needs an API key`);
  }
  switch (provider) {
    case 'openai':
      // .chat(): Chat Completions, which every OpenAI-compatible endpoint (and the scripted test server) speaks;
      // the default model factory would use the Responses API.
      return createOpenAI({ apiKey, baseURL, fetch: providerFetch }).chat(modelName);
    case 'anthropic':
      return createAnthropic({ apiKey, baseURL, fetch: providerFetch })(modelName);
    case 'google':
      return createGoogleGenerativeAI({ apiKey, baseURL, fetch: providerFetch })(modelName);
    case 'openrouter':
    case 'ollama':
    case 'openai-compatible':
      if (baseURL === undefined) throw new Error(`model provider ${provider} needs a base URL`);
      // includeUsage: without it streaming replies carry no token counts.
      return createOpenAICompatible({ name: provider, baseURL, apiKey, includeUsage: true, fetch: providerFetch })(
        modelName,
      );
  }
}
