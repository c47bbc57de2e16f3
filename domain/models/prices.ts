/**
 * What a model's tokens cost: a price per model, in US dollars per million tokens, and the arithmetic over it. Pure.
 *
 * A model is named as `<provider>/<name>` (the hosted catalog's id: `openai/gpt-4.1-mini`), the provider being the
 * one the iteration was sent to and the name the provider's own, so an OpenRouter model is
 * `openrouter/anthropic/claude-3.5-sonnet`. An organization's own prices (`runway-admin model-prices`) win over the
 * defaults below; a model neither knows has no price, and what it spent costs null (unknown), never 0.
 */

export interface ModelPrice {
  /** USD per million input tokens that were not read from the provider's prompt cache */
  inputPerMTok: number;
  /** USD per million output tokens (reasoning tokens included: the providers bill them as output) */
  outputPerMTok: number;
  /** USD per million input tokens read from the prompt cache; absent: billed as input */
  cachedInputPerMTok?: number;
}

/** The date the default prices were read from the providers' public price pages. */
export const DEFAULT_PRICES_AS_OF = '2025-10-01';

/**
 * Shipped defaults for the well-known models of the hosted catalog, as listed on the providers' public price pages on
 * DEFAULT_PRICES_AS_OF: https://openai.com/api/pricing (standard tier), https://www.anthropic.com/pricing#api (cache
 * reads; cache writes are billed as input here), https://ai.google.dev/gemini-api/docs/pricing (paid tier, prompts
 * up to 200k tokens: the long-context tier is not modelled). Prices change: an operator sets an organization's own
 * with `runway-admin model-prices`, which wins over these.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'openai/gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10, cachedInputPerMTok: 0.125 },
  'openai/gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2, cachedInputPerMTok: 0.025 },
  'openai/gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4, cachedInputPerMTok: 0.005 },
  'openai/gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
  'openai/gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6, cachedInputPerMTok: 0.1 },
  'openai/gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.025 },
  'openai/gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10, cachedInputPerMTok: 1.25 },
  'openai/gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 },
  'openai/o3': { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
  'openai/o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4, cachedInputPerMTok: 0.275 },
  'anthropic/claude-opus-4-1': { inputPerMTok: 15, outputPerMTok: 75, cachedInputPerMTok: 1.5 },
  'anthropic/claude-opus-4-0': { inputPerMTok: 15, outputPerMTok: 75, cachedInputPerMTok: 1.5 },
  'anthropic/claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 },
  'anthropic/claude-sonnet-4-0': { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 },
  'anthropic/claude-3-7-sonnet-latest': { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 },
  'anthropic/claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5, cachedInputPerMTok: 0.1 },
  'anthropic/claude-3-5-haiku-latest': { inputPerMTok: 0.8, outputPerMTok: 4, cachedInputPerMTok: 0.08 },
  'google/gemini-2.5-pro': { inputPerMTok: 1.25, outputPerMTok: 10, cachedInputPerMTok: 0.125 },
  'google/gemini-2.5-flash': { inputPerMTok: 0.3, outputPerMTok: 2.5, cachedInputPerMTok: 0.03 },
  'google/gemini-2.5-flash-lite': { inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.01 },
  'google/gemini-2.0-flash': { inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.025 },
};

/** A model's price key: `<provider>/<name>`, the name as the provider knows it. */
export const priceKey = (provider: string, modelName: string): string => `${provider}/${modelName}`;

/**
 * The price of a model for one organization: its own (`overrides`, by price key) first, else the default; a dated
 * Anthropic id (`claude-sonnet-4-5-20250929`) falls back to its undated alias. undefined: no known price.
 */
export type PriceLookup = (provider: string, modelName: string) => ModelPrice | undefined;

export function priceLookup(overrides: Readonly<Record<string, ModelPrice>> = {}): PriceLookup {
  const find = (key: string): ModelPrice | undefined =>
    Object.hasOwn(overrides, key)
      ? overrides[key]
      : Object.hasOwn(DEFAULT_PRICES, key)
        ? DEFAULT_PRICES[key]
        : undefined;
  return (provider, modelName) => {
    const key = priceKey(provider, modelName);
    const undated = key.replace(/-\d{8}$/, '');
    return find(key) ?? (undated === key ? undefined : find(undated));
  };
}

/** Tokens as the AI SDK reports them: `cachedInputTokens` is the part of `inputTokens` read from the cache. */
export interface PricedUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
}

/** Rounded to a billionth of a dollar: sums of float products keep no noise beyond that. */
const roundUsd = (usd: number): number => Math.round(usd * 1e9) / 1e9;

/**
 * What `usage` cost at `price`, in USD; null when the price is unknown (whatever the tokens). Cached input tokens
 * are counted within the input tokens (as the providers report them), at the cached price when the model has one.
 */
export function costOf(usage: PricedUsage, price: ModelPrice | undefined): number | null {
  if (!price) return null;
  const count = (n: number | undefined) => (Number.isFinite(n) && n! > 0 ? n! : 0);
  const input = count(usage.inputTokens);
  const cached = Math.min(count(usage.cachedInputTokens), input);
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok;
  return roundUsd(
    ((input - cached) * price.inputPerMTok + cached * cachedPrice + count(usage.outputTokens) * price.outputPerMTok) /
      1e6,
  );
}

/** The sum of costs: null (unknown) when any of them is. An empty sum is 0. */
export function sumCosts(costs: Iterable<number | null | undefined>): number | null {
  let total = 0;
  for (const cost of costs) {
    if (cost === null || cost === undefined) return null;
    total += cost;
  }
  return roundUsd(total);
}
