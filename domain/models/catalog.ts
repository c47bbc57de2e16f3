/**
 * Which models a run may execute, and with which key and endpoint.
 *
 * HOSTED_MODELS (operator configuration): entries separated by commas and/or whitespace (newlines welcome), each
 *   `<provider>/<name>` or `<provider>/<name>=<baseURL>`
 * - provider: openai | anthropic | google | openrouter | ollama | openai-compatible
 * - name: everything after the first `/`, as the provider knows the model; it may contain `/` and `:`
 *   (`openrouter/meta-llama/llama-3.3-70b-instruct`, `ollama/llama3.2:3b`).
 * - baseURL: optional http(s) URL where this model is served. An organization's provider key with a baseUrl wins
 *   over it (the organization's own setting is the more specific one).
 * Example: `openai/gpt-4.1-mini, anthropic/claude-sonnet-4-5, ollama/llama3.2=http://ollama:11434/v1`
 *
 * Rules for a test case's `model` (docs/MODEL-KEYS.md says them for users):
 * - a hosted id `<provider>/<name>` is one of the catalog's; any other id is the provider's own (sent as is, so
 *   OpenRouter ids such as `anthropic/claude-3.5-sonnet` stay whole) and needs `provider`. A `<provider>/<name>`
 *   spelling for the run's own provider means the catalog, so one that is not in it is rejected;
 * - the key, for either: the run's own key for the provider (`modelApiKeys[provider]`) when the run brings one, else
 *   the organization's key for that provider; Ollama and OpenAI-compatible endpoints may run with neither;
 * - the endpoint: the organization's base URL for the provider, else the catalog entry's, else the provider's own.
 * Anything else is rejected with what to do and the hosted ids the request could use instead.
 * A per-run key is only ever sent to a base URL that the operator or the organization configured.
 */
import { closestName } from '../closestName.js';
import { OperationFailure } from '../failures.js';
import {
  isModelProvider,
  MODEL_PROVIDERS,
  PROVIDER_TRAITS,
  type ModelEndpoint,
  type ModelProvider,
} from './providers.js';

export interface HostedModel {
  /** `<provider>/<name>`, the id test cases use. */
  id: string;
  provider: ModelProvider;
  name: string;
  baseURL?: string;
}

export type HostedModelCatalog = readonly HostedModel[];

/** Parses HOSTED_MODELS; throws on an entry an operator would want to hear about at startup. */
export function parseHostedModels(value: string): HostedModel[] {
  const catalog: HostedModel[] = [];
  for (const entry of value.split(/[\s,]+/).filter(Boolean)) {
    const eq = entry.indexOf('=');
    const id = eq < 0 ? entry : entry.slice(0, eq);
    const slash = id.indexOf('/');
    const provider = id.slice(0, Math.max(slash, 0));
    const name = id.slice(slash + 1);
    if (slash <= 0 || name === '') throw new Error(`HOSTED_MODELS: "${entry}" is not <provider>/<name>`);
    if (!isModelProvider(provider)) throw new Error(`HOSTED_MODELS: unknown provider "${provider}" in "${entry}"`);
    if (catalog.some((m) => m.id === id)) throw new Error(`HOSTED_MODELS: "${id}" is listed twice`);
    const model: HostedModel = { id, provider, name };
    if (eq >= 0) model.baseURL = parseBaseURL(entry.slice(eq + 1), entry);
    catalog.push(model);
  }
  return catalog;
}

function parseBaseURL(value: string, entry: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`HOSTED_MODELS: "${entry}" has an invalid base URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`HOSTED_MODELS: "${entry}" needs an http(s) base URL`);
  }
  return value.replace(/\/+$/, '');
}

/** The organization's configured provider keys, decrypted, by provider. */
export type OrgProviderKeys = Partial<Record<string, { apiKey: string; baseUrl?: string | null }>>;
/** Per-run keys from the request's `modelApiKeys`, by provider. */
export type ModelApiKeys = Partial<Record<string, string>>;

export interface ModelAccess {
  catalog: HostedModelCatalog;
  orgProviderKeys: OrgProviderKeys;
  modelApiKeys: ModelApiKeys;
}

export interface ModelRequest {
  model: string;
  provider?: string | null;
}

export type ModelRejectionReason =
  | 'MODEL_REQUIRED'
  | 'UNKNOWN_PROVIDER'
  | 'PROVIDER_REQUIRED'
  | 'NOT_HOSTED'
  /** neither the run nor the organization has a key for the provider */
  | 'MODEL_KEY_MISSING'
  | 'BASE_URL_REQUIRED';

export interface ModelRejection {
  ok: false;
  message: string;
  /** `providers` (the valid ones) comes with UNKNOWN_PROVIDER */
  details: {
    model: string;
    provider: string | null;
    hostedModels: string[];
    reason: ModelRejectionReason;
    providers?: string[];
  };
}

/** Contains the secret apiKey: never log it, never put it into workflow history. */
export type ResolvedModel = { ok: true; hosted: boolean; keySource: 'run' | 'organization' | 'none' } & ModelEndpoint;

export function resolveModel(request: ModelRequest & ModelAccess): ResolvedModel | ModelRejection {
  const model = request.model.trim();
  const provider = request.provider?.trim() || undefined;
  const reject = (
    reason: ModelRejectionReason,
    message: string,
    extra: { providers?: string[]; provider?: string } = {},
  ): ModelRejection => ({
    ok: false,
    message,
    details: {
      model: request.model,
      provider: request.provider ?? null,
      hostedModels: usableHostedIds(model, provider, request),
      reason,
      ...extra,
    },
  });

  if (model === '') return reject('MODEL_REQUIRED', 'model is required');
  const hosted = request.catalog.find((m) => m.id === model && (provider === undefined || m.provider === provider));
  if (hosted) {
    const endpoint = endpointFor(hosted.provider, hosted.name, hosted.baseURL, request);
    if (endpoint.ok) return { ...endpoint, hosted: true };
    // the provider the key is missing for, also when the request named none (the CLI names its flag from it)
    return reject(endpoint.reason, `${model} ${endpoint.message}`, { provider: hosted.provider });
  }
  if (provider !== undefined && !isModelProvider(provider)) {
    const meant = closestName(provider, MODEL_PROVIDERS);
    const message = `unknown model provider "${provider}"${meant ? ` (did you mean "${meant}"?)` : ''}; valid providers: ${MODEL_PROVIDERS.join(', ')}`;
    return reject('UNKNOWN_PROVIDER', message, { providers: [...MODEL_PROVIDERS] });
  }
  const ownPrefix = provider !== undefined ? model.startsWith(`${provider}/`) : isModelProvider(model.split('/')[0]);
  if (ownPrefix) return reject('NOT_HOSTED', notHostedMessage(model, request));
  if (provider === undefined) {
    return reject(
      'PROVIDER_REQUIRED',
      `${model} is not a hosted model; give its provider (${MODEL_PROVIDERS.join(', ')})`,
    );
  }
  const endpoint = endpointFor(provider, model, undefined, request);
  if (endpoint.ok) return { ...endpoint, hosted: false };
  return reject(endpoint.reason, `${model} ${endpoint.message}`);
}

type EndpointCheck =
  | ({ ok: true; keySource: ResolvedModel['keySource'] } & ModelEndpoint)
  | { ok: false; reason: ModelRejectionReason; message: string };

function endpointFor(
  provider: ModelProvider,
  modelName: string,
  catalogBaseURL: string | undefined,
  access: ModelAccess,
): EndpointCheck {
  const runKey = present(access.modelApiKeys[provider]);
  const orgKey = access.orgProviderKeys[provider];
  // The rule: the run's own key when it brings one, else the organization's.
  const apiKey = runKey ?? present(orgKey?.apiKey);
  if (apiKey === undefined && PROVIDER_TRAITS[provider].needsApiKey) {
    const message =
      `needs a key for ${provider}: give modelApiKeys.${provider} with the run, or set the organization's key with ` +
      `\`npm run -s admin -- provider-key set --org <organizationId> --provider ${provider}\``;
    return { ok: false, reason: 'MODEL_KEY_MISSING', message };
  }
  const baseURL = present(orgKey?.baseUrl) ?? catalogBaseURL ?? PROVIDER_TRAITS[provider].defaultBaseURL;
  if (provider === 'openai-compatible' && baseURL === undefined) {
    const message =
      "needs the organization's openai-compatible endpoint: set it with " +
      '`npm run -s admin -- provider-key set --org <organizationId> --provider openai-compatible --base-url <url>`';
    return { ok: false, reason: 'BASE_URL_REQUIRED', message };
  }
  const keySource = runKey !== undefined ? 'run' : apiKey !== undefined ? 'organization' : 'none';
  const endpoint: ModelEndpoint = { provider, modelName };
  if (apiKey !== undefined) endpoint.apiKey = apiKey;
  if (baseURL !== undefined) endpoint.baseURL = baseURL;
  return { ok: true, keySource, ...endpoint };
}

/**
 * Why a `<provider>/<name>` id is refused, and the ways out: the hosted models that could run instead, or why there is
 * none (an empty catalog, none of the provider's, no key for the provider), and the provider's own id with the key it
 * needs. A fresh install has an empty catalog and no key, so "not a hosted model" alone leaves a newcomer nowhere.
 */
function notHostedMessage(model: string, access: ModelAccess): string {
  const slash = model.indexOf('/');
  const provider = model.slice(0, slash) as ModelProvider;
  const name = model.slice(slash + 1);
  const usable = usableHostedIds(model, provider, access);
  const ofProvider = access.catalog.filter((m) => m.provider === provider);
  const hasKey =
    present(access.modelApiKeys[provider]) !== undefined ||
    present(access.orgProviderKeys[provider]?.apiKey) !== undefined;
  const available =
    usable.length > 0
      ? `; hosted models available: ${usable.join(', ')}`
      : `, and no hosted model is available: ${
          access.catalog.length === 0
            ? 'the hosted catalog is empty (an operator lists hosted models in HOSTED_MODELS)'
            : ofProvider.length === 0
              ? `the hosted catalog (HOSTED_MODELS) has no ${provider} model`
              : `no key for ${provider} is set`
        }`;
  const key =
    PROVIDER_TRAITS[provider].needsApiKey && !hasKey
      ? ` with a key for ${provider}: modelApiKeys.${provider} with the run, or the organization's key, set with ` +
        `\`npm run -s admin -- provider-key set --org <organizationId> --provider ${provider} --api-key-env ${provider.toUpperCase().replace(/-/g, '_')}_API_KEY\``
      : '';
  return `${model} is not a hosted model${available}. To run the model itself, name it by the provider's own id ("model": "${name}", "provider": "${provider}")${key} (docs/MODEL-KEYS.md)`;
}

/** Hosted ids this request could run instead: of its provider (or the id's prefix) when known, else all. */
function usableHostedIds(model: string, requested: string | undefined, access: ModelAccess): string[] {
  const prefix = model.split('/')[0];
  const provider = isModelProvider(requested) ? requested : isModelProvider(prefix) ? prefix : undefined;
  return access.catalog
    .filter((m) => provider === undefined || m.provider === provider)
    .filter((m) => endpointFor(m.provider, m.name, m.baseURL, access).ok)
    .map((m) => m.id);
}

function present(value: string | null | undefined): string | undefined {
  return value != null && value.trim() !== '' ? value : undefined;
}

/** The case a model belongs to: a stored case by its id, or an inline test of the request by its index. */
export interface ModelCase {
  title: string;
  id?: string;
  test?: number;
}

/**
 * Run creation check: the first test case whose model cannot run, as the 400 VALIDATION_ERROR the API answers
 * (`details: { model, provider, hostedModels, reason }`, plus `caseTitle` and `caseId` or `test` when the model is a
 * case's; the CLI phrases MODEL_KEY_MISSING with its own flags), or undefined when all can run.
 */
export function validateRunModels(
  requests: readonly (ModelRequest & { case?: ModelCase })[],
  access: ModelAccess,
): OperationFailure | undefined {
  const seen = new Set<string>();
  for (const request of requests) {
    const key = `${request.provider ?? ''}\u0000${request.model}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const resolved = resolveModel({ model: request.model, provider: request.provider, ...access });
    if (resolved.ok) continue;
    const about = request.case;
    if (!about) return new OperationFailure('VALIDATION_ERROR', resolved.message, resolved.details);
    // Which case: a suite of many cases refused for "model is required" says nothing a user can act on.
    const named = `case "${about.title}" (${about.id ?? `tests[${about.test}]`})`;
    const message =
      resolved.details.reason === 'MODEL_REQUIRED'
        ? `${named} has no model: give it one (model, and provider for a provider's own id), or set the suite's default model`
        : `${named}: ${resolved.message}`;
    return new OperationFailure('VALIDATION_ERROR', message, {
      ...resolved.details,
      caseTitle: about.title,
      ...(about.id !== undefined ? { caseId: about.id } : { test: about.test }),
    });
  }
  return undefined;
}
