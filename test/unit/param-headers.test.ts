import { describe, expect, it } from 'vitest';
import { headerDeclarationProblem } from '../../domain/mcp/paramHeaders.js';

const tool = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('x-mcp-header declarations (SEP-2243)', () => {
  it('accepts primitive properties reached through properties, at any depth, and schemas without any', () => {
    expect(headerDeclarationProblem(tool({ region: { type: 'string', 'x-mcp-header': 'Region' } }))).toBeUndefined();
    expect(
      headerDeclarationProblem(
        tool({ nested: { type: 'object', properties: { n: { type: 'integer', 'x-mcp-header': 'N' } } } }),
      ),
    ).toBeUndefined();
    expect(headerDeclarationProblem(tool({ plain: { type: 'number' } }))).toBeUndefined();
    expect(headerDeclarationProblem(undefined)).toBeUndefined();
  });

  it.each([
    ['an empty name', tool({ a: { type: 'string', 'x-mcp-header': '' } }), /non-empty header token/],
    ['a space in the name', tool({ a: { type: 'string', 'x-mcp-header': 'My Header' } }), /header token/],
    ['a colon in the name', tool({ a: { type: 'string', 'x-mcp-header': 'a:b' } }), /header token/],
    ['a non-ASCII name', tool({ a: { type: 'string', 'x-mcp-header': 'Régión' } }), /header token/],
    ['a number property', tool({ a: { type: 'number', 'x-mcp-header': 'Score' } }), /string, integer or boolean/],
    ['an object property', tool({ a: { type: 'object', 'x-mcp-header': 'Obj' } }), /string, integer or boolean/],
    [
      'a name declared twice, whatever its case',
      tool({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'region' } }),
      /declared twice/,
    ],
    [
      'a declaration under anyOf',
      tool({}, { anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }),
      /reached through 'properties'/,
    ],
    ['a declaration on the root', { type: 'string', 'x-mcp-header': 'Root' }, /reached through 'properties'/],
  ])('refuses %s', (_what, schema, problem) => {
    expect(headerDeclarationProblem(schema)).toMatch(problem);
  });

  it('reports a schema too deep to check instead of walking it', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100; i++) schema = { type: 'object', properties: { x: schema } };
    expect(headerDeclarationProblem(schema)).toMatch(/too deeply/);
  });
});
