import type { Db, Tx } from './connection.js';
import { caseModelColumns, type CaseRow } from './evalSuites.js';
import { newId } from '../domain/ids.js';
import { camelRow } from './rows.js';
import type { Case, CaseChanges, CaseInput } from '../domain/evals/case.js';

/*
 * One case at a time, as the case routes edit them. A case is identified within its suite by title + query (the
 * unique index holds live cases only); the routes write under the suite's row lock (lockSuiteCases) and look for a
 * collision first, so a clash is a clear refusal, not a unique violation.
 */

/** A live case of the suite. */
export async function findCase(sql: Db, suiteId: string, caseId: string): Promise<Case | undefined> {
  const [row] = await sql<
    CaseRow[]
  >`SELECT * FROM eval_cases WHERE id = ${caseId} AND suite_id = ${suiteId} AND deleted_at IS NULL`;
  return camelRow(row);
}

/** The live case of the suite with this title and query, other than `exceptId`. */
export async function findCaseByIdentity(
  sql: Db,
  suiteId: string,
  identity: { title: string; query: string },
  exceptId?: string,
): Promise<Case | undefined> {
  // md5 equality lets the identity index (suite_id, md5(title), md5(query)) answer; the text equality decides.
  const [row] = await sql<CaseRow[]>`
    SELECT * FROM eval_cases
    WHERE suite_id = ${suiteId} AND deleted_at IS NULL AND md5(title) = md5(${identity.title}) AND md5(query) = md5(${identity.query})
      AND title = ${identity.title} AND query = ${identity.query} ${exceptId ? sql`AND id <> ${exceptId}` : sql``}`;
  return camelRow(row);
}

export async function createCase(sql: Db, suiteId: string, c: CaseInput): Promise<Case> {
  const models = caseModelColumns(c);
  const [row] = await sql<CaseRow[]>`
    INSERT INTO eval_cases (id, suite_id, title, query, runs, model, provider, expected_tool_calls, is_negative_test,
                            expected_output, output_check, turns, scenario, advanced_config, match_options, elicitation, models)
    VALUES (${newId('case')}, ${suiteId}, ${c.title}, ${c.query}, ${c.runs ?? 1}, ${models.model}, ${models.provider},
            ${sql.json((c.expectedToolCalls ?? []) as never)}, ${c.isNegativeTest ?? false}, ${c.expectedOutput ?? null},
            ${c.outputCheck ? sql.json(c.outputCheck as never) : null}, ${c.turns ? sql.json(c.turns as never) : null}, ${c.scenario ?? null},
            ${c.advancedConfig ? sql.json(c.advancedConfig as never) : null}, ${c.matchOptions ? sql.json(c.matchOptions as never) : null},
            ${c.elicitation ? sql.json(c.elicitation as never) : null}, ${json(sql, models.models)})
    RETURNING *`;
  return camelRow(row);
}

const json = (sql: Db, value: unknown) => (value === null ? null : sql.json(value as never));

/** Applies the changes to a live case, which is then a runnable one; undefined when there is no such case. */
export async function updateCase(
  sql: Db,
  suiteId: string,
  caseId: string,
  changes: CaseChanges,
): Promise<Case | undefined> {
  const columns: Record<string, unknown> = {};
  if (changes.title !== undefined) columns.title = changes.title;
  if (changes.query !== undefined) columns.query = changes.query;
  if (changes.runs !== undefined) columns.runs = changes.runs;
  if (changes.models !== undefined && changes.models !== null && changes.models.length > 0) {
    const models = caseModelColumns({ models: changes.models, provider: changes.provider });
    columns.model = models.model;
    columns.provider = models.provider;
    columns.models = json(sql, models.models);
  } else {
    if (changes.model !== undefined) columns.model = changes.model;
    if (changes.provider !== undefined) columns.provider = changes.provider;
    // one model named (or the list emptied): the case has that one model, no list
    if (changes.model !== undefined || changes.models !== undefined) columns.models = null;
  }
  if (changes.expectedToolCalls !== undefined) columns.expected_tool_calls = json(sql, changes.expectedToolCalls);
  if (changes.isNegativeTest !== undefined) columns.is_negative_test = changes.isNegativeTest;
  if (changes.expectedOutput !== undefined) columns.expected_output = changes.expectedOutput;
  if (changes.outputCheck !== undefined) columns.output_check = json(sql, changes.outputCheck);
  if (changes.turns !== undefined) columns.turns = json(sql, changes.turns);
  if (changes.scenario !== undefined) columns.scenario = changes.scenario;
  if (changes.advancedConfig !== undefined) columns.advanced_config = json(sql, changes.advancedConfig);
  if (changes.matchOptions !== undefined) columns.match_options = json(sql, changes.matchOptions);
  if (changes.elicitation !== undefined) columns.elicitation = json(sql, changes.elicitation);
  // An edited case is its editor's: one that ingest created becomes runnable (its `ingested` mark goes).
  columns.ingested = false;
  // postgres.js reads `UPDATE ... SET` just before the helper to render it as assignments, so it stays in one fragment.
  const update = sql`UPDATE eval_cases SET ${sql(columns)}, updated_at = clock_timestamp()`;
  const [row] = await sql<
    CaseRow[]
  >`${update} WHERE id = ${caseId} AND suite_id = ${suiteId} AND deleted_at IS NULL RETURNING *`;
  return camelRow(row);
}

/**
 * Soft-deletes a live case: runs from now on leave it out, while past iterations keep pointing at it (their
 * testCaseId) and a run in progress still scores it with its options. Its title + query are free for a new case.
 */
export async function deleteCase(sql: Db | Tx, suiteId: string, caseId: string): Promise<boolean> {
  const rows = await sql`
    UPDATE eval_cases SET deleted_at = clock_timestamp(), updated_at = clock_timestamp()
    WHERE id = ${caseId} AND suite_id = ${suiteId} AND deleted_at IS NULL RETURNING id`;
  return rows.length === 1;
}
