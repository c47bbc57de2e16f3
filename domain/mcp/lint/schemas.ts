import { createRequire } from 'node:module';
import vm from 'node:vm';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { SCHEMA_COMPILE_MS } from '../../untrustedSchema.js';

/** Ajv's copy of the draft-06 meta-schema, read as JSON (an import of it would need an attribute not every loader keeps). */
const draft06 = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json') as Record<string, unknown>;

/**
 * Whether a tool's input or output schema is valid JSON Schema, in the dialect it names (`$schema`) or 2020-12, the
 * default since MCP 2025-11-25 (basic, "JSON Schema Usage"; SEP-1613). Two checks: the schema against its dialect's
 * meta-schema (each error with the JSON Pointer of the place in the schema), then a compile with Ajv (strict off),
 * which finds what a meta-schema cannot: a `$ref` to nothing, a pattern that is no regular expression.
 *
 * A server's schema is untrusted (domain/untrustedSchema.ts): it is walked iteratively, and one larger or deeper
 * than a real tool's is not checked (SCHEMA_MAX_NODES, SCHEMA_MAX_DEPTH); each check runs under node:vm's
 * watchdog (SCHEMA_COMPILE_MS), and a whole lint spends at most LINT_SCHEMA_BUDGET_MS on schemas. Nothing here runs
 * a value against the schema, so no pattern is ever executed.
 */

/** Nodes (objects and arrays) of one schema the lint walks; past this it is too large to check. */
export const SCHEMA_MAX_NODES = 5_000;
/** Nesting of one schema the lint follows; past this it is too deep to check. */
export const SCHEMA_MAX_DEPTH = 64;
/** Time all the schema checks of one lint may take together. */
export const LINT_SCHEMA_BUDGET_MS = 1_500;

export type Dialect = 'draft6' | 'draft7' | 'draft2019' | 'draft2020';

const META: Record<Dialect, string> = {
  draft6: 'http://json-schema.org/draft-06/schema',
  draft7: 'http://json-schema.org/draft-07/schema',
  draft2019: 'https://json-schema.org/draft/2019-09/schema',
  draft2020: 'https://json-schema.org/draft/2020-12/schema',
};

const DIALECT_NAMES: Record<Dialect, string> = {
  draft6: 'draft-06',
  draft7: 'draft-07',
  draft2019: '2019-09',
  draft2020: '2020-12',
};

/** The dialect a `$schema` names: undefined for one the lint does not know. Absent: 2020-12. */
export function dialectOf($schema: unknown): Dialect | undefined {
  if ($schema === undefined) return 'draft2020';
  if (typeof $schema !== 'string') return undefined;
  const uri = $schema.replace(/^https?:\/\//, '').replace(/#$/, '');
  if (uri === 'json-schema.org/draft/2020-12/schema') return 'draft2020';
  if (uri === 'json-schema.org/draft/2019-09/schema') return 'draft2019';
  if (uri === 'json-schema.org/draft-07/schema') return 'draft7';
  if (uri === 'json-schema.org/draft-06/schema') return 'draft6';
  return undefined;
}

export type SchemaProblem =
  | { kind: 'invalid'; message: string; pointer: string }
  | { kind: 'not-object'; message: string; pointer: string }
  | { kind: 'unchecked'; message: string; pointer?: string };

/** A description or title of a schema node, with its JSON Pointer. */
export interface SchemaText {
  pointer: string;
  text: string;
}

/** Keywords whose value is a schema, a map of schemas, or an array of schemas (2020-12 and the drafts before). */
const SCHEMA_VALUED = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_ARRAYS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The schema's shape, walked without recursion: its size and depth, and the descriptions and titles of its schema
 * nodes (what a model reads: `properties.query.description`). Stops counting past the caps.
 */
export function walkSchema(schema: unknown): {
  nodes: number;
  depth: number;
  texts: SchemaText[];
  patterns: { pointer: string; pattern: string }[];
} {
  const texts: SchemaText[] = [];
  const patterns: { pointer: string; pattern: string }[] = [];
  let nodes = 0;
  let depth = 0;
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value: schema, pointer: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, pointer, depth: at } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    nodes++;
    depth = Math.max(depth, at);
    if (nodes > SCHEMA_MAX_NODES || depth > SCHEMA_MAX_DEPTH) break;
    if (Array.isArray(value)) continue;
    const node = value as Record<string, unknown>;
    for (const key of ['title', 'description'])
      if (typeof node[key] === 'string') texts.push({ pointer: `${pointer}/${key}`, text: node[key] });
    if (typeof node.pattern === 'string') patterns.push({ pointer: `${pointer}/pattern`, pattern: node.pattern });
    if (typeof node.patternProperties === 'object' && node.patternProperties !== null)
      for (const key of Object.keys(node.patternProperties))
        patterns.push({ pointer: `${pointer}/patternProperties/${escapePointer(key)}`, pattern: key });
    for (const [key, child] of Object.entries(node)) {
      const here = `${pointer}/${escapePointer(key)}`;
      if (SCHEMA_MAPS.has(key) && typeof child === 'object' && child !== null && !Array.isArray(child)) {
        nodes++;
        for (const [name, sub] of Object.entries(child))
          stack.push({ value: sub, pointer: `${here}/${escapePointer(name)}`, depth: at + 1 });
      } else if (SCHEMA_ARRAYS.has(key) && Array.isArray(child)) {
        nodes++;
        child.forEach((sub, i) => stack.push({ value: sub, pointer: `${here}/${i}`, depth: at + 1 }));
      } else if (SCHEMA_VALUED.has(key)) {
        stack.push({ value: child, pointer: here, depth: at + 1 });
      } else if (typeof child === 'object' && child !== null) {
        // Data (enum, const, default, examples) and unknown keywords: counted for size, never read as schemas.
        nodes += countNodes(child, SCHEMA_MAX_NODES - nodes);
      }
    }
  }
  texts.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
  return { nodes, depth, texts, patterns };
}

/** Objects and arrays inside `value`, counted iteratively up to `cap`. */
function countNodes(value: unknown, cap: number): number {
  let count = 0;
  const stack = [value];
  while (stack.length > 0 && count <= cap) {
    const next = stack.pop();
    if (typeof next !== 'object' || next === null) continue;
    count++;
    stack.push(...(Array.isArray(next) ? next : Object.values(next)));
  }
  return count;
}

// addUsedSchema: a schema that refers to itself (`"$ref": "#"`) resolves only when Ajv registers it; each one is
// removed once compiled, so two tools with one `$id` do not meet.
const OPTIONS: Options = {
  strict: false,
  allErrors: true,
  addUsedSchema: true,
  validateSchema: false,
  inlineRefs: false,
  logger: false,
};

/** The Ajv instances of one lint (one per dialect, made when first needed) and the time its checks have spent. */
export class SchemaChecker {
  private readonly instances = new Map<Dialect, Ajv>();
  private spentMs = 0;

  private ajv(dialect: Dialect): Ajv {
    let ajv = this.instances.get(dialect);
    if (!ajv) {
      const Dialect = { draft6: Ajv, draft7: Ajv, draft2019: Ajv2019, draft2020: Ajv2020 }[dialect];
      ajv = new Dialect(OPTIONS);
      formats.default(ajv);
      if (dialect === 'draft6') ajv.addMetaSchema(draft06);
      this.instances.set(dialect, ajv);
    }
    return ajv;
  }

  private compile(dialect: Dialect, schema: Record<string, unknown>): ValidateFunction | Stopped {
    const ajv = this.ajv(dialect);
    try {
      return withinBudget(() => ajv.compile(schema));
    } finally {
      try {
        ajv.removeSchema(schema);
      } catch {
        // Not registered (it did not compile): nothing to remove.
      }
    }
  }

  /** What is wrong with one tool schema; `input`: the tool's inputSchema (which MUST be an object schema). */
  check(schema: unknown, which: 'inputSchema' | 'outputSchema'): SchemaProblem[] {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
      return [{ kind: 'invalid', pointer: '', message: `the ${which} is not a JSON Schema object` }];
    const record = schema as Record<string, unknown>;
    const problems: SchemaProblem[] = [];
    if (record.type !== 'object') {
      problems.push({
        kind: 'not-object',
        pointer: '/type',
        message: `the ${which} has ${record.type === undefined ? 'no type' : `type ${JSON.stringify(record.type)}`}: MCP's schema requires type "object" at its root (a tool's arguments${which === 'outputSchema' ? ', and its structuredContent,' : ''} are a JSON object)`,
      });
    }
    const { $schema, ...rest } = record;
    const dialect = dialectOf($schema);
    if (!dialect) {
      if (typeof $schema !== 'string')
        return [...problems, { kind: 'invalid', pointer: '/$schema', message: '$schema must be a string (a URI)' }];
      return [
        ...problems,
        {
          kind: 'unchecked',
          pointer: '/$schema',
          message: `the ${which} names a JSON Schema dialect Runway does not check (${JSON.stringify($schema.slice(0, 200))}); MCP's default is 2020-12, and implementations need support no other`,
        },
      ];
    }
    const shape = walkSchema(record);
    if (shape.nodes > SCHEMA_MAX_NODES || shape.depth > SCHEMA_MAX_DEPTH) {
      return [
        ...problems,
        {
          kind: 'unchecked',
          message: `the ${which} is too ${shape.depth > SCHEMA_MAX_DEPTH ? `deep (more than ${SCHEMA_MAX_DEPTH} levels)` : `large (more than ${SCHEMA_MAX_NODES} nodes)`} to check`,
        },
      ];
    }
    if (this.spentMs >= LINT_SCHEMA_BUDGET_MS) {
      return [
        ...problems,
        { kind: 'unchecked', message: `not checked: this lint spent its ${LINT_SCHEMA_BUDGET_MS} ms for schemas` },
      ];
    }
    const ajv = this.ajv(dialect);
    const name = DIALECT_NAMES[dialect];
    const started = Date.now();
    try {
      const meta = withinBudget(() => ajv.validate(META[dialect], rest));
      if (meta instanceof Stopped) return [...problems, { kind: 'unchecked', message: `the ${which} ${meta.reason}` }];
      if (!meta) {
        for (const error of oneErrorPerPlace(ajv.errors ?? []).slice(0, 5))
          problems.push({
            kind: 'invalid',
            pointer: error.instancePath,
            message: `the ${which} is not valid JSON Schema ${name}: ${describe(error)}`,
          });
        return problems;
      }
      for (const { pointer, pattern } of shape.patterns) {
        const problem = regexProblem(pattern);
        if (problem)
          problems.push({
            kind: 'invalid',
            pointer,
            message: `the ${which} is not valid JSON Schema ${name}: at ${pointer} ${problem}`,
          });
      }
      if (problems.some((p) => p.kind === 'invalid')) return problems;
      let compiled = this.compile(dialect, rest);
      // Another schema of this lint left an `$id` behind (nested ones stay registered): a clean instance decides.
      if (compiled instanceof Stopped && /already exists|resolves to more than one schema/.test(compiled.reason)) {
        this.instances.delete(dialect);
        compiled = this.compile(dialect, rest);
      }
      if (compiled instanceof Stopped) {
        if (compiled.timedOut || compiled.tooDeep)
          return [...problems, { kind: 'unchecked', message: `the ${which} ${compiled.reason}` }];
        const missingRef = compiled.missingRef;
        problems.push(
          missingRef !== undefined && !missingRef.startsWith('#')
            ? {
                kind: 'unchecked',
                pointer: '',
                message: `the ${which} refers to a schema outside itself (${JSON.stringify(missingRef.slice(0, 200))}), which clients do not fetch: it cannot be checked`,
              }
            : {
                kind: 'invalid',
                pointer: '',
                message: `the ${which} is not valid JSON Schema ${name}: ${compiled.reason}`,
              },
        );
      }
      return problems;
    } finally {
      this.spentMs += Date.now() - started;
    }
  }
}

/**
 * Why `pattern` is no regular expression in JSON Schema's sense (ECMA-262, with Unicode, as Ajv and JSON Schema's
 * `regex` format read it), or undefined. Compiling a pattern is linear in its length: nothing is matched.
 */
function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (error) {
    return `is no regular expression (${(error as Error).message.slice(0, 300)})`;
  }
}

/**
 * The meta-schema's errors, one per place in the schema: a wrong `type` fails the meta-schema's anyOf of a name and
 * an array of names, and says so three times; the first, most specific, is kept.
 */
function oneErrorPerPlace(errors: ErrorObject[]): ErrorObject[] {
  const kept = new Map<string, ErrorObject>();
  for (const error of errors) if (!kept.has(error.instancePath)) kept.set(error.instancePath, error);
  return [...kept.values()];
}

const describe = (error: ErrorObject) => {
  const where = error.instancePath === '' ? 'at the root' : `at ${error.instancePath}`;
  const extra = error.keyword === 'enum' ? ` (${JSON.stringify(error.params.allowedValues)})` : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
};

/** What stopped a check: its time, the stack, or an error (a `$ref` to nothing: `missingRef`). */
class Stopped {
  constructor(
    readonly reason: string,
    readonly timedOut: boolean,
    readonly tooDeep: boolean,
    readonly missingRef?: string,
  ) {}
}

const budgetContext = vm.createContext({ task: undefined as (() => unknown) | undefined });
const runTask = new vm.Script('task()');

function withinBudget<T>(task: () => T): T | Stopped {
  budgetContext.task = task;
  try {
    return runTask.runInContext(budgetContext, { timeout: SCHEMA_COMPILE_MS }) as T;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
      return new Stopped(`takes more than ${SCHEMA_COMPILE_MS} ms to check`, true, false);
    if (error instanceof RangeError) return new Stopped('is nested too deeply to check', false, true);
    const missingRef = (error as { missingRef?: unknown }).missingRef;
    return new Stopped(
      error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500),
      false,
      false,
      typeof missingRef === 'string' ? missingRef : undefined,
    );
  } finally {
    budgetContext.task = undefined;
  }
}
