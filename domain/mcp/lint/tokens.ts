import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Token counts of tool descriptions, with o200k_base (the encoding of OpenAI's GPT-4o and later models; other
 * providers' tokenizers count within a few tens of percent of it): offline, from the `gpt-tokenizer` package.
 *
 * Counting is bounded: byte-pair encoding takes time quadratic in the length of a run without spaces, so a text is
 * counted in chunks of COUNT_CHUNK characters (a token split at a chunk's edge counts twice: at most one more per
 * chunk), its first COUNT_MAX_CHARS characters only, and a lint counts at most LINT_COUNT_BUDGET characters in all.
 */

/** Tokens above which a description crowds a model's context (every tool's description is sent on every turn). */
export const DESCRIPTION_TOKENS_MAX = 1_000;
const COUNT_CHUNK = 2_000;
export const COUNT_MAX_CHARS = 64_000;
export const LINT_COUNT_BUDGET = 128_000;

// Special tokens (<|endoftext|>) in a server's text are text like any other, never a reason to throw.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

export interface TokenCount {
  tokens: number;
  /** false: only the first COUNT_MAX_CHARS characters were counted (or the lint's budget ran out): at least this */
  complete: boolean;
}

export class TokenCounter {
  private left = LINT_COUNT_BUDGET;

  /**
   * Tokens of `text`, or undefined when it cannot have more than `over` (a token is at least one UTF-16 unit, so a
   * text of `over` units or fewer has at most `over` tokens: most descriptions are never encoded).
   */
  countOver(text: string, over: number): TokenCount | undefined {
    if (text.length <= over) return undefined;
    const counted = Math.min(text.length, COUNT_MAX_CHARS, this.left);
    if (counted <= 0) return { tokens: 0, complete: false };
    this.left -= counted;
    let tokens = 0;
    for (let at = 0; at < counted;) {
      const end = chunkEnd(text, at, counted);
      tokens += countTokens(text.slice(at, end), AS_TEXT);
      at = end;
    }
    return { tokens, complete: counted === text.length };
  }
}

/**
 * Where the chunk that starts at `at` ends: before the last space in it that starts a word, where the encoding's
 * pre-tokenizer splits too (" word" is one piece), so that the chunks add up to the text's own count; in a run with
 * no such space, at COUNT_CHUNK (a token split there counts as two).
 */
function chunkEnd(text: string, at: number, limit: number): number {
  const end = Math.min(at + COUNT_CHUNK, limit);
  if (end === limit) return end;
  for (let i = end - 1; i > at; i--)
    if (text[i] === ' ' && text[i - 1] !== ' ' && /\S/.test(text[i + 1] ?? '')) return i;
  return end;
}
