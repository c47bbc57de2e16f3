import { describe, expect, it } from 'vitest';
import {
  SCHEMA_CHECK_MS,
  UntrustedSchemas,
  UntrustedSchemaValidator,
  type SchemaVerdict,
} from '../../domain/untrustedSchema.js';
import { CATASTROPHIC_PATTERN, nestedRefsSchema } from '../fixtures/mcp/hostile-schemas.js';

/** The verdict and how long the check took (compiling included). */
function timed(schema: Record<string, unknown>, data: unknown): { verdict: SchemaVerdict; ms: number } {
  const started = performance.now();
  const verdict = new UntrustedSchemas().compile(schema)(data);
  return { verdict, ms: performance.now() - started };
}

// Not a speed target (bench/ holds those): a bound on whether the check ends at all. A backtracking engine takes
// seconds at 26 characters and never ends at 100,000; the linear engine takes milliseconds, even on a loaded machine.
const ENDS_MS = 5_000;

describe('JSON Schema a server wrote', () => {
  it('checks a catastrophic pattern in time linear in the string, however long', () => {
    const schema = { type: 'string', pattern: CATASTROPHIC_PATTERN };
    for (const length of [16, 26, 100_000]) {
      const hostile = timed(schema, `${'a'.repeat(length)}!`);
      expect(hostile.verdict, `a x ${length} + !`).toMatchObject({
        kind: 'invalid',
        text: expect.stringContaining('must match pattern'),
      });
      expect(hostile.ms, `a x ${length} + ! took ${hostile.ms.toFixed(0)} ms`).toBeLessThan(ENDS_MS);
      expect(timed(schema, 'a'.repeat(length)).verdict).toEqual({ kind: 'valid' });
    }
    // the same pattern as a property name pattern
    const keyed = timed(
      { type: 'object', patternProperties: { [CATASTROPHIC_PATTERN]: { type: 'number' } } },
      {
        [`${'a'.repeat(100_000)}!`]: 'not checked: the name does not match',
        aaaa: 'x',
      },
    );
    expect(keyed.verdict).toMatchObject({
      kind: 'invalid',
      errors: [expect.objectContaining({ instancePath: '/aaaa' })],
    });
    expect(keyed.ms).toBeLessThan(ENDS_MS);
  });

  it('says a pattern the linear-time engine cannot run cannot be checked, and never runs it otherwise', () => {
    for (const pattern of ['^(?=a)\\w+$', 'a(?!b)', '(?<=a)b', '^(a)\\1$', '^(?<x>a)\\k<x>$']) {
      const { verdict } = timed({ type: 'string', pattern }, 'aa');
      expect(verdict, pattern).toMatchObject({ kind: 'uncheckable', reason: expect.stringContaining('pattern') });
    }
    // what RE2 and JavaScript agree on is checked as JavaScript would: escapes, classes, named groups, Unicode
    const accepted: [string, string, boolean][] = [
      ['^\\d{3}-\\d{4}$', '555-1234', true],
      ['^\\d{3}-\\d{4}$', '555-12345', false],
      ['^[\\w.+-]+@example\\.com$', 'a.b+c@example.com', true],
      ['^\\u00e9+$', 'éé', true],
      ['^\\p{L}+$', 'Grüße', true],
      ['^(?<word>\\w+)$', 'word', true],
      ['^\\/path$', '/path', true],
      ['b', 'abc', true],
      ['^$', '', true],
    ];
    // two patterns of one schema are two engines
    const pair = { type: 'object', properties: { a: { pattern: '^a$' }, b: { pattern: '^b$' } } };
    expect(timed(pair, { a: 'a', b: 'b' }).verdict).toEqual({ kind: 'valid' });
    expect(timed(pair, { a: 'b', b: 'b' }).verdict).toMatchObject({ kind: 'invalid' });
    for (const [pattern, value, valid] of accepted)
      expect(timed({ type: 'string', pattern }, value).verdict.kind, `${pattern} on ${value}`).toBe(
        valid ? 'valid' : 'invalid',
      );
  });

  it('stops a check past its time budget: a schema of 2 KB whose $refs visit one value 2^60 times', () => {
    const schema = nestedRefsSchema();
    expect(JSON.stringify(schema).length).toBeLessThan(4_000);
    for (const depth of [10, 30, 60]) {
      const { verdict, ms } = timed(nestedRefsSchema(depth), { value: 'x' });
      // a backtracking-free check still compiles 60 definitions, then runs for its budget: seconds at 30 before
      expect(ms, `${depth} deep took ${ms.toFixed(0)} ms`).toBeLessThan(SCHEMA_CHECK_MS + 900);
      if (depth === 60)
        expect(verdict).toMatchObject({ kind: 'uncheckable', reason: expect.stringMatching(/time|ms/) });
    }
  });

  it('says so for a value nested deeper than the check can go', () => {
    const schema = { $defs: { node: { type: 'array', items: { $ref: '#/$defs/node' } } }, $ref: '#/$defs/node' };
    let deep: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(timed(schema, deep).verdict).toMatchObject({ kind: 'uncheckable' });
    expect(timed(schema, [[[]]]).verdict).toEqual({ kind: 'valid' });
  });

  it('does not run an $async schema: its rejected promise would end the process', async () => {
    const check = new UntrustedSchemas().compile({ $async: true, type: 'object', required: ['x'] });
    expect(check({})).toMatchObject({ kind: 'uncheckable', reason: expect.stringContaining('$async') });
    expect(check({ x: 1 })).toMatchObject({ kind: 'uncheckable' });
    // an unhandled rejection would fail this test run
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it("gives the MCP SDK's Client a validator that never throws", () => {
    const validator = new UntrustedSchemaValidator();
    const lookahead = validator.getValidator({ type: 'string', pattern: '^(?=a)' });
    expect(lookahead('a')).toMatchObject({ valid: false, errorMessage: expect.stringContaining('cannot be checked') });
    const hostile = validator.getValidator({
      type: 'object',
      properties: { text: { type: 'string', pattern: CATASTROPHIC_PATTERN } },
    });
    const started = performance.now();
    expect(hostile({ text: `${'a'.repeat(40)}!` })).toMatchObject({
      valid: false,
      errorMessage: expect.stringContaining('must match pattern'),
    });
    expect(performance.now() - started).toBeLessThan(ENDS_MS);
    expect(hostile({ text: 'aaa' })).toEqual({ valid: true, data: { text: 'aaa' }, errorMessage: undefined });
  });
});
