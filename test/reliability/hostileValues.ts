import fc from 'fast-check';
import { z } from 'zod';

/*
 * Generators of hostile values for the fuzz test, and the means to put them anywhere in an otherwise valid body:
 * the fields are derived from each route's own schema, so a new field is fuzzed without anyone listing it.
 */

/** The most containers nested in one another that the service takes (api/jsonLimits.ts says 64; this is the test's own copy). */
export const DEPTH_TAKEN = 64;

/** A step of a field's path: a property name, `0` for an array's items, `'*'` for a record's values. */
export type PathStep = string | 0;

export interface Field {
  path: PathStep[];
  /** the JSON types the schema accepts here; `any` when it accepts every value */
  types: string[];
}

/** JSON text put into a body as is: values JSON.stringify cannot write (1e400) or would overflow writing (depth). */
export class RawJson {
  constructor(readonly render: () => string) {}
}

/** A value to put somewhere in a request, and whether the service must refuse any request that carries it. */
export interface Hostile {
  value: unknown;
  /** the class of input, for the figures */
  kind: string;
  mustReject: boolean;
}

interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema | JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  $defs?: Record<string, JsonSchema>;
}

/** Every field a schema describes, nested ones included (through $refs, unions, arrays and records). */
export function schemaFields(schema: z.ZodType, maxDepth = 8): Field[] {
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const defs = root.$defs ?? {};
  const found = new Map<string, Field>();
  const visit = (given: JsonSchema, path: PathStep[]) => {
    const node = given.$ref ? { ...defs[given.$ref.replace('#/$defs/', '')], ...given, $ref: undefined } : given;
    if (path.length > maxDepth) return;
    for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) visit(branch, path);
    const types = node.type
      ? [node.type].flat()
      : node.anyOf || node.oneOf || node.allOf
        ? []
        : node.enum || node.const !== undefined
          ? ['string']
          : ['any'];
    if (path.length > 0 && types.length > 0) {
      const key = JSON.stringify(path);
      const known = found.get(key);
      found.set(key, { path, types: [...new Set([...(known?.types ?? []), ...types])] });
    }
    for (const [name, child] of Object.entries(node.properties ?? {})) visit(child, [...path, name]);
    if (node.items && !Array.isArray(node.items)) visit(node.items, [...path, 0]);
    if (typeof node.additionalProperties === 'object') visit(node.additionalProperties, [...path, '*']);
  };
  visit(root, []);
  return [...found.values()];
}

/** A copy of `body` with `value` at `path`, creating the containers on the way (an array for `0`, else an object). */
export function withValueAt(body: unknown, path: PathStep[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body) as Record<string, unknown>;
  let node: Record<string | number, unknown> = copy;
  path.forEach((step, i) => {
    // A record's values: the first key it has, or a new one.
    const key = step === '*' ? (Object.keys(node)[0] ?? 'k') : step;
    if (i === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (next === null || typeof next !== 'object') node[key] = path[i + 1] === 0 ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  });
  return copy;
}

/** JSON text of a body that may hold RawJson values; rendered when sent, so a deep one never sits in memory. */
export function serialize(body: unknown): string {
  const raws: RawJson[] = [];
  const text = JSON.stringify(body, (_key, value: unknown) => {
    if (!(value instanceof RawJson)) return value;
    raws.push(value);
    return `@@raw:${raws.length - 1}@@`;
  });
  return raws.reduce((out, raw, i) => out.replace(`"@@raw:${i}@@"`, () => raw.render()), text);
}

/** Containers a value at `path` sits in: the body itself and each one on the way. */
export const containersAbove = (path: PathStep[]) => path.length;

/** Text Postgres cannot store, judged without the service's code: a NUL, or UTF-16 that is not well-formed. */
const unstorable = (text: string) =>
  text.includes('\0') || !(text as string & { isWellFormed(): boolean }).isWellFormed();

const loneSurrogate = fc.constantFrom(
  '\ud800',
  '\udfff',
  'cut emoji \ud83d',
  '\ude00 starts low',
  '\udc00\ud800',
  'a\ud800b',
  `${'é'.repeat(10)}\udbff`,
);

/**
 * Well-formed text the service must store as given: multi-byte, astral, combining, bidi, noncharacters, and long
 * text that does not compress (a prompt past what a btree index entry holds).
 */
export const multiByteText = fc
  .oneof(
    fc.constantFrom(
      'é',
      'é'.repeat(43),
      `abc.${'é'.repeat(43)}`,
      '日本語のテキスト',
      '😀',
      '😀'.repeat(100),
      'e\u0301\u0301',
      '\u202Eevil\u202C',
      '\uFEFFbom',
      '\uFFFF\uFFFE',
      'a\u200Db',
      '\u0001\u001F\u007F',
      '\uFFFD',
      '𝔥𝔢𝔩𝔩𝔬',
      '\u{10FFFF}',
      'ǅ',
      'ß'.repeat(500),
    ),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    { arbitrary: fc.string({ unit: 'binary', minLength: 2_000, maxLength: 20_000 }), weight: 1 },
  )
  .filter((text) => !unstorable(text));

/** Strings: lone surrogates and NUL (refused wherever they are), multi-byte text (taken where the field takes text). */
export const hostileString: fc.Arbitrary<Hostile> = fc.oneof(
  loneSurrogate.map((value) => ({ value, kind: 'lone surrogate', mustReject: true })),
  fc.constantFrom('\u0000', 'a\u0000b').map((value) => ({ value, kind: 'NUL', mustReject: true })),
  multiByteText.map((value) => ({ value, kind: 'multi-byte text', mustReject: false })),
);

/** Numbers at and past int4 (2^31) and the safe integers (2^53), both signs, epoch ms past the year 9999, and JSON beyond a double. */
export const edgeNumbers = [
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  -(2 ** 53) - 2,
  1e12,
  -1e12,
  253_402_300_799_999,
  253_402_300_800_000,
  8.64e15,
  9e15,
  -62_135_596_800_001,
  -8.64e15,
  1e21,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  -0,
  0.5,
  2_147_483_647.5,
  2_147_483_646.6,
];
const rawNumbers = ['1e400', '-1e400', '1E+999', '123456789012345678901234567890', '-0.0', '1e-400'];

export const hostileNumber: fc.Arbitrary<Hostile> = fc.oneof(
  fc.constantFrom(...edgeNumbers).map((value) => ({ value, kind: 'edge number', mustReject: false })),
  fc
    .constantFrom(...rawNumbers)
    .map((text) => ({ value: new RawJson(() => text), kind: 'edge number', mustReject: false })),
  fc
    .oneof(
      fc.integer({ min: -(2 ** 31) - 10, max: 2 ** 31 + 10 }),
      fc.maxSafeInteger(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    )
    .map((value) => ({ value, kind: 'edge number', mustReject: false })),
);

/** Query-string forms of numbers: the same edges, plus what Number() reads oddly. */
export const hostileNumberText = fc.oneof(
  fc.constantFrom(...edgeNumbers).map(String),
  fc.constantFrom(
    ...rawNumbers,
    '9e15',
    '0x1F',
    ' 42 ',
    '1_000',
    '',
    '-',
    'Infinity',
    'NaN',
    '+5',
    '00012',
    '5.',
    '.5',
    '2e2',
  ),
);

/** Query-string forms of text: multi-byte, invalid UTF-8 escapes, NUL. Lone surrogates cannot travel in a URL. */
export const hostileQueryText = fc.oneof(
  multiByteText.map(encodeURIComponent),
  fc.constantFrom('%ED%A0%80', '%F0%9F', '%C3', '%FF%FE', '%00', 'a%00b', '%E2%80%AE', '%EF%BB%BF', '%25', '%'),
);

/** Cursors no list handed out: multi-byte signatures, wrong shapes, valid-looking payloads under a forged signature. */
export const hostileCursor = fc.oneof(
  fc.constantFrom(
    `abc.${'é'.repeat(43)}`,
    `abc.${'😀'.repeat(22)}`,
    `${'é'.repeat(43)}.${'é'.repeat(43)}`,
    '.',
    '..',
    'a.b.c',
    '',
    'x'.repeat(2000),
    'x'.repeat(2001),
  ),
  fc
    .tuple(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: 'binary', minLength: 43, maxLength: 43 }))
    .map(([a, b]) => `${a}.${b}`),
  fc
    .tuple(
      fc.constantFrom('iterations:run_fuzz', 'chat-sessions:*:active', 'x'),
      fc.jsonValue({ maxDepth: 2 }),
      fc.string({ unit: 'binary', minLength: 43, maxLength: 43 }),
    )
    .map(
      ([scope, position, signature]) =>
        `${Buffer.from(JSON.stringify([scope, position])).toString('base64url')}.${signature}`,
    ),
);

/**
 * Nesting from 1 to 100,000 levels, arrays or objects, around a leaf; refused when, where it is put, it goes past
 * DEPTH_TAKEN containers or its leaf is unstorable text.
 */
export function deepValue(containersAboveIt: number): fc.Arbitrary<Hostile> {
  const leaves = ['1', '"x"', '{}', '[]', 'null', '"\\ud800"', '"\\u0000"', '1e400', '"é😀"'];
  return fc
    .record({
      depth: fc.oneof(
        fc.integer({ min: 1, max: DEPTH_TAKEN }),
        fc.integer({ min: DEPTH_TAKEN + 1, max: 2_000 }),
        fc.integer({ min: 2_000, max: 100_000 }),
      ),
      container: fc.constantFrom('array', 'object'),
      leaf: fc.constantFrom(...leaves),
    })
    .map(({ depth, container, leaf }) => {
      const leafContainers = leaf === '{}' || leaf === '[]' ? 1 : 0;
      const value = new RawJson(() =>
        container === 'array'
          ? '['.repeat(depth) + leaf + ']'.repeat(depth)
          : '{"k":'.repeat(depth) + leaf + '}'.repeat(depth),
      );
      return {
        value,
        kind: depth >= 2_000 ? 'nesting past 2,000 levels' : 'nesting',
        mustReject: containersAboveIt + depth + leafContainers > DEPTH_TAKEN || leaf.includes('\\u'),
      };
    });
}

/** JSON types a field does not accept, as values. */
const valueOfType: Record<string, fc.Arbitrary<unknown>> = {
  string: fc.string({ maxLength: 50 }),
  number: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  boolean: fc.boolean(),
  object: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  array: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  null: fc.constant(null),
};

/** A value of a JSON type the field does not take (none for a field that takes anything). */
export function wrongTypeFor(field: Field): fc.Arbitrary<Hostile> | undefined {
  if (field.types.includes('any')) return undefined;
  const accepted = new Set(field.types.map((t) => (t === 'integer' ? 'number' : t)));
  const wrong = Object.keys(valueOfType).filter((t) => !accepted.has(t));
  if (wrong.length === 0) return undefined;
  return fc
    .constantFrom(...wrong)
    .chain((t) => valueOfType[t])
    .map((value) => ({ value, kind: 'wrong type', mustReject: false }));
}

/** Object keys the service must refuse (unstorable) or take as plain keys (prototype names, multi-byte). */
export const hostileKeyed: fc.Arbitrary<Hostile> = fc.oneof(
  fc
    .constantFrom('\ud800', 'k\u0000')
    .map((key) => ({ value: { [key]: 1 }, kind: 'unstorable key', mustReject: true })),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', '😀', 'é'.repeat(200)).map((key) => ({
    value: JSON.parse(`{${JSON.stringify(key)}: {"polluted": true}}`),
    kind: 'odd key',
    mustReject: false,
  })),
);

/** Every hostile value that fits a field: by its types, plus nesting and odd keys anywhere. */
export function hostileFor(field: Field): fc.Arbitrary<Hostile> {
  const options: fc.Arbitrary<Hostile>[] = [deepValue(containersAbove(field.path)), hostileKeyed];
  const takes = (t: string) => field.types.includes(t) || field.types.includes('any');
  if (takes('string')) options.push(hostileString, hostileString);
  if (takes('number') || takes('integer')) options.push(hostileNumber, hostileNumber);
  const wrong = wrongTypeFor(field);
  if (wrong) options.push(wrong);
  // A lone surrogate refused in a field that takes no text too: the edge reads every string, whatever the schema.
  if (!takes('string')) options.push(hostileString.filter((h) => h.mustReject));
  return fc.oneof(...options);
}
