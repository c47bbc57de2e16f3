import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EventStreams } from '../../api/eventStream.js';
import { noBody, noQuery } from '../../api/route.js';
import { allRoutes, type RouteGroups } from '../../api/routes/index.js';
import { editDistance } from '../../domain/closestName.js';
import { foreignNames, suggestName, unknownFields } from '../../api/unknownFields.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
    ['passcritera', 'passcriteria', 1],
    ['expectedtoolcall', 'expectedtoolcalls', 1],
    // an adjacent transposition is one edit
    ['tokne', 'token', 1],
    ['ca', 'abc', 3],
  ])('%s -> %s is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('suggestName', () => {
  const accepted = [
    'toolName',
    'arguments',
    'expectedToolCalls',
    'passCriteria',
    'maxExtraToolCalls',
    'limit',
    'id',
    'name',
  ];

  it.each([
    ['expectedToolcalls', 'expectedToolCalls'],
    ['expectedToolCall', 'expectedToolCalls'],
    ['expected_tool_calls', 'expectedToolCalls'],
    ['passCritera', 'passCriteria'],
    ['tool_name', 'toolName'],
    ['argumnts', 'arguments'],
    ['extraToolCalls', 'maxExtraToolCalls'],
    ['limt', 'limit'],
    ['ID', 'id'],
    ['ids', 'id'],
    ['nme', 'name'],
  ])('%s -> %s', (name, meant) => {
    expect(suggestName(name, accepted)).toBe(meant);
  });

  it.each(['x', 'ab', 'foo', 'query', 'iterations', 'tool'])('%s: nothing close enough', (name) => {
    expect(suggestName(name, accepted)).toBeUndefined();
  });

  it('the closest of several', () => {
    expect(suggestName('limitt', ['limits', 'limit'])).toBe('limits');
    expect(suggestName('limi', ['limits', 'limit'])).toBe('limit');
  });
});

describe('unknownFields', () => {
  const call = foreignNames(
    z.strictObject({ toolName: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }),
    {
      args: { use: 'arguments', why: 'the long name' },
    },
  );
  const answer = z.union([
    z.strictObject({ action: z.literal('accept'), content: z.record(z.string(), z.string()) }),
    z.strictObject({ action: z.enum(['decline', 'cancel']) }),
  ]);
  const body = z
    .strictObject({
      name: z.string().transform((s) => s.trim()),
      tests: z
        .array(
          z.strictObject({
            title: z.string(),
            calls: z.array(z.union([z.string(), call])).optional(),
            answer: answer.optional(),
          }),
        )
        .default([]),
      config: z.preprocess((v) => v, z.strictObject({ depth: z.number() }).optional()),
      data: z.record(z.string(), z.unknown()).optional(),
      open: z.looseObject({ kept: z.string() }).optional(),
    })
    .refine(() => true);
  const found = (value: unknown) => {
    const result = body.safeParse(value);
    return result.success ? [] : unknownFields(result.error, body, ['body']);
  };

  it('names each unknown key with its path and the closest accepted name at that place', () => {
    expect(found({ nme: 'x', tests: [{ title: 't', titel: 'u' }] })).toEqual([
      {
        path: 'body.tests.0.titel',
        field: 'titel',
        hint: 'did you mean `title`?',
        message: 'unknown field `body.tests.0.titel`; did you mean `title`?',
      },
      {
        path: 'body.nme',
        field: 'nme',
        hint: 'did you mean `name`?',
        message: 'unknown field `body.nme`; did you mean `name`?',
      },
    ]);
  });

  it('looks through arrays, unions, optionals, defaults and preprocessing', () => {
    expect(found({ name: 'x', tests: [{ title: 't', calls: ['a', { toolName: 'b', argumnts: {} }] }] })).toMatchObject([
      { path: 'body.tests.0.calls.1.argumnts', hint: 'did you mean `arguments`?' },
    ]);
    expect(found({ name: 'x', config: { dept: 1 } })).toMatchObject([
      { path: 'body.config.dept', hint: 'did you mean `depth`?' },
    ]);
  });

  it('a name declared as foreign gets its own hint', () => {
    expect(found({ name: 'x', tests: [{ title: 't', calls: [{ toolName: 'b', args: {} }] }] })).toMatchObject([
      { path: 'body.tests.0.calls.0.args', hint: 'did you mean `arguments`? (the long name)' },
    ]);
  });

  it('inside a union, a key unknown to every form of the object', () => {
    expect(found({ name: 'x', tests: [{ title: 't', answer: { acton: 'decline' } }] })).toMatchObject([
      { path: 'body.tests.0.answer.acton', hint: 'did you mean `action`?' },
    ]);
    // `content` belongs to the other form
    expect(found({ name: 'x', tests: [{ title: 't', answer: { action: 'decline', content: {} } }] })).toMatchObject([
      { path: 'body.tests.0.answer.content', hint: 'allowed only in another form of this object' },
    ]);
  });

  it('without a close name, the accepted ones are listed (when there are few), or none', () => {
    expect(found({ name: 'x', config: { size: 1 } })).toMatchObject([{ hint: 'the fields accepted here are `depth`' }]);
    const empty = noBody.safeParse({ anything: 1 });
    expect(unknownFields(empty.error!, noBody, ['body'])).toEqual([
      {
        path: 'body.anything',
        field: 'anything',
        hint: 'no fields are accepted here',
        message: 'unknown field `body.anything`; no fields are accepted here',
      },
    ]);
  });

  it('records and loose objects keep what they are given: nothing there is unknown', () => {
    expect(body.safeParse({ name: 'x', data: { anything: 1 }, open: { kept: 'k', extra: 1 } })).toMatchObject({
      success: true,
      data: { open: { extra: 1 } },
    });
  });

  it("a body of many unknown keys: the first 20 are reported, and long keys are nobody's misspelling", () => {
    const many = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`${'k'.repeat(500)}${i}`, i]));
    const fields = found({ name: 'x', ...many });
    expect(fields).toHaveLength(20);
    expect(fields[0]).toMatchObject({
      field: `${'k'.repeat(500)}0`,
      hint: 'the fields accepted here are `name`, `tests`, `config`, `data`, `open`',
    });
    expect(suggestName(`${'name'.repeat(30)}`, ['name'.repeat(30)])).toBeUndefined();
  });

  it('an error without unknown keys has none', () => {
    const result = body.safeParse({ name: 5 });
    expect(unknownFields(result.error!, body)).toEqual([]);
  });
});

/** Every object in a request (a body or a query) is strict or, kept whole, loose: never one that drops keys. */
function droppingObjects(schema: z.core.$ZodType, path: string, into: string[], seen = new Set<unknown>()): string[] {
  if (seen.has(schema)) return into;
  seen.add(schema);
  const def = (schema as z.core.$ZodTypes)._zod.def;
  const walk = (child: z.core.$ZodType, step?: string) =>
    droppingObjects(child, step === undefined ? path : `${path}.${step}`, into, seen);
  switch (def.type) {
    case 'object':
      if (!def.catchall) into.push(path);
      for (const [key, child] of Object.entries(def.shape)) walk(child as z.core.$ZodType, key);
      if (def.catchall) walk(def.catchall, '*');
      break;
    case 'array':
      walk(def.element, '0');
      break;
    case 'record':
      walk(def.valueType, '*');
      break;
    case 'union':
      def.options.forEach((option) => walk(option));
      break;
    case 'pipe':
      walk(def.in);
      walk(def.out);
      break;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      walk(def.innerType);
      break;
    case 'lazy':
      walk(def.getter());
      break;
  }
  return into;
}

describe('every route', () => {
  // Built without dependencies (the event streams' default limits, which the event routes' descriptions quote; every
  // other group of use cases is an empty object): no handler runs, only the schemas are read.
  const nothing = new Proxy({}, { get: () => undefined });
  const eventStreams = new EventStreams();
  const given: Record<string | symbol, unknown> = { runDeps: { eventStreams } };
  const routes = allRoutes(
    new Proxy(given, { get: (deps, key) => (key in deps ? deps[key] : nothing) }) as unknown as RouteGroups,
  );

  it('takes bodies and queries whose objects are strict (or loose, kept whole), never objects that drop keys', () => {
    const dropping = routes.flatMap((route) => {
      const where = `${route.method.toUpperCase()} ${route.path}`;
      return [
        ...droppingObjects(route.body ?? (route.method === 'get' ? z.unknown() : noBody), `${where} body`, []),
        ...droppingObjects(route.query ?? noQuery, `${where} query`, []),
      ];
    });
    expect(dropping).toEqual([]);
  });
});
