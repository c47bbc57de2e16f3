import postgres from 'postgres';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { camelRow, camelRows, type Camel } from '../../db/rows.js';

interface StoredRow {
  id: string;
  run_number: number;
  is_negative_test: boolean;
  content_sha256: string | null;
  match_options: Record<string, unknown> | null;
  expected_tool_calls: { toolName: string; arguments?: Record<string, unknown> }[];
}

const stored: StoredRow = {
  id: 'case_1',
  run_number: 3,
  is_negative_test: false,
  content_sha256: null,
  // json values come back as the caller stored them: their keys are data, not columns
  match_options: { ignore_case: true, nested: { snake_key: 1 } },
  expected_tool_calls: [{ toolName: 'echo', arguments: { user_id: 'u1' } }],
};

describe('database rows as domain objects (db/rows.ts)', () => {
  it('renames the columns to camelCase, as the type says', () => {
    const row = camelRow(stored);
    expect(Object.keys(row)).toEqual([
      'id',
      'runNumber',
      'isNegativeTest',
      'contentSha256',
      'matchOptions',
      'expectedToolCalls',
    ]);
    expectTypeOf(row).toEqualTypeOf<{
      id: string;
      runNumber: number;
      isNegativeTest: boolean;
      contentSha256: string | null;
      matchOptions: Record<string, unknown> | null;
      expectedToolCalls: { toolName: string; arguments?: Record<string, unknown> }[];
    }>();
  });

  it('leaves every value as it is: json keys keep their spelling, objects are the same objects', () => {
    const row = camelRow(stored);
    expect(row.matchOptions).toBe(stored.match_options);
    expect(row.matchOptions).toEqual({ ignore_case: true, nested: { snake_key: 1 } });
    expect(row.expectedToolCalls[0].arguments).toEqual({ user_id: 'u1' });
  });

  it("is the column rename of postgres.camel without its json rename (why the pool's transform option is not used)", () => {
    const jsonb = { type: 3802 } as never;
    expect(postgres.toCamel('content_sha256')).toBe('contentSha256');
    expect(
      (postgres.camel.value.from as (value: unknown, column: never) => unknown)({ ignore_case: true }, jsonb),
    ).toEqual({ ignoreCase: true });
  });

  it('a query that found nothing stays undefined; a list maps each row', () => {
    expect(camelRow(undefined as StoredRow | undefined)).toBeUndefined();
    expect(camelRows([stored, { ...stored, id: 'case_2' }]).map((r) => [r.id, r.runNumber])).toEqual([
      ['case_1', 3],
      ['case_2', 3],
    ]);
    expectTypeOf(camelRows<StoredRow>([])).toEqualTypeOf<Camel<StoredRow>[]>();
  });
});
