import type { Db } from './connection.js';
import { newId } from '../domain/ids.js';
import { camelRows, type Camel, type RowIsNoun, type Same } from './rows.js';
import type { CaseInput } from '../domain/evals/case.js';
import type { CaseIdentities, CaseIdentity } from '../domain/ports/ingestStore.js';

export interface CaseIdentityRow {
  id: string;
  title: string;
  query: string;
  external_case_id: string | null;
}

/** The row as the ingest port's CaseIdentity (domain/ports/ingestStore.ts): a column and its field go together. */
type _CaseIdentityIsRow = RowIsNoun<Same<Camel<CaseIdentityRow>, CaseIdentity>>;

/** A suite's live cases named by external id or by title + query, in one query. */
export async function findCasesByIdentity(
  sql: Db,
  suiteId: string,
  identities: CaseIdentities,
): Promise<CaseIdentity[]> {
  if (identities.externalCaseIds.length === 0 && identities.titles.length === 0) return [];
  return camelRows(
    await sql<CaseIdentityRow[]>`
    SELECT id, title, query, external_case_id FROM eval_cases
    WHERE suite_id = ${suiteId} AND deleted_at IS NULL
      AND (external_case_id = ANY(${identities.externalCaseIds})
           OR (title, query) IN (SELECT * FROM unnest(${identities.titles}::text[], ${identities.queries}::text[])))`,
  );
}

/**
 * Creates reported cases in one statement, skipping any whose identity (title + query, or external id) the suite
 * already holds: a case keeps what first reported it. They are `ingested`: results only, never planned by a run.
 * The caller finds the ids afterwards (findCasesByIdentity).
 */
export async function insertReportedCases(sql: Db, suiteId: string, cases: CaseInput[]): Promise<void> {
  if (cases.length === 0) return;
  const rows = cases.map((c) => ({
    id: newId('case'),
    suite_id: suiteId,
    title: c.title,
    query: c.query,
    model: c.model ?? null,
    provider: c.provider ?? null,
    expected_tool_calls: sql.json((c.expectedToolCalls ?? []) as never),
    is_negative_test: c.isNegativeTest ?? false,
    external_case_id: c.externalCaseId ?? null,
    ingested: true,
  }));
  for (let i = 0; i < rows.length; i += 1000) {
    await sql`INSERT INTO eval_cases ${sql(rows.slice(i, i + 1000))} ON CONFLICT DO NOTHING`;
  }
}
