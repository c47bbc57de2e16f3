import { unstorableCharacter, type UnstorableCharacter } from '../domain/columnLimits.js';
import { validationError } from './errors.js';

/** Containers (objects, arrays) nested in one another, at most: far beyond any real request, far below a stack. */
export const MAX_JSON_DEPTH = 64;

/** Values (every object, array, string, number, boolean, null) in one request, at most. */
export const MAX_JSON_VALUES = 1_000_000;

export type JsonPath = (string | number)[];

export type JsonProblem =
  | { kind: 'depth'; path: JsonPath }
  | { kind: 'values' }
  /** `inKey`: the character is in a key of the object at `path`, not in a value */
  | { kind: 'character'; character: UnstorableCharacter; path: JsonPath; inKey: boolean };

/** A container still to look into, and how it was reached (its path is only built when a problem is found). */
interface Pending {
  value: object;
  /** containers above this one */
  depth: number;
  key: string | number;
  parent: Pending | undefined;
}

const pathOf = (entry: Pending | undefined): JsonPath => {
  const path: JsonPath = [];
  for (let at = entry; at?.parent; at = at.parent) path.unshift(at.key);
  return path;
};

/**
 * The first thing in a parsed JSON value that the service will not take: nesting past `maxDepth`, more than
 * `maxValues` values, or a string or key Postgres cannot store (NUL, a lone surrogate). Iterative, and it stops at
 * the first problem it meets, so a hostile value costs no more than the bound to check and can never overflow the
 * stack the way a recursive walk (or JSON.stringify) of it would. Only containers are queued: a flat array of a
 * million numbers is one loop.
 */
export function inspectJson(
  value: unknown,
  { maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES } = {},
): JsonProblem | undefined {
  if (typeof value === 'string') {
    const character = unstorableCharacter(value);
    return character ? { kind: 'character', character, path: [], inKey: false } : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const pending: Pending[] = [{ value, depth: 0, key: '', parent: undefined }];
  let values = 1;
  while (pending.length > 0) {
    const entry = pending.pop()!;
    if (entry.depth >= maxDepth) return { kind: 'depth', path: pathOf(entry) };
    const isArray = Array.isArray(entry.value);
    const keys = isArray ? undefined : Object.keys(entry.value);
    const children: unknown[] = isArray
      ? (entry.value as unknown[])
      : keys!.map((k) => (entry.value as Record<string, unknown>)[k]);
    values += children.length;
    if (values > maxValues) return { kind: 'values' };
    // Backwards, so that containers come off the stack in document order.
    for (let i = children.length - 1; i >= 0; i--) {
      const key = isArray ? i : keys![i];
      if (typeof key === 'string') {
        const character = unstorableCharacter(key);
        if (character) return { kind: 'character', character, path: pathOf(entry), inKey: true };
      }
      const child = children[i];
      if (typeof child === 'string') {
        const character = unstorableCharacter(child);
        if (character) return { kind: 'character', character, path: [...pathOf(entry), key], inKey: false };
      } else if (child !== null && typeof child === 'object') {
        pending.push({ value: child, depth: entry.depth + 1, key, parent: entry });
      }
    }
  }
  return undefined;
}

const characterNames: Record<UnstorableCharacter, string> = {
  NUL: 'a NUL character (\\u0000)',
  'lone surrogate': 'a lone surrogate (half of a UTF-16 pair without the other half, e.g. \\ud800)',
};

/** Where a problem is (its path; for depth, only the first levels, which say which field it is) and what it is. */
export function describeJsonProblem(problem: JsonProblem): { path: JsonPath; message: string } {
  switch (problem.kind) {
    case 'depth':
      return {
        path: problem.path.slice(0, 4),
        message: `nested deeper than ${MAX_JSON_DEPTH} levels, the most this service takes`,
      };
    case 'values':
      return {
        path: [],
        message: `holds more than ${MAX_JSON_VALUES.toLocaleString('en')} values (objects, arrays, strings, numbers), the most this service takes`,
      };
    case 'character':
      return {
        path: problem.path,
        message: `${problem.inKey ? 'a key contains' : 'contains'} ${characterNames[problem.character]}, which cannot be stored; send well-formed Unicode text`,
      };
  }
}

const reasons = { depth: 'BODY_TOO_DEEP', values: 'BODY_TOO_MANY_VALUES', character: 'UNSTORABLE_CHARACTER' } as const;

/**
 * The edge's check of everything a request carries (its JSON body, its query, its path): a problem found by
 * inspectJson is a 400 VALIDATION_ERROR that names where it is, in the `body.a.0.b` form of schema errors.
 */
export function refuseUnfitJson(value: unknown, where: 'body' | 'query' | 'path'): void {
  const problem = inspectJson(value);
  if (!problem) return;
  const { path, message } = describeJsonProblem(problem);
  const field = [where, ...path].join('.');
  throw validationError(`${field}: ${message}`, {
    reason: reasons[problem.kind],
    path: field,
    ...(problem.kind === 'depth' && { limit: MAX_JSON_DEPTH }),
    ...(problem.kind === 'values' && { limit: MAX_JSON_VALUES }),
    ...(problem.kind === 'character' && { character: problem.character }),
  });
}
