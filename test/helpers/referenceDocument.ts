import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

/**
 * The real product's published OpenAPI document (test/fixtures/reference): clients are built on it, so a reply must
 * validate against its schema for the route (additive fields are fine: its objects are open). OpenAPI 3.1 schemas
 * are JSON Schema 2020-12.
 */
const DOCUMENT_ID = 'https://reference.test/mcpjam-openapi.json';
const document = JSON.parse(
  readFileSync(new URL('../fixtures/reference/mcpjam-openapi-2026-06-19.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: true });
// OpenAPI's own keywords beside the JSON Schema ones, and the document's top level, which is no schema.
ajv.addVocabulary([
  'example',
  'discriminator',
  'xml',
  'externalDocs',
  'openapi',
  'info',
  'servers',
  'paths',
  'components',
  'security',
  'tags',
]);
// A CommonJS module: under NodeNext its function is the default export's `default`.
formats.default(ajv);
ajv.addSchema(document, DOCUMENT_ID);

/** The validation errors of `value` against the document's `components.schemas[name]`; [] when it conforms. */
export function referenceErrors(name: string, value: unknown): ErrorObject[] {
  const validate = ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${name}`);
  if (!validate) throw new Error(`the reference document has no schema ${name}`);
  return validate(value) ? [] : (validate.errors ?? []);
}
