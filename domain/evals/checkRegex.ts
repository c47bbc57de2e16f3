/**
 * The regex output check's pattern, run by a linear-time engine (linearPattern.ts: JavaScript's meaning on RE2), so
 * no answer can make it backtrack; bounded besides in the pattern's length and compiled size and in the answer
 * searched.
 */
import type { RE2JS } from 're2js';
import { compileLinear, type LinearPattern } from '../linearPattern.js';

export const MAX_PATTERN_LENGTH = 1000;
/** Most instructions a pattern may compile to (a 1,000-character literal is about 1,000). */
export const MAX_PATTERN_PROGRAM = 10_000;
/** Longest answer a regex check searches; a longer one fails the check. */
export const MAX_REGEX_ANSWER_LENGTH = 200_000;
/**
 * Most work one search may do: the pattern's program size x the answer's length (the engine's worst case is about
 * 25 ns each on a loaded core, so about 100 ms). Past it the check fails rather than searching.
 */
export const REGEX_WORK_LIMIT = 4_000_000;

/** Compiled patterns, by flags and pattern: a run checks the same few patterns in every iteration. */
const compiled = new Map<string, LinearPattern>();
const CACHED_PATTERNS = 200;

/** The pattern compiled (case-insensitive unless caseSensitive), or why it is refused. */
export function compilePattern(pattern: string, caseSensitive = false): LinearPattern {
  const key = `${caseSensitive ? 's' : 'i'}${pattern}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const result = compileUncached(pattern, caseSensitive);
  if (compiled.size >= CACHED_PATTERNS) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, result);
  return result;
}

function compileUncached(pattern: string, caseSensitive: boolean): LinearPattern {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return { problem: `the pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  const compiled = compileLinear(pattern, !caseSensitive);
  if ('problem' in compiled) return compiled;
  const size = compiled.re.programSize();
  if (size > MAX_PATTERN_PROGRAM)
    return {
      problem: `the pattern compiles to ${size.toLocaleString('en-US')} instructions, more than the ${MAX_PATTERN_PROGRAM.toLocaleString('en-US')} a check may run`,
    };
  return compiled;
}

/** Why a regex check's pattern is refused, or null when it is fine. */
export function regexProblem(pattern: string): string | null {
  const result = compilePattern(pattern);
  return 'problem' in result ? result.problem : null;
}

/** Whether the pattern is found in the text, or why it was not searched (a bound passed). */
export function searchPattern(re: RE2JS, text: string): boolean | { bound: string } {
  const count = (n: number) => n.toLocaleString('en-US');
  if (text.length > MAX_REGEX_ANSWER_LENGTH)
    return {
      bound: `the final answer is ${count(text.length)} characters long, longer than the ${count(MAX_REGEX_ANSWER_LENGTH)} a regex check searches`,
    };
  const size = re.programSize();
  if (size * text.length > REGEX_WORK_LIMIT)
    return {
      bound: `the pattern (${count(size)} instructions) is too large to search an answer of ${count(text.length)} characters: at most ${count(Math.floor(REGEX_WORK_LIMIT / size))} with it`,
    };
  return re.test(text);
}
