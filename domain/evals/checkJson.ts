/**
 * The JSON of an answer, for json-subset checks and the judge's verdict, found in bounded time and depth: one pass
 * over the answer finds the balanced bracketed spans (strings and escapes respected), and at most
 * MAX_JSON_CANDIDATES of them are parsed, first by position; a value nested deeper than the limit is not used (the
 * subset comparison recurses, so depth is what bounds it).
 */
import { limits } from '../limits.js';
import { deepEqual } from './scoring.js';

/** Only this much of an answer is searched for JSON. */
export const MAX_JSON_SCAN = 200_000;
/** Most bracketed spans of one answer parsed in search of its JSON. */
export const MAX_JSON_CANDIDATES = 64;
/** Deepest JSON an output check compares (expectation and answer), in nested arrays and objects. */
export const MAX_JSON_DEPTH = limits.outputCheckJsonDepth;

export type FoundJson = { value: unknown } | { problem: string };

/** How deep a parsed JSON value nests (a scalar 0, `[]` 1), counted up to `cap + 1`; iterative, so never overflows. */
export function jsonDepth(value: unknown, cap = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > cap) return deepest;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, here]);
  }
  return deepest;
}

const tooDeep = (what: string) => `${what} nested deeper than ${MAX_JSON_DEPTH} levels`;

/** The balanced `{...}`/`[...]` spans of the text, by start: one pass, a stack of the brackets still open. */
function balancedSpans(text: string): [start: number, end: number][] {
  const spans: [number, number][] = [];
  const open: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '{' || ch === '[') open.push(i);
    else if (open.length === 0) continue;
    else if (ch === '"') inString = true;
    else if (ch === '}' || ch === ']') {
      const start = open.pop()!;
      // a closer that does not match breaks every span still open
      if (text[start] !== (ch === '}' ? '{' : '[')) open.length = 0;
      else spans.push([start, i]);
    }
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

/**
 * Every JSON value of the answer, for json-subset checks: all of it when it parses, else each bracketed span that
 * parses and does not lie inside one already taken (a value nested in another is part of it), first by position,
 * among the first MAX_JSON_CANDIDATES spans; or why there is none, as findJson says. A value nested deeper than
 * MAX_JSON_DEPTH is not used.
 */
export function findJsonValues(answer: string): { values: unknown[] } | { problem: string } {
  const text = answer.slice(0, MAX_JSON_SCAN);
  try {
    const whole = JSON.parse(text.trim()) as unknown;
    return jsonDepth(whole) > MAX_JSON_DEPTH ? { problem: tooDeep("the final answer's JSON is") } : { values: [whole] };
  } catch {
    // look inside
  }
  const spans = balancedSpans(text);
  const values: unknown[] = [];
  let tooDeepSeen = false;
  let takenUntil = -1;
  for (const [start, end] of spans.slice(0, MAX_JSON_CANDIDATES)) {
    if (start <= takenUntil) continue;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start, end + 1)) as unknown;
    } catch {
      continue;
    }
    takenUntil = end;
    if (jsonDepth(value) > MAX_JSON_DEPTH) tooDeepSeen = true;
    else values.push(value);
  }
  if (values.length > 0) return { values };
  if (tooDeepSeen) return { problem: tooDeep("the final answer's JSON is") };
  return {
    problem:
      spans.length > MAX_JSON_CANDIDATES
        ? `the final answer holds no JSON value in its first ${MAX_JSON_CANDIDATES} bracketed spans`
        : 'the final answer holds no JSON value',
  };
}

/** The first JSON value of the answer (see findJsonValues), or why there is none: what the judge's reply is read from. */
export function findJson(answer: string): FoundJson {
  const found = findJsonValues(answer);
  return 'problem' in found ? found : { value: found.values[0] };
}

/** The JSON value of the answer (see findJson), or undefined when none is used. */
export function extractJson(answer: string): unknown {
  const found = findJson(answer);
  return 'value' in found ? found.value : undefined;
}

/** The expected JSON, or why it cannot be compared: not JSON, or nested deeper than MAX_JSON_DEPTH. */
export function parseExpectedJson(expected: string): FoundJson {
  let value: unknown;
  try {
    value = JSON.parse(expected) as unknown;
  } catch {
    return { problem: 'expectedOutput must be JSON' };
  }
  return jsonDepth(value) > MAX_JSON_DEPTH ? { problem: tooDeep('expectedOutput is JSON') } : { value };
}

/**
 * `expected` is a subset of `actual`: objects match when every expected key matches (extra keys allowed), arrays
 * element by element with the same length, other values by equality. Recursion follows `expected`, whose depth the
 * callers bound.
 */
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
