import type { Db } from './connection.js';

export interface CaseIdentityRow {
  id: string;
  title: string;
  query: string;
  external_case_id: string | null;
}

/** A suite's cases named by external id or by title + query, in one query. */
export async function findCasesByIdentity(
  sql: Db,
  suiteId: string,
  identities: { externalCaseIds: string[]; titles: string[]; queries: string[] },
): Promise<CaseIdentityRow[]> {
  if (identities.externalCaseIds.length === 0 && identities.titles.length === 0) return [];
  return await sql<CaseIdentityRow[]>`
    SELECT id, title, query, external_case_id FROM eval_cases
    WHERE suite_id = ${suiteId}
      AND (external_case_id = ANY(${identities.externalCaseIds})
           OR (title, query) IN (SELECT * FROM unnest(${identities.titles}::text[], ${identities.queries}::text[])))`;
}
