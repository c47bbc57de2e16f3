import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

// ajv-formats is CommonJS: its plugin is module.exports, with a `default` copy that TypeScript's NodeNext view names.
const addFormats = formats as unknown as typeof formats.default;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Json = Record<string, any>;

export interface DocumentedOperation {
  /** `getEvalRun`; `GET /projects/{projectId}/eval-runs/{runId}` when the document gives none */
  operationId: string;
  method: (typeof METHODS)[number];
  /** as the document writes it: `/projects/{projectId}/eval-runs/{runId}` */
  path: string;
  /** the statuses the document lists for it, e.g. ['200', '401', '404'] */
  statuses: string[];
}

/** `#/components/...` as a reference into the document registered under `base`. */
function absoluteRefs(value: unknown, base: string): unknown {
  if (Array.isArray(value)) return value.map((item) => absoluteRefs(item, base));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${base}${v}` : absoluteRefs(v, base),
    ]),
  );
}

const describe = (error: ErrorObject) =>
  `${error.instancePath || '(root)'} ${error.message}${error.keyword === 'additionalProperties' ? `: ${error.params.additionalProperty}` : ''}${error.keyword === 'enum' ? ` (${JSON.stringify(error.params.allowedValues)})` : ''}`;

/**
 * Checks requests and replies against an OpenAPI 3.1 document with Ajv (JSON Schema 2020-12): the document's
 * components are registered once under an id, and each operation's request or reply schema is compiled with its
 * `#/components/...` references pointed there.
 */
export class OpenApiReplies {
  private readonly ajv: Ajv2020;
  private readonly base: string;
  private readonly compiled = new Map<string, ValidateFunction>();

  /**
   * `required`: how to read a component schema's `required` list. The default is the document's; a caller can ask for
   * more (e.g. every property the schema names) for the components whose replies must carry every documented field.
   */
  constructor(
    readonly document: Json,
    options: { id: string; required?: (component: string, schema: Json) => string[] | undefined },
  ) {
    this.base = options.id;
    // Strict about keywords and formats, not about style: documents name required properties in a oneOf branch only
    // and leave `type` implied.
    this.ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
    addFormats(this.ajv);
    // OpenAPI's own formats and keywords, which carry no constraint.
    this.ajv.addFormat('password', true);
    for (const keyword of ['components', 'example', 'discriminator', 'xml', 'externalDocs'])
      this.ajv.addKeyword(keyword);
    const schemas: Json = structuredClone(document.components?.schemas ?? {});
    if (options.required) {
      for (const [name, schema] of Object.entries(schemas)) {
        const required = options.required(name, schema);
        if (required) schema.required = required;
      }
    }
    this.ajv.addSchema({ $id: this.base, components: { ...document.components, schemas } });
  }

  /** Every operation of the document, in its order. */
  operations(): DocumentedOperation[] {
    return Object.entries(this.document.paths ?? {}).flatMap(([path, item]) =>
      METHODS.filter((method) => (item as Json)[method]).map((method) => {
        const op = (item as Json)[method] as Json;
        return {
          operationId: op.operationId ?? `${method.toUpperCase()} ${path}`,
          method,
          path,
          statuses: Object.keys(op.responses ?? {}),
        };
      }),
    );
  }

  private follow(value: Json | undefined): Json | undefined {
    let current = value;
    while (current?.$ref) {
      const pointer = String(current.$ref)
        .replace(/^#\//, '')
        .split('/')
        .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
      current = pointer.reduce<Json | undefined>((node, key) => node?.[key], this.document);
    }
    return current;
  }

  private validator(key: string, schema: Json): ValidateFunction {
    const known = this.compiled.get(key);
    if (known) return known;
    const validate = this.ajv.compile(absoluteRefs(schema, this.base) as Json);
    this.compiled.set(key, validate);
    return validate;
  }

  private operation(op: DocumentedOperation): Json {
    return this.document.paths[op.path][op.method];
  }

  /** What is wrong with a reply: a status the operation does not list, or a body its schema for that status refuses. */
  replyProblems(op: DocumentedOperation, status: number, body: unknown): string[] {
    const response =
      this.follow(this.operation(op).responses?.[String(status)]) ?? this.follow(this.operation(op).responses?.default);
    if (!response) return [`status ${status} is not documented (${op.statuses.join(', ')})`];
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return [];
    const validate = this.validator(`${op.method} ${op.path} ${status}`, schema);
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `body ${describe(e)}`);
  }

  /** What is wrong with a request body the document describes (a test's own "valid" inputs are held to it). */
  requestProblems(op: DocumentedOperation, body: unknown): string[] {
    const requestBody = this.follow(this.operation(op).requestBody);
    const schema = requestBody?.content?.['application/json']?.schema;
    if (!schema)
      return body === undefined || (typeof body === 'object' && body !== null && Object.keys(body).length === 0)
        ? []
        : ['the operation takes no body'];
    if (body === undefined) return requestBody?.required ? ['a body is required'] : [];
    const validate = this.validator(`${op.method} ${op.path} request`, schema);
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `request ${describe(e)}`);
  }

  /** Every reply schema the document has, compiled: a schema Ajv cannot compile throws. */
  compileAll(): number {
    let count = 0;
    for (const op of this.operations()) {
      for (const status of op.statuses) {
        const schema = this.follow(this.operation(op).responses[status])?.content?.['application/json']?.schema;
        if (schema) {
          this.validator(`${op.method} ${op.path} ${status}`, schema);
          count++;
        }
      }
    }
    return count;
  }
}
