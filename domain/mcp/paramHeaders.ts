/**
 * SEP-2243 (MCP 2026-07-28 over HTTP): a tool's inputSchema may mark arguments with `x-mcp-header: "<Name>"`, which
 * the client mirrors as `Mcp-Param-<Name>` headers (the SDK's callTool does it when it knows the tool's definition).
 * A declaration that breaks the rules makes the tool unusable: a client must not call it. This is the check, so
 * Runway refuses such a call in words (and keeps the tool from an eval's model) instead of the server's -32020.
 */

/** RFC 9110 §5.1 token characters: what a header name may hold. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The types a mirrored argument may have: the spec names string, integer and boolean, and excludes number. */
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);
/** Subschemas a declaration may not sit under: only a chain of `properties` reaches a mirrored argument. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
/** How deep the check walks; a deeper schema is reported as such rather than walked. */
const MAX_DEPTH = 64;

/** Why a tool's `x-mcp-header` declarations are invalid, in words; undefined when they are valid (or absent). */
export function headerDeclarationProblem(inputSchema: unknown): string | undefined {
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    if (path.length > MAX_DEPTH) return 'the input schema nests too deeply to be checked';
    const schema = node as Record<string, unknown>;
    const where = path.length ? path.join('.') : 'the schema root';
    if ('x-mcp-header' in schema) {
      const name = schema['x-mcp-header'];
      if (!reachable || path.length === 0)
        return `${where}: x-mcp-header is allowed only on a property reached through 'properties'`;
      if (typeof name !== 'string' || !TOKEN.test(name))
        return `${where}: x-mcp-header must be a non-empty header token (no spaces, colons, control or non-ASCII characters)`;
      if (typeof schema.type !== 'string' || !PRIMITIVE.has(schema.type))
        return `${where}: x-mcp-header is allowed only on a string, integer or boolean property`;
      const earlier = seen.get(name.toLowerCase());
      if (earlier !== undefined) return `x-mcp-header '${name}' is declared twice (also as '${earlier}')`;
      seen.set(name.toLowerCase(), name);
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object' && !Array.isArray(properties)) {
      for (const [key, child] of Object.entries(properties)) {
        const problem = visit(child, [...path, key], reachable);
        if (problem) return problem;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined || sub === null || typeof sub !== 'object') continue;
      const branches = Array.isArray(sub)
        ? sub
        : ['patternProperties', 'dependentSchemas', '$defs', 'definitions'].includes(keyword)
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const problem = visit(branch, [...path, `<${keyword}>`], false);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  return visit(inputSchema, [], true);
}
