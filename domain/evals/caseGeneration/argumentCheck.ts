import { UntrustedSchemas, type SchemaCheck } from '../../untrustedSchema.js';

/** The answer for one tool's arguments: valid, or why not in one line. */
export type ArgumentVerdict = { ok: true } | { ok: false; error: string };

const MAX_ERROR_CHARS = 300;

/**
 * Checks tool arguments against the tools' input schemas (JSON Schema), as the MCP server would, with the rules for
 * schemas a server wrote (domain/untrustedSchema.ts). Each schema is compiled once per checker. A schema that
 * cannot be checked (a remote `$ref`, an unknown dialect, a pattern the linear-time engine cannot run, a check
 * past its time budget) means no argument can be shown valid: such a verdict says so.
 */
export class ArgumentChecker {
  private readonly checks = new Map<string, SchemaCheck>();
  private readonly schemas = new UntrustedSchemas();

  check(toolName: string, inputSchema: Record<string, unknown>, args: Record<string, unknown>): ArgumentVerdict {
    let check = this.checks.get(toolName);
    if (!check) {
      check = this.schemas.compile(inputSchema);
      this.checks.set(toolName, check);
    }
    const verdict = check(args);
    if (verdict.kind === 'valid') return { ok: true };
    if (verdict.kind === 'uncheckable')
      return { ok: false, error: `the input schema of ${toolName} cannot be checked (${clip(verdict.reason)})` };
    const text = verdict.errors
      .map(
        (e) =>
          `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : ''}`,
      )
      .join('; ');
    return { ok: false, error: `arguments of ${toolName} do not match its input schema: ${clip(text)}` };
  }
}

function clip(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}
