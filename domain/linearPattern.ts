/**
 * A JavaScript pattern (read as with the `u` flag: code points, `\u{...}`, `\p{...}`, Unicode case folding under `i`)
 * compiled for a linear-time engine (RE2, from re2js), keeping JavaScript's meaning: `\s`/`\S`, `.` and `[\b]` are
 * rewritten to what JavaScript reads, a surrogate-pair escape to its code point. What RE2 cannot run
 * (back-references, lookahead, lookbehind) is refused, never run on a backtracking engine. However ambiguous the
 * pattern, a search costs at most about (its compiled size) x (the text's length) steps. The one place where a
 * pattern someone else wrote becomes a matcher: output checks (evals/checkRegex.ts) and schemas a server wrote
 * (untrustedSchema.ts).
 */
import { RE2JS } from 're2js';

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

export type LinearPattern = { re: RE2JS } | { problem: string };

/** The pattern compiled (case-insensitive when asked), or why it cannot run on the linear-time engine. */
export function compileLinear(pattern: string, caseInsensitive: boolean): LinearPattern {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return { problem: `the pattern does not compile: ${(error as Error).message}` };
  }
  const translated = toRe2(pattern);
  if ('problem' in translated) return translated;
  try {
    return { re: RE2JS.compile(translated.source, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0) };
  } catch (error) {
    return {
      problem: `the pattern does not compile on the linear-time engine (RE2) checks run on: ${(error as Error).message.replace(/^error parsing regexp: /, '')}`,
    };
  }
}
