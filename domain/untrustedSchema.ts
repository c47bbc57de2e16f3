import vm from 'node:vm';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import { compileLinear } from './linearPattern.js';

/**
 * How long checking one value may hold the event loop. Checking a value against a real tool's schema takes
 * microseconds; a schema that runs out is uncheckable from then on, so that each hostile schema costs its owner (a
 * case generation, a session) one budget at most.
 */
export const SCHEMA_CHECK_MS = 100;

/**
 * How long compiling one schema may take. Compiling takes time in proportion to the schema's size (no `$ref` is
 * copied into the places that use it), a few milliseconds for a real tool's, tens cold on a busy machine: this
 * stops only a schema too large to compile, and leaves room for a loaded machine, whose clock runs on while the
 * process waits for a CPU.
 */
export const SCHEMA_COMPILE_MS = 1_000;

/** What checking one value against a schema found. */
export type SchemaVerdict =
  | { kind: 'valid' }
  | { kind: 'invalid'; errors: ErrorObject[]; text: string }
  | { kind: 'uncheckable'; reason: string };

/** A compiled schema: checks one value. */
export type SchemaCheck = (data: unknown) => SchemaVerdict;

type Dialect = 'draft7' | 'draft2019' | 'draft2020';

/**
 * The one place where JSON Schema written by someone else (an MCP server's tool input and output schemas, its
 * elicitation forms) is compiled and run, so that no schema and no value can hold the process:
 * - patterns (`pattern`, `patternProperties`) run on a linear-time engine (linearPattern.ts): a pattern it cannot run
 *   (lookaround, back-references) makes the schema uncheckable, never falls back to JavaScript's backtracking one;
 * - each check stops after SCHEMA_CHECK_MS (a schema whose `$ref`s visit a value 2^n times), compiling after
 *   SCHEMA_COMPILE_MS; a value nested past the stack is uncheckable, not a crash;
 * - a `$ref` is compiled once, never copied into each place that uses it (Ajv's `inlineRefs`), so compiling takes
 *   time in proportion to the schema's size.
 * The dialect is the one the schema names in `$schema`: draft-07 (and older) or 2019-09; 2020-12 otherwise, MCP's
 * default. A schema that cannot be compiled (a remote `$ref`, an unknown dialect) checks nothing: each of its
 * verdicts says why it cannot be checked.
 *
 * Ajv keeps every schema it compiles: an instance lives as long as what it checks for (a case generation, one
 * elicitation, one session).
 */
export class UntrustedSchemas {
  private readonly dialects = new Map<Dialect, Ajv>();

  /**
   * The check of one schema, compiled on its first check: making checks costs nothing (the SDK's Client makes one
   * for every tool listed). What does not compile never will: each verdict then says why.
   */
  compile(schema: Record<string, unknown>): SchemaCheck {
    const { $schema, ...rest } = schema;
    const dialect = dialectOf($schema);
    let validate: ValidateFunction | undefined;
    let failed: SchemaVerdict | undefined;
    return (data) => {
      if (failed) return failed;
      const ajv = this.ajv(dialect);
      if (!validate) {
        const compiled = withinBudget(() => ajv.compile(rest), SCHEMA_COMPILE_MS);
        if (isStopped(compiled)) {
          // Stopped mid-way, Ajv may hold half a schema: the next one gets an instance of its own.
          if (compiled.timedOut) this.dialects.delete(dialect);
          failed = { kind: 'uncheckable', reason: compiled.reason };
          return failed;
        }
        validate = compiled;
      }
      const run = validate;
      let checked: unknown = withinBudget(() => run(data), SCHEMA_CHECK_MS);
      // Stopped by the clock once, a check gets one more try: a process starved of CPU for a moment (a busy
      // machine) must not call a simple schema uncheckable for good; a schema that really takes that long takes it
      // again (the bound is then twice SCHEMA_CHECK_MS, once per schema: the verdict sticks).
      if (isStopped(checked) && checked.timedOut) checked = withinBudget(() => run(data), SCHEMA_CHECK_MS);
      if (checked === true) return { kind: 'valid' };
      if (checked === false) {
        const errors = run.errors ?? [];
        return { kind: 'invalid', errors, text: ajv.errorsText(errors) };
      }
      if (isStopped(checked)) {
        const verdict: SchemaVerdict = { kind: 'uncheckable', reason: checked.reason };
        // What ran out of time once would again (a value nested too deeply is that value's problem).
        if (checked.timedOut) failed = verdict;
        return verdict;
      }
      // An `$async` schema answers with a promise: never left to reject unhandled (that would end the process).
      if (checked instanceof Promise) checked.catch(() => undefined);
      failed = { kind: 'uncheckable', reason: 'an asynchronous ($async) schema is not checked' };
      return failed;
    };
  }

  private ajv(dialect: Dialect): Ajv {
    const ajv = this.dialects.get(dialect);
    if (!ajv) {
      const Dialect = { draft7: Ajv, draft2019: Ajv2019, draft2020: Ajv2020 }[dialect];
      const created: Ajv = new Dialect(OPTIONS);
      formats.default(created);
      this.dialects.set(dialect, created);
      return created;
    }
    return ajv;
  }
}

/** What stopped a task: a throw, the stack, or the time. */
class Stopped {
  constructor(
    readonly reason: string,
    readonly timedOut: boolean,
  ) {}
}
const isStopped = (value: unknown): value is Stopped => value instanceof Stopped;

// The watchdog of node:vm is what can stop synchronous code: Ajv's generated functions run inside `task()`.
const budgetContext = vm.createContext({ task: undefined as (() => unknown) | undefined });
const runTask = new vm.Script('task()');

/** Runs `task` for `ms` at most; what stopped it otherwise. */
function withinBudget<T>(task: () => T, ms: number): T | Stopped {
  budgetContext.task = task;
  try {
    return runTask.runInContext(budgetContext, { timeout: ms }) as T;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
      return new Stopped(`${ms === SCHEMA_CHECK_MS ? 'checking' : 'compiling'} it takes more than ${ms} ms`, true);
    if (error instanceof RangeError) return new Stopped('it or the value is nested too deeply to check', false);
    return new Stopped(error instanceof Error ? error.message : String(error), false);
  } finally {
    budgetContext.task = undefined;
  }
}

/**
 * Ajv's RegExpEngine on the linear-time engine (linearPattern.ts: a pattern keeps JavaScript's meaning, as JSON
 * Schema asks, and what RE2 cannot run, lookaround or back-references, is refused: the schema cannot be checked).
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const compiled = compileLinear(pattern, false);
    if ('problem' in compiled)
      throw new Error(
        `the pattern ${JSON.stringify(clip(pattern))} cannot be checked by a linear-time engine (${compiled.problem})`,
      );
    const { re } = compiled;
    // Ajv keeps one engine object per distinct toString(): it must name the pattern.
    return { test: (s: string) => re.test(s), toString: () => `/${pattern}/u` };
  },
  { code: 'linearRegExp' },
);

const clip = (text: string, max = 100) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

// Options: tool schemas carry keywords of their own (`title`, `examples`, x-...), so unknown keywords are not
// errors; nothing is registered by its $id (two tools may share one).
// A server's schema is not the operator's business: no warnings about it in the logs.
const OPTIONS: Options = {
  strict: false,
  allErrors: true,
  addUsedSchema: false,
  validateSchema: false,
  inlineRefs: false,
  logger: false,
  code: { regExp: linearRegExp },
};

function dialectOf(schemaUri: unknown): Dialect {
  if (typeof schemaUri !== 'string') return 'draft2020';
  if (/draft-0[4-7]/.test(schemaUri)) return 'draft7';
  if (schemaUri.includes('2019-09')) return 'draft2019';
  return 'draft2020';
}

/**
 * The MCP SDK's validator contract (its Client checks a tool's structuredContent against the tool's outputSchema)
 * on these rules. It never throws: a schema that cannot be checked makes every value invalid, saying why.
 */
export class UntrustedSchemaValidator implements jsonSchemaValidator {
  private readonly schemas = new UntrustedSchemas();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const check = this.schemas.compile(schema as Record<string, unknown>);
    return (input) => {
      const verdict = check(input);
      if (verdict.kind === 'valid') return { valid: true, data: input as T, errorMessage: undefined };
      const errorMessage =
        verdict.kind === 'invalid' ? verdict.text : `the schema cannot be checked (${verdict.reason})`;
      return { valid: false, data: undefined, errorMessage };
    };
  }
}
