/**
 * Checks of a case's `expectedOutput` against the model's final answer. Pure (no I/O, no clock) except the regex
 * mode, which runs the pattern in a V8 context with a time limit. `judge` is not decided here: a model grades the
 * answer (domain/evals/judge.ts); this module only knows that it is one of the modes.
 *
 * Modes (default `contains`, case-insensitive unless `caseSensitive: true`):
 * - `contains`: the answer contains the expected text, whitespace normalized on both sides (trimmed, every run of
 *   whitespace one space).
 * - `equals`: the answer equals the expected text, whitespace normalized the same way.
 * - `regex`: the expected text is a JavaScript pattern (flag `u`, plus `i` unless caseSensitive) searched for in
 *   the raw answer. Bounded: at most MAX_PATTERN_LENGTH characters, refused at the edge when it does not compile or
 *   nests unbounded quantifiers (`(a+)+`) or uses back-references (regexProblem); a match that still runs longer
 *   than the time limit fails the check.
 * - `json-subset`: the expected text is JSON (checked at the edge); the answer (or the first JSON object or array
 *   in it, e.g. inside a ```json fence) is parsed, and the expected value must be a subset of it: objects match
 *   when every expected key matches (extra keys allowed), arrays element by element with the same length, other
 *   values by equality. caseSensitive does not apply.
 * - `judge`: a model grades the answer against expectedOutput and `rubric` (judge.ts).
 */
import { runInNewContext } from 'node:vm';
import { deepEqual } from './scoring.js';

export const OUTPUT_CHECK_MODES = ['contains', 'equals', 'regex', 'json-subset', 'judge'] as const;
export type OutputCheckMode = (typeof OUTPUT_CHECK_MODES)[number];

export interface OutputCheck {
  mode: OutputCheckMode;
  caseSensitive?: boolean;
  /** what the judge grades by, besides expectedOutput (judge mode only) */
  rubric?: string;
}

/** The judge's structured verdict (judge.ts). */
export interface JudgeVerdict {
  pass: boolean;
  score: number;
  reason: string;
}

/** One output check's outcome, as the trace's `prompts[].outputCheck` holds it. */
export interface OutputCheckResult {
  mode: OutputCheckMode;
  passed: boolean;
  expected: string;
  /** why it failed; absent when it passed */
  reason?: string;
  /** judge mode: the model's verdict, the prompt version and the judge model */
  verdict?: JudgeVerdict;
  judgePromptVersion?: string;
  judgeModel?: string;
}

export const MAX_PATTERN_LENGTH = 1000;
/** Longest a regex check may run; past it the check fails (a pattern the edge's heuristic let through). */
export const REGEX_TIME_LIMIT_MS = 250;
/** Only this much of an answer is searched for JSON. */
const MAX_JSON_SCAN = 200_000;

export const DEFAULT_OUTPUT_CHECK: Readonly<OutputCheck> = Object.freeze({ mode: 'contains' });

export function normalizeWhitespace(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

/**
 * Why a regex check's pattern is refused, or null when it is fine: too long, does not compile (with flags `u`/`iu`),
 * uses a back-reference, or repeats a group that itself holds an unbounded quantifier (star height above one:
 * `(a+)+`, `(a*)*`, `(?:x+y)*`), the classic catastrophic-backtracking shape.
 */
export function regexProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return `the pattern does not compile: ${(error as Error).message}`;
  }
  // Walk the pattern: a stack of open groups, each remembering whether it holds an unbounded quantifier.
  const groups: boolean[] = [];
  let inClass = false;
  let lastGroupUnbounded = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    const afterGroup = lastGroupUnbounded;
    lastGroupUnbounded = false;
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && (/[1-9]/.test(next) || next === 'k')) return 'back-references are not allowed';
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      continue;
    }
    if (ch === '(') {
      groups.push(false);
      continue;
    }
    if (ch === ')') {
      const unbounded = groups.pop() ?? false;
      if (unbounded && groups.length > 0) groups[groups.length - 1] = true;
      lastGroupUnbounded = unbounded;
      continue;
    }
    const quantifier = quantifierAt(pattern, i);
    if (quantifier) {
      if (afterGroup && quantifier.unbounded)
        return 'the pattern repeats a group that holds an unbounded quantifier (catastrophic backtracking)';
      if (quantifier.unbounded && groups.length > 0) groups[groups.length - 1] = true;
      i += quantifier.length - 1;
      // a lazy or possessive marker after it
      if (pattern[i + 1] === '?') i++;
    }
  }
  return null;
}

/** The quantifier starting at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`), or null. */
function quantifierAt(pattern: string, i: number): { length: number; unbounded: boolean } | null {
  const ch = pattern[i];
  if (ch === '*' || ch === '+') return { length: 1, unbounded: true };
  if (ch === '?') return { length: 1, unbounded: false };
  if (ch !== '{') return null;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
  if (!match) return null;
  const unbounded = match[2] !== undefined && (match[3] === '' || Number(match[3]) > 100);
  return { length: match[0].length, unbounded };
}

/** The JSON value of the answer: all of it, else the first parseable object or array in it; undefined if none. */
export function extractJson(answer: string): unknown {
  const text = answer.slice(0, MAX_JSON_SCAN);
  try {
    return JSON.parse(text.trim()) as unknown;
  } catch {
    // look inside
  }
  for (let start = 0; start < text.length; start++) {
    const ch = text[start];
    if (ch !== '{' && ch !== '[') continue;
    const end = balancedEnd(text, start);
    if (end === -1) continue;
    try {
      return JSON.parse(text.slice(start, end + 1)) as unknown;
    } catch {
      // not JSON after all: try the next opening bracket
    }
  }
  return undefined;
}

/** Index of the bracket closing the one at `start` (strings skipped), or -1. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** `expected` is a subset of `actual`: see the module comment. */
export function isJsonSubset(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, i) => isJsonSubset(item, actual[i]))
    );
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    const record = actual as Record<string, unknown>;
    return Object.entries(expected).every(
      ([key, value]) => Object.hasOwn(record, key) && isJsonSubset(value, record[key]),
    );
  }
  return deepEqual(expected, actual);
}

/** Runs the pattern in a fresh V8 context with a time limit: true/false, or 'timeout'. */
export function regexMatches(
  pattern: string,
  flags: string,
  text: string,
  timeLimitMs = REGEX_TIME_LIMIT_MS,
): boolean | 'timeout' {
  try {
    return runInNewContext(
      'new RegExp(pattern, flags).test(text)',
      { pattern, flags, text },
      {
        timeout: timeLimitMs,
      },
    ) as boolean;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw error;
  }
}

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/**
 * Checks the answer by a deterministic mode. `judge` is refused here (it needs a model: judge.ts). The expected
 * text of `json-subset` must be JSON and the pattern of `regex` acceptable (the edge checks both); if not, the check
 * fails with the reason rather than throwing.
 */
export function checkOutput(
  answer: string,
  expected: string,
  check: OutputCheck = DEFAULT_OUTPUT_CHECK,
  options: { regexTimeLimitMs?: number } = {},
): OutputCheckResult {
  const mode = check.mode;
  const base = { mode, expected };
  const fold = (text: string) => (check.caseSensitive === true ? text : text.toLowerCase());
  switch (mode) {
    case 'contains':
    case 'equals': {
      const got = fold(normalizeWhitespace(answer));
      const want = fold(normalizeWhitespace(expected));
      const passed = mode === 'contains' ? got.includes(want) : got === want;
      if (passed) return { ...base, passed };
      return {
        ...base,
        passed,
        reason:
          mode === 'contains'
            ? `the final answer does not contain "${clip(expected)}"${answer.trim() === '' ? ' (the answer is empty)' : ''}`
            : `the final answer "${clip(normalizeWhitespace(answer))}" does not equal "${clip(expected)}"`,
      };
    }
    case 'regex': {
      const problem = regexProblem(expected);
      if (problem) return { ...base, passed: false, reason: problem };
      const matched = regexMatches(
        expected,
        check.caseSensitive === true ? 'u' : 'iu',
        answer,
        options.regexTimeLimitMs,
      );
      if (matched === true) return { ...base, passed: true };
      return {
        ...base,
        passed: false,
        reason:
          matched === 'timeout'
            ? `the pattern ran longer than ${options.regexTimeLimitMs ?? REGEX_TIME_LIMIT_MS} ms on the final answer`
            : `the final answer does not match /${clip(expected)}/`,
      };
    }
    case 'json-subset': {
      let want: unknown;
      try {
        want = JSON.parse(expected) as unknown;
      } catch {
        return { ...base, passed: false, reason: 'expectedOutput is not JSON' };
      }
      const got = extractJson(answer);
      if (got === undefined) return { ...base, passed: false, reason: 'the final answer holds no JSON value' };
      if (isJsonSubset(want, got)) return { ...base, passed: true };
      return {
        ...base,
        passed: false,
        reason: `the final answer's JSON ${clip(JSON.stringify(got))} does not contain ${clip(JSON.stringify(want))}`,
      };
    }
    case 'judge':
      throw new Error('a judge check is graded by a model (domain/evals/judge.ts), not by checkOutput');
  }
}

/**
 * Why an expectedOutput + outputCheck pair is refused at the edge, or null: a regex that regexProblem refuses, a
 * json-subset expectation that is not JSON, a check without an expectedOutput, a rubric outside judge mode.
 */
export function outputCheckProblem(
  expected: string | undefined | null,
  check: OutputCheck | undefined | null,
): { path: 'expectedOutput' | 'outputCheck'; message: string } | null {
  if (!check) return null;
  if (expected === undefined || expected === null)
    return { path: 'outputCheck', message: 'an outputCheck needs an expectedOutput to check' };
  if (check.rubric !== undefined && check.mode !== 'judge')
    return { path: 'outputCheck', message: 'a rubric is for mode "judge" only' };
  if (check.mode === 'regex') {
    const problem = regexProblem(expected);
    if (problem) return { path: 'expectedOutput', message: `regex check: ${problem}` };
  }
  if (check.mode === 'json-subset') {
    try {
      JSON.parse(expected);
    } catch {
      return { path: 'expectedOutput', message: 'json-subset check: expectedOutput must be JSON' };
    }
  }
  return null;
}
