/**
 * Checks of a case's `expectedOutput` against the model's final answer. Pure (no I/O, no clock) and bounded: every
 * deterministic check costs at most about linear time in the answer, capped (checkRegex.ts, checkJson.ts). `judge`
 * is not decided here: a model grades the answer (domain/evals/judge.ts); this module only knows that it is one of
 * the modes.
 *
 * Modes (default `contains`, case-insensitive unless `caseSensitive: true`):
 * - `contains`: the answer contains the expected text, normalized on both sides (normalizeText): Unicode NFC (a
 *   composed é and e + combining accent are the same text), zero-width characters dropped (U+200B-U+200D, U+2060,
 *   U+FEFF), trimmed, every run of whitespace one space. Case-insensitive means both sides lowercased, not full
 *   Unicode case folding: "Maße" and "Masse" stay different words (uppercasing would make both MASSE).
 * - `equals`: the answer equals the expected text, normalized the same way.
 * - `regex`: the expected text is a JavaScript pattern (read as with flag `u`, plus `i` unless caseSensitive)
 *   searched for in the raw answer (not normalized: the pattern says what it accepts) by a linear-time engine (RE2). Refused at the edge when it is longer than
 *   MAX_PATTERN_LENGTH, does not compile, or uses what RE2 cannot run (back-references, lookahead, lookbehind:
 *   regexProblem). An answer longer than MAX_REGEX_ANSWER_LENGTH, or too long for a large pattern, fails the check.
 * - `json-subset`: the expected text is JSON (checked at the edge, at most MAX_JSON_DEPTH deep); the answer, or
 *   else every top-level JSON object or array in it (e.g. inside a ```json fence, after a citation like [1]), is
 *   parsed, and the check passes when the expected value is a subset of one of them: objects match when every expected key matches (extra keys allowed), arrays element by element
 *   with the same length, other values by equality. An answer whose JSON nests deeper than MAX_JSON_DEPTH fails
 *   the check. caseSensitive does not apply.
 * - `judge`: a model grades the answer against expectedOutput and `rubric` (judge.ts).
 */
import { findJsonValues, isJsonSubset, parseExpectedJson } from './checkJson.js';
import { compilePattern, searchPattern } from './checkRegex.js';

export { extractJson, isJsonSubset, MAX_JSON_DEPTH } from './checkJson.js';
export { MAX_PATTERN_LENGTH, MAX_REGEX_ANSWER_LENGTH, regexProblem } from './checkRegex.js';

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

export const DEFAULT_OUTPUT_CHECK: Readonly<OutputCheck> = Object.freeze({ mode: 'contains' });

export function normalizeWhitespace(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

/** Zero-width characters: invisible, and emitted by models and copy-paste alike. */
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;

/** What contains and equals compare: NFC, zero-width characters dropped, whitespace normalized. */
export function normalizeText(text: string): string {
  return normalizeWhitespace(text.normalize('NFC').replace(ZERO_WIDTH, ''));
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
): OutputCheckResult {
  const mode = check.mode;
  const base = { mode, expected };
  const fold = (text: string) => (check.caseSensitive === true ? text : text.toLowerCase());
  switch (mode) {
    case 'contains':
    case 'equals': {
      const got = fold(normalizeText(answer));
      const want = fold(normalizeText(expected));
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
      const pattern = compilePattern(expected, check.caseSensitive === true);
      if ('problem' in pattern) return { ...base, passed: false, reason: pattern.problem };
      const matched = searchPattern(pattern.re, answer);
      if (matched === true) return { ...base, passed: true };
      return {
        ...base,
        passed: false,
        reason: matched === false ? `the final answer does not match /${clip(expected)}/` : matched.bound,
      };
    }
    case 'json-subset': {
      const want = parseExpectedJson(expected);
      if ('problem' in want) return { ...base, passed: false, reason: want.problem };
      const got = findJsonValues(answer);
      if ('problem' in got) return { ...base, passed: false, reason: got.problem };
      if (got.values.some((value) => isJsonSubset(want.value, value))) return { ...base, passed: true };
      const wanted = clip(JSON.stringify(want.value));
      return {
        ...base,
        passed: false,
        reason:
          got.values.length === 1
            ? `the final answer's JSON ${clip(JSON.stringify(got.values[0]))} does not contain ${wanted}`
            : `none of the final answer's ${got.values.length} JSON values contains ${wanted}`,
      };
    }
    case 'judge':
      throw new Error('a judge check is graded by a model (domain/evals/judge.ts), not by checkOutput');
  }
}

/**
 * Why an expectedOutput + outputCheck pair is refused at the edge, or null: a regex that regexProblem refuses, a
 * json-subset expectation that is not JSON or nests deeper than MAX_JSON_DEPTH, a check without an expectedOutput, a
 * rubric outside judge mode.
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
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BooleanLiteral: whether a pattern is refused does not depend on case folding (RE2 compiles a folded literal or class to as many instructions as an unfolded one); the flag only warms the cache entry checkOutput will use
    const pattern = compilePattern(expected, check.caseSensitive === true);
    if ('problem' in pattern) return { path: 'expectedOutput', message: `regex check: ${pattern.problem}` };
  }
  if (check.mode === 'json-subset') {
    const want = parseExpectedJson(expected);
    if ('problem' in want) return { path: 'expectedOutput', message: `json-subset check: ${want.problem}` };
  }
  return null;
}
