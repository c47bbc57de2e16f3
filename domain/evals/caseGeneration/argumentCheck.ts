import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

/** The answer for one tool's arguments: valid, or why not in one line. */
export type ArgumentVerdict = { ok: true } | { ok: false; error: string };

const MAX_ERROR_CHARS = 300;

/**
 * Checks tool arguments against the tools' input schemas (JSON Schema), as the MCP server would. The dialect is
 * the one the schema names in `$schema`: draft-07 (and older) or 2019-09; 2020-12 otherwise, MCP's default. Each
 * schema is compiled once per checker. A schema that cannot be compiled (a remote `$ref`, an unknown dialect)
 * means no argument can be shown valid: such a verdict says so.
 */
export class ArgumentChecker {
  private readonly validators = new Map<string, ValidateFunction | Error>();
  // Options: tool schemas carry keywords of their own (`title`, `examples`, x-...), so unknown keywords are not
  // errors; nothing is registered by its $id (two tools may share one).
  private readonly options = { strict: false, allErrors: true, addUsedSchema: false, validateSchema: false } as const;
  private readonly dialects = {
    draft7: formats.default(new Ajv(this.options)),
    draft2019: formats.default(new Ajv2019(this.options)),
    draft2020: formats.default(new Ajv2020(this.options)),
  };

  check(toolName: string, inputSchema: Record<string, unknown>, args: Record<string, unknown>): ArgumentVerdict {
    const validate = this.compiled(toolName, inputSchema);
    if (validate instanceof Error)
      return { ok: false, error: `the input schema of ${toolName} cannot be checked (${clip(validate.message)})` };
    if (validate(args)) return { ok: true };
    const text = (validate.errors ?? [])
      .map(
        (e) =>
          `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : ''}`,
      )
      .join('; ');
    return { ok: false, error: `arguments of ${toolName} do not match its input schema: ${clip(text)}` };
  }

  private compiled(toolName: string, inputSchema: Record<string, unknown>): ValidateFunction | Error {
    let validate = this.validators.get(toolName);
    if (validate === undefined) {
      const { $schema, ...schema } = inputSchema;
      try {
        validate = this.dialects[dialectOf($schema)].compile(schema);
      } catch (error) {
        validate = error instanceof Error ? error : new Error(String(error));
      }
      this.validators.set(toolName, validate);
    }
    return validate;
  }
}

function dialectOf(schemaUri: unknown): 'draft7' | 'draft2019' | 'draft2020' {
  if (typeof schemaUri !== 'string') return 'draft2020';
  if (/draft-0[4-7]/.test(schemaUri)) return 'draft7';
  if (schemaUri.includes('2019-09')) return 'draft2019';
  return 'draft2020';
}

function clip(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}
