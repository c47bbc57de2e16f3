/**
 * Scoring of one eval iteration: compares the tool calls a model made against
 * the calls the case expected. Pure: no I/O, no clock, no randomness.
 *
 * Contract (summary; the tests in test/unit/scoring.test.ts pin every rule):
 *
 * Argument matching (`argumentMatching`):
 * - `partial` (default): only the keys present in the expected arguments are
 *   compared, each by {@link deepEqual}. A top-level expected value that is one
 *   of the strings `any, string, number, boolean, object, array, null`
 *   (trimmed, case-insensitive) is a type check instead of a literal:
 *   `string`/`boolean` by typeof, `number` a finite number, `object` a non-null
 *   non-array object, `array` an array, `null` exactly null, `any` any value.
 *   Every placeholder, `any` included, requires the key to be present in the
 *   actual arguments (a key whose value is `undefined` counts as absent).
 *   Placeholders apply only to top-level argument values; nested values are
 *   compared literally. A literal expected string equal to a placeholder name
 *   is therefore always read as the placeholder.
 * - `exact`: whole-object deep equality, no placeholders.
 * - `ignore`: tool names only.
 * An expected call without `arguments` accepts any arguments in every mode
 * (use `arguments: {}` with `exact` to require a call without arguments).
 *
 * Pairing (`toolCallOrder`), with "compatible" = same name and matching args:
 * - `ignore` (default): each expected call, in order, takes the first unused
 *   compatible actual call. If none is free, an augmenting step may move an
 *   earlier expectation to another compatible call to free one (so a loose
 *   expectation such as `{ q: 'string' }` never steals the only call a later,
 *   stricter expectation could match); when the greedy choice works it is kept.
 *   After that, each still-unpaired expected call is paired with the first
 *   unused same-name call and reported as an argument mismatch; with no unused
 *   same-name call left it is missing.
 * - `strict`: expected call i is compared with actual call i. Same name ->
 *   paired (argument mismatch if incompatible); other name or no call i ->
 *   missing (and actual call i stays unpaired, i.e. unexpected).
 *   Actual calls after the last expected one are extras.
 * - `superset`: the expected calls must form an ordered subsequence of the
 *   actual calls (earliest compatible match, which finds an embedding whenever
 *   one exists). An expected call with no compatible call in order is paired,
 *   as a mismatch, with the first unused same-name call lying between its
 *   neighbours' matches; otherwise it is missing (e.g. called out of order).
 *
 * Unexpected = actual calls not paired with any expected call. They fail the
 * iteration only when there are more than `maxExtraToolCalls` (null = no cap).
 *
 * Negative test (`isNegativeTest`): the expected list is ignored; the iteration
 * passes only when no tool was called, and every actual call is unexpected.
 *
 * The iteration passes when nothing is missing, there is no argument mismatch,
 * the extras are within the cap, and, unless `failOnToolError === false`, no
 * tool call returned an error (`isError`) and `iterationError` is empty
 * (null, undefined or blank). `toolErrors` is always filled in, whatever
 * `failOnToolError` says. An iteration error always fails the iteration
 * unless `failOnToolError === false`.
 */

export type ToolCallOrder = 'ignore' | 'strict' | 'superset';
export type ArgumentMatching = 'partial' | 'exact' | 'ignore';

export interface ExpectedToolCall {
  toolName: string;
  arguments?: Record<string, unknown>;
}

export interface ActualToolCall {
  toolName: string;
  arguments: Record<string, unknown>;
  /** The tool returned an error result. */
  isError?: boolean;
}

export interface MatchOptions {
  toolCallOrder: ToolCallOrder;
  /** Most unpaired actual calls allowed; null = unlimited. */
  maxExtraToolCalls: number | null;
  argumentMatching: ArgumentMatching;
}

export interface ArgumentMismatch {
  expected: ExpectedToolCall;
  actual: ActualToolCall;
  /** partial: the expected keys that differ; exact: the union of differing keys. */
  mismatchedArguments: string[];
}

export interface ToolCallScore {
  passed: boolean;
  missing: ExpectedToolCall[];
  unexpected: ActualToolCall[];
  argumentMismatches: ArgumentMismatch[];
  toolErrors: ActualToolCall[];
  /** Human-readable reasons the iteration failed; empty when it passed. */
  reasons: string[];
}

export interface ScoreToolCallsInput {
  expected: ExpectedToolCall[];
  actual: ActualToolCall[];
  isNegativeTest?: boolean;
  matchOptions?: Partial<MatchOptions>;
  /** Default true: a tool error result or an iteration error fails the iteration. */
  failOnToolError?: boolean;
  iterationError?: string | null;
}

export const DEFAULT_MATCH_OPTIONS: Readonly<MatchOptions> = Object.freeze({
  toolCallOrder: 'ignore',
  maxExtraToolCalls: null,
  argumentMatching: 'partial',
});

export const ARGUMENT_PLACEHOLDERS = ['any', 'string', 'number', 'boolean', 'object', 'array', 'null'] as const;
export type ArgumentPlaceholder = (typeof ARGUMENT_PLACEHOLDERS)[number];

/** Fills in defaults; keys given as `undefined` take the default too. */
export function resolveMatchOptions(options?: Partial<MatchOptions>): MatchOptions {
  return {
    toolCallOrder: options?.toolCallOrder ?? DEFAULT_MATCH_OPTIONS.toolCallOrder,
    maxExtraToolCalls:
      options?.maxExtraToolCalls === undefined ? DEFAULT_MATCH_OPTIONS.maxExtraToolCalls : options.maxExtraToolCalls,
    argumentMatching: options?.argumentMatching ?? DEFAULT_MATCH_OPTIONS.argumentMatching,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function definedKeys(value: Record<string, unknown>): string[] {
  return Object.keys(value).filter((key) => value[key] !== undefined);
}

/**
 * Structural equality for JSON-like data: object key order is ignored, arrays
 * are ordered, numbers compare by value (0 equals -0, NaN equals NaN), and a
 * key holding `undefined` is treated as absent (as in JSON). Dates compare by
 * time. Not meant for cyclic structures.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: dropping either typeof check (or joining them with ||) is equivalent: Number.isNaN of a non-number is false, and a number never equals a non-number further down either
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    // Stryker disable next-line EqualityOperator: `<=` also compares a[length] with b[length], both undefined, hence equal
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keysA = definedKeys(ra);
  if (keysA.length !== definedKeys(rb).length) return false;
  return keysA.every((key) => deepEqual(ra[key], rb[key]));
}

/** The placeholder an expected argument value stands for, or null for a literal. */
export function argumentPlaceholder(value: unknown): ArgumentPlaceholder | null {
  if (typeof value !== 'string') return null;
  const normalized = value.trim().toLowerCase();
  return (ARGUMENT_PLACEHOLDERS as readonly string[]).includes(normalized) ? (normalized as ArgumentPlaceholder) : null;
}

function satisfiesPlaceholder(placeholder: ArgumentPlaceholder, present: boolean, value: unknown): boolean {
  if (!present) return false;
  switch (placeholder) {
    case 'any':
      return true;
    case 'string':
      return typeof value === 'string';
    case 'number':
      // Stryker disable next-line ConditionalExpression: Number.isFinite never coerces, so it is false for every non-number without the typeof check
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
  }
}

/**
 * The argument keys on which `actual` fails `expected` under `mode`; an empty
 * list means the arguments are compatible.
 */
export function compareArguments(
  expected: Record<string, unknown> | undefined,
  actual: Record<string, unknown> | undefined,
  mode: ArgumentMatching,
): string[] {
  if (mode === 'ignore' || expected === undefined) return [];
  const actualArgs: Record<string, unknown> = isRecord(actual) ? actual : {};
  if (mode === 'exact') {
    const keys = [...Object.keys(expected)];
    for (const key of Object.keys(actualArgs)) if (!Object.hasOwn(expected, key)) keys.push(key);
    return keys.filter((key) => !deepEqual(expected[key], actualArgs[key]));
  }
  return Object.keys(expected).filter((key) => {
    const wanted = expected[key];
    const placeholder = argumentPlaceholder(wanted);
    if (placeholder === null) return !deepEqual(wanted, actualArgs[key]);
    const present = Object.hasOwn(actualArgs, key) && actualArgs[key] !== undefined;
    return !satisfiesPlaceholder(placeholder, present, actualArgs[key]);
  });
}

interface Pairing {
  /** actualIndex[e] = index of the actual call paired with expected call e, or -1. */
  actualIndex: number[];
  /** Reason text for each expected call left missing, by expected index. */
  missingReasons: Map<number, string>;
}

function describeValue(value: unknown): string {
  let text: string;
  if (value === undefined) return 'nothing';
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function describeMismatch(
  expected: ExpectedToolCall,
  actual: ActualToolCall,
  keys: string[],
  mode: ArgumentMatching,
): string {
  const expectedArgs = expected.arguments ?? {};
  const actualArgs = isRecord(actual.arguments) ? actual.arguments : {};
  return keys
    .map((key) => {
      const wanted = expectedArgs[key];
      const placeholder = mode === 'partial' ? argumentPlaceholder(wanted) : null;
      const wantedText = placeholder ? `<${placeholder}>` : describeValue(wanted);
      return `${key} (expected ${wantedText}, got ${describeValue(actualArgs[key])})`;
    })
    .join(', ');
}

function pairIgnoringOrder(
  expected: ExpectedToolCall[],
  actual: ActualToolCall[],
  compatible: (e: number, a: number) => boolean,
): Pairing {
  const owner = actual.map(() => -1);
  const actualIndex = expected.map(() => -1);

  // Kuhn's augmenting path: re-route an earlier expectation to another compatible call.
  const augment = (e: number, visited: boolean[]): boolean => {
    for (let a = 0; a < actual.length; a++) {
      if (visited[a] || !compatible(e, a)) continue;
      visited[a] = true;
      if (owner[a] === -1 || augment(owner[a], visited)) {
        owner[a] = e;
        actualIndex[e] = a;
        return true;
      }
    }
    return false;
  };

  for (let e = 0; e < expected.length; e++) {
    const free = actual.findIndex((_, a) => owner[a] === -1 && compatible(e, a));
    if (free !== -1) {
      owner[free] = e;
      actualIndex[e] = free;
    } else {
      augment(
        e,
        // Stryker disable next-line ArrowFunction: an array of undefined reads as unvisited just as one of false does
        actual.map(() => false),
      );
    }
  }

  const missingReasons = new Map<number, string>();
  // Stryker disable next-line EqualityOperator: at e = expected.length, actualIndex[e] is undefined, not -1, so that round only continues or moves nothing that is read
  for (let e = 0; e < expected.length; e++) {
    if (actualIndex[e] !== -1) continue;
    const name = expected[e].toolName;
    const sameName = actual.findIndex((call, a) => owner[a] === -1 && call.toolName === name);
    if (sameName !== -1) {
      owner[sameName] = e;
      actualIndex[e] = sameName;
      continue;
    }
    missingReasons.set(
      e,
      missingReason(
        name,
        e,
        actual,
        (calls) => `"${name}" was called ${calls} time(s), but every call was matched to another expectation`,
      ),
    );
  }
  return { actualIndex, missingReasons };
}

/**
 * Why expected call #e+1 found no partner when order is not strict: the tool was never called, else `whenCalled`
 * says what became of its calls (given how many there were).
 */
function missingReason(
  name: string,
  e: number,
  actual: ActualToolCall[],
  whenCalled: (calls: number) => string,
): string {
  const calls = actual.filter((call) => call.toolName === name).length;
  return `Missing tool call "${name}" (expected #${e + 1}): ${calls === 0 ? 'the tool was never called' : whenCalled(calls)}`;
}

function pairStrict(expected: ExpectedToolCall[], actual: ActualToolCall[]): Pairing {
  const actualIndex = expected.map(() => -1);
  const missingReasons = new Map<number, string>();
  expected.forEach((call, e) => {
    const candidate = actual[e];
    if (candidate === undefined) {
      missingReasons.set(
        e,
        `Missing tool call "${call.toolName}" at position ${e + 1}: only ${actual.length} tool call(s) were made`,
      );
    } else if (candidate.toolName !== call.toolName) {
      missingReasons.set(
        e,
        `Missing tool call "${call.toolName}" at position ${e + 1}: "${candidate.toolName}" was called there instead`,
      );
    } else {
      actualIndex[e] = e;
    }
  });
  return { actualIndex, missingReasons };
}

function pairAsSubsequence(
  expected: ExpectedToolCall[],
  actual: ActualToolCall[],
  compatible: (e: number, a: number) => boolean,
): Pairing {
  const actualIndex = expected.map(() => -1);
  // Stryker disable next-line ArrowFunction: an array of undefined reads as unused just as one of false does
  const used = actual.map(() => false);

  // Earliest compatible match in order; an unmatched expectation does not move the cursor.
  let cursor = 0;
  for (let e = 0; e < expected.length; e++) {
    for (let a = cursor; a < actual.length; a++) {
      if (compatible(e, a)) {
        actualIndex[e] = a;
        // Stryker disable next-line BooleanLiteral: the second pass looks only strictly between the calls matched here, so it never reads these marks
        used[a] = true;
        cursor = a + 1;
        break;
      }
    }
  }

  const missingReasons = new Map<number, string>();
  let last = -1;
  // Stryker disable next-line EqualityOperator: at e = expected.length, actualIndex[e] is undefined, not -1, so that round only continues or moves nothing that is read
  for (let e = 0; e < expected.length; e++) {
    if (actualIndex[e] !== -1) {
      last = actualIndex[e];
      continue;
    }
    let next = actual.length;
    for (let later = e + 1; later < expected.length; later++) {
      if (actualIndex[later] !== -1) {
        next = actualIndex[later];
        break;
      }
    }
    const name = expected[e].toolName;
    let found = -1;
    for (let a = last + 1; a < next; a++) {
      if (!used[a] && actual[a].toolName === name) {
        found = a;
        break;
      }
    }
    if (found !== -1) {
      actualIndex[e] = found;
      // Stryker disable next-line BooleanLiteral: the search for the next expectation starts after `found` (last = found), so this mark is never read
      used[found] = true;
      last = found;
      continue;
    }
    missingReasons.set(
      e,
      missingReason(name, e, actual, () => `"${name}" was called, but not in the expected order`),
    );
  }
  return { actualIndex, missingReasons };
}

function listNames(calls: ActualToolCall[]): string {
  return calls.map((call) => call.toolName).join(', ');
}

/** Scores one iteration's tool calls against the expectation. See the module comment for the rules. */
export function scoreToolCalls(input: ScoreToolCallsInput): ToolCallScore {
  const { expected, actual } = input;
  const options = resolveMatchOptions(input.matchOptions);
  const failOnToolError = input.failOnToolError !== false;
  const iterationError = typeof input.iterationError === 'string' ? input.iterationError.trim() : '';

  const missing: ExpectedToolCall[] = [];
  const argumentMismatches: ArgumentMismatch[] = [];
  const reasons: string[] = [];
  let unexpected: ActualToolCall[];

  if (input.isNegativeTest) {
    unexpected = [...actual];
    if (actual.length > 0) {
      reasons.push(`Negative test expected no tool calls, but ${actual.length} were made: ${listNames(actual)}`);
    }
  } else {
    const mismatchCache = new Map<string, string[]>();
    const mismatchedKeys = (e: number, a: number): string[] => {
      const cacheKey = `${e}:${a}`;
      let keys = mismatchCache.get(cacheKey);
      // Stryker disable next-line ConditionalExpression: the cache only saves work: compareArguments is pure, recomputing gives the same keys
      if (keys === undefined) {
        keys = compareArguments(expected[e].arguments, actual[a].arguments, options.argumentMatching);
        mismatchCache.set(cacheKey, keys);
      }
      return keys;
    };
    const compatible = (e: number, a: number): boolean =>
      expected[e].toolName === actual[a].toolName && mismatchedKeys(e, a).length === 0;

    const pairing =
      options.toolCallOrder === 'strict'
        ? pairStrict(expected, actual)
        : options.toolCallOrder === 'superset'
          ? pairAsSubsequence(expected, actual, compatible)
          : pairIgnoringOrder(expected, actual, compatible);

    const paired = new Set<number>();
    expected.forEach((call, e) => {
      const a = pairing.actualIndex[e];
      if (a === -1) {
        missing.push(call);
        // Stryker disable next-line StringLiteral,ArithmeticOperator: unreachable fallback: every pairing gives a reason for each call it leaves missing
        reasons.push(pairing.missingReasons.get(e) ?? `Missing tool call "${call.toolName}" (expected #${e + 1})`);
        return;
      }
      paired.add(a);
      const keys = mismatchedKeys(e, a);
      if (keys.length > 0) {
        argumentMismatches.push({ expected: call, actual: actual[a], mismatchedArguments: keys });
        reasons.push(
          `Arguments of "${call.toolName}" (expected #${e + 1}, call #${a + 1}) do not match: ${describeMismatch(call, actual[a], keys, options.argumentMatching)}`,
        );
      }
    });
    unexpected = actual.filter((_, a) => !paired.has(a));

    const cap = options.maxExtraToolCalls;
    if (cap !== null && unexpected.length > cap) {
      reasons.push(`${unexpected.length} unexpected tool call(s) exceed the limit of ${cap}: ${listNames(unexpected)}`);
    }
  }

  const toolErrors = actual.filter((call) => call.isError === true);
  if (failOnToolError) {
    actual.forEach((call, a) => {
      if (call.isError === true) reasons.push(`Tool call "${call.toolName}" (call #${a + 1}) returned an error`);
    });
    if (iterationError !== '') reasons.push(`Iteration error: ${iterationError}`);
  }

  return {
    passed: reasons.length === 0,
    missing,
    unexpected,
    argumentMismatches,
    toolErrors,
    reasons,
  };
}
