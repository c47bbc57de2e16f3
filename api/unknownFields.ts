import { closestName } from '../domain/closestName.js';
import { z } from 'zod';

/*
 * The strict-body rule: a key a request schema does not name is refused (zod's strictObject and its
 * `unrecognized_keys` issues), never dropped, so that a misspelt option can never go unnoticed. This file turns
 * those issues into what a user can act on: where the field is, and which name was probably meant, picked from the
 * names the schema accepts at that place. Objects that carry data rather than options (tool arguments, traces,
 * metadata) are records or loose objects, kept whole, and are no concern of this rule.
 *
 * A route that takes another name for a field (an alias, e.g. a public and an internal name) names it in its shape:
 * it is then accepted, documented and suggested like any other key. A name that means something else elsewhere
 * (MCP's `arguments` for Runway's `parameters`) gets a hint of its own with `foreignNames`.
 */

export interface UnknownField {
  /** where, e.g. `body.tests.0.expectedToolcalls` */
  path: string;
  /** the key as sent */
  field: string;
  /** what to write instead, e.g. "did you mean `expectedToolCalls`?" */
  hint?: string;
  message: string;
}

export interface ForeignName {
  /** the name this schema uses for it */
  use: string;
  /** why, e.g. "Runway's name for the MCP `arguments`" */
  why?: string;
}

/** Names that mean something elsewhere, per object schema. Not the global registry: nothing here is documented. */
const foreign = z.registry<{ names: Record<string, ForeignName> }>();

/** Declares, on an object schema, names a caller may bring from elsewhere and the name to use instead. */
export function foreignNames<T extends z.ZodType>(schema: T, names: Record<string, ForeignName>): T {
  foreign.add(schema, { names });
  return schema;
}

/** Case, `_` and `-` do not tell names apart: `ToolName`, `tool_name` and `toolname` are all `toolName`. */
const normalized = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

/** Edits a name of this length may be away from the one meant: none for 1-2 characters, up to 3 for long names. */
const tolerance = (length: number) => (length <= 2 ? 0 : length <= 5 ? 1 : length <= 9 ? 2 : 3);

/** Longer names are nobody's misspelling: no suggestion is looked for (a hostile key costs nothing). */
const LONGEST_NAME = 100;

/** The accepted name `name` most likely misspells, if one is close enough. */
export function suggestName(name: string, accepted: readonly string[]): string | undefined {
  if (name.length > LONGEST_NAME) return undefined;
  return closestName(name, accepted, { normalize: normalized, tolerance });
}

type Step = PropertyKey;

/** The schemas that can stand at `path` inside `schema` (several through a union). */
function schemasAt(schema: z.core.$ZodType, path: readonly Step[]): z.core.$ZodType[] {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return schemasAt(def.innerType, path);
    case 'pipe':
      return [...schemasAt(def.in, path), ...schemasAt(def.out, path)];
    case 'union':
      return def.options.flatMap((option) => schemasAt(option, path));
    case 'intersection':
      return [...schemasAt(def.left, path), ...schemasAt(def.right, path)];
    case 'lazy':
      return schemasAt(def.getter(), path);
  }
  if (path.length === 0) return [schema];
  const [step, ...rest] = path;
  switch (def.type) {
    case 'object': {
      const child = (def.shape as Record<string, z.core.$ZodType>)[String(step)] ?? def.catchall;
      return child ? schemasAt(child, rest) : [];
    }
    case 'array':
      return schemasAt(def.element, rest);
    case 'record':
      return schemasAt(def.valueType, rest);
    case 'tuple':
      return typeof step === 'number' && def.items[step]
        ? schemasAt(def.items[step], rest)
        : def.rest
          ? schemasAt(def.rest, rest)
          : [];
    default:
      return [];
  }
}

/** The keys the object schemas at `path` accept, and the foreign names they declare. */
function namesAt(
  schema: z.core.$ZodType,
  path: readonly Step[],
): { accepted: string[]; foreign: Record<string, ForeignName> } {
  const accepted = new Set<string>();
  const names: Record<string, ForeignName> = {};
  for (const at of schemasAt(schema, path)) {
    const def = (at as z.core.$ZodTypes)._zod.def;
    if (def.type !== 'object') continue;
    for (const key of Object.keys(def.shape)) accepted.add(key);
    Object.assign(names, foreign.get(at as z.ZodType)?.names);
  }
  return { accepted: [...accepted], foreign: names };
}

/** At most this many accepted names are listed when none is close to the unknown one. */
const LISTED = 12;

function hintFor(
  field: string,
  names: { accepted: string[]; foreign: Record<string, ForeignName> },
): string | undefined {
  const elsewhere = Object.hasOwn(names.foreign, field) ? names.foreign[field] : undefined;
  if (elsewhere) return `did you mean \`${elsewhere.use}\`?${elsewhere.why ? ` (${elsewhere.why})` : ''}`;
  // Accepted by another form of a union here (`content` with `action: "decline"`).
  if (names.accepted.includes(field)) return 'allowed only in another form of this object';
  const close = suggestName(field, names.accepted);
  if (close) return `did you mean \`${close}\`?`;
  if (names.accepted.length === 0) return 'no fields are accepted here';
  if (names.accepted.length <= LISTED)
    return `the fields accepted here are ${names.accepted.map((n) => `\`${n}\``).join(', ')}`;
  return undefined;
}

interface Found {
  path: Step[];
  key: string;
}

/**
 * The unknown keys among zod's issues. Inside a union, a key is unknown when every option that took the value for
 * its kind (an object, not a string) found it unknown: `{ acton: "decline" }` misspells a key of every form.
 */
function collect(issues: readonly z.core.$ZodIssue[], base: Step[]): Found[] {
  const found: Found[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) found.push({ path: [...base, ...issue.path], key });
    } else if (issue.code === 'invalid_union') {
      const options = issue.errors.filter(
        (errors) => !errors.some((e) => e.code === 'invalid_type' && e.path.length === 0),
      );
      const perOption = options.map((errors) => collect(errors, [...base, ...issue.path]));
      const id = (f: Found) => JSON.stringify([...f.path.map(String), f.key]);
      const [first = [], ...others] = perOption;
      found.push(...first.filter((f) => others.every((o) => o.some((g) => id(g) === id(f)))));
    }
  }
  return found;
}

/**
 * The keys zod refused as unknown (the first `max`: a body may hold thousands), each with where it is (prefixed
 * with `prefix`, e.g. `body`) and a hint from the names `schema` accepts at that place. Empty when the error has no
 * unknown key.
 */
export function unknownFields(error: z.ZodError, schema: z.ZodType, prefix: string[] = [], max = 20): UnknownField[] {
  const seen = new Set<string>();
  const fields: UnknownField[] = [];
  for (const { path, key } of collect(error.issues, [])) {
    if (fields.length >= max) break;
    const where = [...prefix, ...path.map(String), key].join('.');
    if (seen.has(where)) continue;
    seen.add(where);
    const hint = hintFor(key, namesAt(schema, path));
    fields.push({
      path: where,
      field: key,
      ...(hint && { hint }),
      message: `unknown field \`${where}\`${hint ? `; ${hint}` : ''}`,
    });
  }
  return fields;
}
