/**
 * The regex output check's pattern, run by a linear-time engine (RE2, from re2js): however ambiguous the pattern, a
 * search costs at most about (the pattern's compiled size) x (the answer's length) steps, so no answer can make it
 * backtrack. Patterns are written as JavaScript ones with the `u` flag (code points, `\u{...}`, `\p{...}`, Unicode
 * case folding under `i`) and keep that meaning: `\s`/`\S`, `.` and `[\b]` are rewritten to what JavaScript reads,
 * a surrogate-pair escape to its code point. What RE2 cannot run (back-references, lookahead, lookbehind) is refused.
 */
import { RE2JS } from 're2js';

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

/** What JavaScript's `\s` matches: ECMAScript WhiteSpace and LineTerminator. */
const SPACES = [
  [0x09, 0x0d],
  [0x20],
  [0xa0],
  [0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f],
  [0x205f],
  [0x3000],
  [0xfeff],
];
const hex = (n: number) => `\\x{${n.toString(16)}}`;
const range = ([from, to]: number[]) => (to === undefined ? hex(from) : `${hex(from)}-${hex(to)}`);
const SPACE_ITEMS = SPACES.map(range).join('');
/** The same as items of a class: every code point that is not a space. */
const NON_SPACE_ITEMS = (() => {
  const items: string[] = [];
  let next = 0;
  for (const [from, to = from] of SPACES) {
    if (from > next) items.push(range([next, from - 1]));
    next = to + 1;
  }
  items.push(range([next, 0x10ffff]));
  return items.join('');
})();
/** What JavaScript's `.` matches without the `s` flag: all but line terminators. */
const DOT = `[^${range([0x0a])}${range([0x0d])}${range([0x2028, 0x2029])}]`;

const isHighSurrogate = (h: string) => /^d[89ab][0-9a-f]{2}$/i.test(h);
const isLowSurrogate = (h: string) => /^d[c-f][0-9a-f]{2}$/i.test(h);

/**
 * The pattern in RE2's syntax with JavaScript's meaning, or why it cannot be run. The pattern already compiled as a
 * JavaScript `u` pattern, so every escape is one of the few that syntax allows.
 */
function toRe2(pattern: string): { source: string } | { problem: string } {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && (/[1-9]/.test(next) || next === 'k')) return { problem: 'back-references are not allowed' };
      if (next === 's' || next === 'S') {
        const items = next === 's' ? SPACE_ITEMS : NON_SPACE_ITEMS;
        out += inClass ? items : next === 's' ? `[${SPACE_ITEMS}]` : `[^${SPACE_ITEMS}]`;
      } else if (next === 'b' && inClass) {
        out += hex(0x08);
      } else if (next === 'u' && isHighSurrogate(pattern.slice(i + 2, i + 6)) && pattern.startsWith('\\u', i + 6)) {
        const low = pattern.slice(i + 8, i + 12);
        if (!isLowSurrogate(low)) {
          out += '\\u';
        } else {
          const high = Number.parseInt(pattern.slice(i + 2, i + 6), 16);
          out += hex(0x10000 + ((high - 0xd800) << 10) + (Number.parseInt(low, 16) - 0xdc00));
          i += 10;
        }
      } else {
        out += ch + next;
      }
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
      continue;
    }
    if (ch === '[') inClass = true;
    else if (ch === '(' && (pattern.startsWith('(?=', i) || pattern.startsWith('(?!', i)))
      return { problem: 'lookahead ((?= and (?!) is not supported: checks run on a linear-time engine (RE2)' };
    else if (ch === '(' && (pattern.startsWith('(?<=', i) || pattern.startsWith('(?<!', i)))
      return { problem: 'lookbehind ((?<= and (?<!) is not supported: checks run on a linear-time engine (RE2)' };
    out += ch === '.' ? DOT : ch;
  }
  return { source: RE2JS.translateRegExp(out) };
}

type Compiled = { re: RE2JS } | { problem: string };
/** Compiled patterns, by flags and pattern: a run checks the same few patterns in every iteration. */
const compiled = new Map<string, Compiled>();
const CACHED_PATTERNS = 200;

/** The pattern compiled (case-insensitive unless caseSensitive), or why it is refused. */
export function compilePattern(pattern: string, caseSensitive = false): Compiled {
  const key = `${caseSensitive ? 's' : 'i'}${pattern}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const result = compileUncached(pattern, caseSensitive);
  if (compiled.size >= CACHED_PATTERNS) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, result);
  return result;
}

function compileUncached(pattern: string, caseSensitive: boolean): Compiled {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return { problem: `the pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return { problem: `the pattern does not compile: ${(error as Error).message}` };
  }
  const translated = toRe2(pattern);
  if ('problem' in translated) return translated;
  let re: RE2JS;
  try {
    re = RE2JS.compile(translated.source, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    return {
      problem: `the pattern does not compile on the linear-time engine (RE2) checks run on: ${(error as Error).message.replace(/^error parsing regexp: /, '')}`,
    };
  }
  const size = re.programSize();
  if (size > MAX_PATTERN_PROGRAM)
    return {
      problem: `the pattern compiles to ${size.toLocaleString('en-US')} instructions, more than the ${MAX_PATTERN_PROGRAM.toLocaleString('en-US')} a check may run`,
    };
  return { re };
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
