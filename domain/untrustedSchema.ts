import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

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
 * elicitation forms) is compiled and run. The dialect is the one the schema names in `$schema`: draft-07 (and
 * older) or 2019-09; 2020-12 otherwise, MCP's default. A schema that cannot be compiled (a remote `$ref`, an
 * unknown dialect) checks nothing: each of its verdicts says why it cannot be checked.
 *
 * Ajv keeps every schema it compiles: an instance lives as long as what it checks for (a case generation, one
 * elicitation, one session).
 */
export class UntrustedSchemas {
  private readonly dialects = new Map<Dialect, Ajv>();

  compile(schema: Record<string, unknown>): SchemaCheck {
    const { $schema, ...rest } = schema;
    const ajv = this.ajv(dialectOf($schema));
    let validate: ValidateFunction;
    try {
      validate = ajv.compile(rest);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return () => ({ kind: 'uncheckable', reason });
    }
    return (data) => {
      if (validate(data)) return { kind: 'valid' };
      const errors = validate.errors ?? [];
      return { kind: 'invalid', errors, text: ajv.errorsText(errors) };
    };
  }

  private ajv(dialect: Dialect): Ajv {
    let ajv = this.dialects.get(dialect);
    if (!ajv) {
      const Dialect = { draft7: Ajv, draft2019: Ajv2019, draft2020: Ajv2020 }[dialect];
      ajv = formats.default(new Dialect(OPTIONS));
      this.dialects.set(dialect, ajv);
    }
    return ajv;
  }
}

// Options: tool schemas carry keywords of their own (`title`, `examples`, x-...), so unknown keywords are not
// errors; nothing is registered by its $id (two tools may share one).
const OPTIONS: Options = { strict: false, allErrors: true, addUsedSchema: false, validateSchema: false };

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
