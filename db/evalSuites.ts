import type { Db, Tx } from './connection.js';
import type { RunRow } from './evalRuns.js';
import { newId } from '../domain/ids.js';
import { camelRow, camelRows, type Camel, type RowIsNoun, type Same } from './rows.js';
import type { IterationIsolation } from '../domain/catalog/server.js';
import type {
  Case,
  CaseAdvancedConfig,
  CaseElicitation,
  CaseInput,
  CaseUpsert,
  StoredOutputCheck,
  StoredTurn,
} from '../domain/evals/case.js';
import type { PassCriteria, Run, RunBudget } from '../domain/evals/run.js';
import type { ExpectedToolCall } from '../domain/evals/scoring.js';
import type { JudgeModel, LatestRun, ModelChoice, Suite, SuiteWithStats } from '../domain/evals/suite.js';
import type { CaseHeading, CaseRunTally, NewSuite, SuiteChanges, SuiteDeletion } from '../domain/ports/suiteStore.js';

/** The domain's case inputs, for the modules that still import them from here. */
export type { CaseInput, CaseUpsert };

export interface SuiteRow {
  id: string;
  project_id: string;
  name: string;
  description: string;
  server_ids: string[];
  default_model: string | null;
  /** the models of cases that name none, when the suite compares several (default_model is the first) */
  default_models: ModelChoice[] | null;
  /** the budget of a run of the suite that gives none */
  default_budget: RunBudget | null;
  pass_criteria: PassCriteria;
  source: string;
  /** the host whose client profile the suite's runs declare */
  host_id: string | null;
  /** whether the iterations of its runs get fresh MCP sessions each (default) or share them */
  iteration_isolation: IterationIsolation;
  judge_model: JudgeModel | null;
  /** run every schedule_interval_minutes while enabled (the wanted state; Temporal holds the schedule itself) */
  schedule_enabled: boolean;
  schedule_interval_minutes: number | null;
  /** a deleted suite keeps its row so that its runs stay readable; it is gone from every suite read */
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The row as the domain's Suite (domain/evals/suite.ts): a column and its field go together. */
type _SuiteIsRow = RowIsNoun<Same<Camel<SuiteRow>, Suite>>;

/**
 * The model columns of a case: `models` (kept only when it names more than one: one model is `model` + `provider`,
 * as before) and the first model in `model`/`provider`, which every reader of a single model keeps reading.
 */
export function caseModelColumns(c: {
  model?: string | null;
  provider?: string | null;
  models?: ModelChoice[] | null;
}) {
  const first = c.models?.[0];
  if (!first) return { model: c.model ?? null, provider: c.provider ?? null, models: null };
  return {
    model: first.model,
    provider: first.provider ?? c.provider ?? null,
    models:
      c.models!.length > 1
        ? c.models!.map((m) => {
            const provider = m.provider ?? c.provider;
            return { model: m.model, ...(provider && { provider }) };
          })
        : null,
  };
}

export interface CaseRow {
  id: string;
  suite_id: string;
  title: string;
  query: string;
  runs: number;
  model: string | null;
  provider: string | null;
  /** set when the case compares several models (model/provider hold the first) */
  models: ModelChoice[] | null;
  expected_tool_calls: ExpectedToolCall[];
  is_negative_test: boolean;
  expected_output: string | null;
  output_check: StoredOutputCheck | null;
  /** a conversation's prompts (then `query` is the first one and `expected_tool_calls` all turns' in order) */
  turns: StoredTurn[] | null;
  scenario: string | null;
  advanced_config: CaseAdvancedConfig | null;
  match_options: Record<string, unknown> | null;
  elicitation: CaseElicitation | null;
  external_case_id: string | null;
  /**
   * created by ingest: it holds reported results only and runs leave it out (a report names no prompt or model a
   * run could use). Writing the case (an inline test with its title and prompt, a PATCH) makes it runnable.
   */
  ingested: boolean;
  /** a deleted case keeps its row: past iterations point at it (and a running run still reads its options) */
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The row as the domain's Case (domain/evals/case.ts): a column and its field go together. */
type _CaseIsRow = RowIsNoun<Same<Camel<CaseRow>, Case>>;

/** A suite of the project that is not deleted; `includeDeleted` for the records of runs that already exist. */
export async function findSuite(
  sql: Db,
  projectId: string,
  suiteId: string,
  options: { includeDeleted?: boolean } = {},
): Promise<Suite | undefined> {
  const [row] = await sql<SuiteRow[]>`
    SELECT * FROM eval_suites WHERE id = ${suiteId} AND project_id = ${projectId}
      ${options.includeDeleted ? sql`` : sql`AND deleted_at IS NULL`}`;
  return camelRow(row);
}

/** A new suite. Names are not unique (as in the real product): a name in use makes another suite. */
export async function createSuite(sql: Db, input: NewSuite): Promise<Suite> {
  const [row] = await sql<SuiteRow[]>`
    INSERT INTO eval_suites (id, project_id, name, description, server_ids, default_model, pass_criteria, source, host_id,
                             iteration_isolation, judge_model, default_models, default_budget)
    VALUES (${newId('sui')}, ${input.projectId}, ${input.name}, ${input.description ?? ''}, ${input.serverIds ?? []},
            ${input.defaultModel ?? input.defaultModels?.[0]?.model ?? null}, ${sql.json(input.passCriteria ?? { minimumPassRate: 100 })}, ${input.source},
            ${input.hostId ?? null}, ${input.iterationIsolation ?? 'per-iteration'},
            ${input.judgeModel ? sql.json(input.judgeModel as never) : null},
            ${input.defaultModels ? sql.json(input.defaultModels as never) : null},
            ${input.defaultBudget ? sql.json(input.defaultBudget as never) : null})
    RETURNING *`;
  return camelRow(row);
}

/**
 * The suite results reported under a name go to: the newest live suite of that name, else a new one. Reporters
 * (the SDK, CI, uploads) name suites and retry, so the same name must keep landing in one suite: concurrent
 * reporters of one new name are serialized by a transaction-scoped lock on (project, name), so only the first
 * creates it. Both locks (the name's, and the suite's row lock that deleteSuite takes too) are held until the
 * caller's transaction ends, so a suite deleted meanwhile is not reported into.
 */
export async function findOrCreateSuiteByName(tx: Tx, input: NewSuite): Promise<Suite> {
  await tx`SELECT pg_advisory_xact_lock(hashtext(${`eval-suite:${input.projectId}`}), hashtext(${input.name}))`;
  const [existing] = await tx<SuiteRow[]>`
    SELECT * FROM eval_suites WHERE project_id = ${input.projectId} AND name = ${input.name} AND deleted_at IS NULL
    ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`;
  return camelRow(existing) ?? (await createSuite(tx, input));
}

/**
 * The live suite, its row locked until the transaction ends (the lock insertRun and deleteSuite take): a run is
 * never created in a suite being deleted.
 */
export async function lockLiveSuite(tx: Tx, suiteId: string): Promise<Suite | undefined> {
  const [row] = await tx<SuiteRow[]>`SELECT * FROM eval_suites WHERE id = ${suiteId} AND deleted_at IS NULL FOR UPDATE`;
  return camelRow(row);
}

/** Applies the given changes to a live suite; undefined when there is no such suite. */
export async function updateSuite(
  sql: Db,
  projectId: string,
  suiteId: string,
  changes: SuiteChanges,
): Promise<Suite | undefined> {
  const columns: Record<string, unknown> = {};
  if (changes.name !== undefined) columns.name = changes.name;
  if (changes.description !== undefined) columns.description = changes.description;
  if (changes.serverIds !== undefined) columns.server_ids = changes.serverIds;
  if (changes.defaultModel !== undefined) columns.default_model = changes.defaultModel;
  if (changes.defaultModels !== undefined) {
    columns.default_models = changes.defaultModels === null ? null : sql.json(changes.defaultModels as never);
    if (changes.defaultModels?.[0]) columns.default_model = changes.defaultModels[0].model;
  }
  // a single default model replaces a default list
  else if (changes.defaultModel !== undefined) columns.default_models = null;
  if (changes.defaultBudget !== undefined)
    columns.default_budget = changes.defaultBudget === null ? null : sql.json(changes.defaultBudget as never);
  if (changes.passCriteria !== undefined) columns.pass_criteria = sql.json(changes.passCriteria);
  if (changes.hostId !== undefined) columns.host_id = changes.hostId;
  if (changes.iterationIsolation !== undefined) columns.iteration_isolation = changes.iterationIsolation;
  if (changes.judgeModel !== undefined)
    columns.judge_model = changes.judgeModel === null ? null : sql.json(changes.judgeModel as never);
  // postgres.js reads `UPDATE ... SET` just before the helper to render it as assignments, so it stays in one fragment.
  const update =
    Object.keys(columns).length > 0
      ? sql`UPDATE eval_suites SET ${sql(columns)}, updated_at = clock_timestamp()`
      : sql`UPDATE eval_suites SET updated_at = clock_timestamp()`;
  const [row] = await sql<SuiteRow[]>`
    ${update} WHERE id = ${suiteId} AND project_id = ${projectId} AND deleted_at IS NULL
    RETURNING *`;
  return camelRow(row);
}

/** Runs of the suite still running (or queued, issue 33): a suite cannot be deleted under them. */
export async function listRunningRunsOfSuite(sql: Db, suiteId: string): Promise<Run[]> {
  return camelRows(
    await sql<
      RunRow[]
    >`SELECT * FROM eval_runs WHERE suite_id = ${suiteId} AND status IN ('running', 'queued') ORDER BY created_at`,
  );
}

/**
 * Soft-deletes a live suite unless a run of it is running (checked under the suite's row lock, which run creation
 * takes too). Its runs, iterations and traces stay as they are.
 */
export async function deleteSuite(tx: Tx, projectId: string, suiteId: string): Promise<SuiteDeletion | undefined> {
  const [suite] = await tx<
    SuiteRow[]
  >`SELECT * FROM eval_suites WHERE id = ${suiteId} AND project_id = ${projectId} AND deleted_at IS NULL FOR UPDATE`;
  if (!suite) return undefined;
  const running = await listRunningRunsOfSuite(tx, suiteId);
  if (running.length > 0) return { deleted: false, running };
  await tx`UPDATE eval_suites SET deleted_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = ${suiteId}`;
  return { deleted: true };
}

/**
 * Inserts or updates each case by its identity (title + query, or externalCaseId when given). Each case has its own
 * savepoint, so one bad case is reported in `failed` and the others still commit. A case written here is a runnable
 * one, also when ingest created it (its `ingested` mark goes): the caller wrote what a run needs.
 */
export async function upsertCases(tx: Tx, suiteId: string, cases: CaseInput[]): Promise<CaseUpsert> {
  const outcome: CaseUpsert = { committed: [], failed: [] };
  const seen = new Map<string, number>();
  for (const [index, c] of cases.entries()) {
    const identity = c.externalCaseId ? `ext:${c.externalCaseId}` : `${c.title}\u0000${c.query}`;
    const duplicateOf = seen.get(identity);
    if (duplicateOf !== undefined) {
      outcome.failed.push({ name: c.title, error: `duplicate of tests[${duplicateOf}] (same title and query)` });
      continue;
    }
    seen.set(identity, index);
    try {
      const row = await tx.savepoint(async (sp) => {
        const modelColumns = caseModelColumns(c);
        const values = {
          runs: c.runs ?? 1,
          model: modelColumns.model,
          provider: modelColumns.provider,
          models: modelColumns.models ? sp.json(modelColumns.models as never) : null,
          expected: sp.json((c.expectedToolCalls ?? []) as never),
          negative: c.isNegativeTest ?? false,
          output: c.expectedOutput ?? null,
          check: c.outputCheck ? sp.json(c.outputCheck as never) : null,
          turns: c.turns ? sp.json(c.turns as never) : null,
          scenario: c.scenario ?? null,
          advanced: c.advancedConfig ? sp.json(c.advancedConfig as never) : null,
          match: c.matchOptions ? sp.json(c.matchOptions as never) : null,
          elicitation: c.elicitation ? sp.json(c.elicitation as never) : null,
        };
        const [inserted] = c.externalCaseId
          ? await sp<{ id: string }[]>`
              INSERT INTO eval_cases (id, suite_id, title, query, runs, model, provider, expected_tool_calls, is_negative_test,
                                      expected_output, output_check, turns, scenario, advanced_config, match_options, elicitation,
                                      external_case_id, models)
              VALUES (${newId('case')}, ${suiteId}, ${c.title}, ${c.query}, ${values.runs}, ${values.model}, ${values.provider},
                      ${values.expected}, ${values.negative}, ${values.output}, ${values.check}, ${values.turns}, ${values.scenario},
                      ${values.advanced}, ${values.match}, ${values.elicitation}, ${c.externalCaseId}, ${values.models})
              ON CONFLICT (suite_id, external_case_id) WHERE external_case_id IS NOT NULL AND deleted_at IS NULL DO UPDATE SET
                title = EXCLUDED.title, query = EXCLUDED.query, runs = EXCLUDED.runs, model = EXCLUDED.model, provider = EXCLUDED.provider,
                models = EXCLUDED.models,
                expected_tool_calls = EXCLUDED.expected_tool_calls, is_negative_test = EXCLUDED.is_negative_test,
                expected_output = EXCLUDED.expected_output, output_check = EXCLUDED.output_check, turns = EXCLUDED.turns,
                scenario = EXCLUDED.scenario, advanced_config = EXCLUDED.advanced_config,
                match_options = EXCLUDED.match_options, elicitation = EXCLUDED.elicitation, ingested = false,
                updated_at = clock_timestamp()
              RETURNING id`
          : await sp<{ id: string }[]>`
              INSERT INTO eval_cases (id, suite_id, title, query, runs, model, provider, expected_tool_calls, is_negative_test,
                                      expected_output, output_check, turns, scenario, advanced_config, match_options, elicitation,
                                      models)
              VALUES (${newId('case')}, ${suiteId}, ${c.title}, ${c.query}, ${values.runs}, ${values.model}, ${values.provider},
                      ${values.expected}, ${values.negative}, ${values.output}, ${values.check}, ${values.turns}, ${values.scenario},
                      ${values.advanced}, ${values.match}, ${values.elicitation}, ${values.models})
              ON CONFLICT (suite_id, md5(title), md5(query)) WHERE deleted_at IS NULL DO UPDATE SET
                runs = EXCLUDED.runs, model = EXCLUDED.model, provider = EXCLUDED.provider, models = EXCLUDED.models,
                expected_tool_calls = EXCLUDED.expected_tool_calls, is_negative_test = EXCLUDED.is_negative_test,
                expected_output = EXCLUDED.expected_output, output_check = EXCLUDED.output_check, turns = EXCLUDED.turns,
                scenario = EXCLUDED.scenario, advanced_config = EXCLUDED.advanced_config,
                match_options = EXCLUDED.match_options, elicitation = EXCLUDED.elicitation, ingested = false,
                updated_at = clock_timestamp()
              RETURNING id`;
        return inserted;
      });
      outcome.committed.push({ id: row.id, name: c.title });
    } catch (error) {
      outcome.failed.push({ name: c.title, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return outcome;
}

/**
 * Locks the suite against concurrent case creation (the row lock insertRun takes too) and counts its cases and,
 * of `incoming` (identified by title + query), the ones it does not hold yet.
 */
export async function lockSuiteCases(
  tx: Tx,
  suiteId: string,
  incoming: { title: string; query: string }[] = [],
): Promise<{ cases: number; adding: number }> {
  await tx`SELECT id FROM eval_suites WHERE id = ${suiteId} FOR UPDATE`;
  const [row] = await tx<{ cases: number; adding: number }[]>`
    SELECT (SELECT count(*) FROM eval_cases WHERE suite_id = ${suiteId} AND deleted_at IS NULL)::int AS cases,
           (SELECT count(*) FROM (SELECT DISTINCT title, query FROM unnest(${incoming.map((c) => c.title)}::text[], ${incoming.map((c) => c.query)}::text[]) AS t (title, query)) t
             WHERE NOT EXISTS (SELECT FROM eval_cases c WHERE c.suite_id = ${suiteId} AND c.deleted_at IS NULL AND c.title = t.title AND c.query = t.query))::int AS adding`;
  return row;
}

/**
 * Per run and case, the finished iterations and passes of these runs and cases: one grouped statement for all of
 * them, reading only the iterations of these cases (the plan index leads with run and case).
 */
export async function caseRunTallies(sql: Db, runIds: string[], caseIds: string[]): Promise<CaseRunTally[]> {
  if (runIds.length === 0 || caseIds.length === 0) return [];
  return await sql<CaseRunTally[]>`
    SELECT run_id AS "runId", case_id AS "caseId",
           count(*) FILTER (WHERE status IN ('completed', 'failed'))::int AS finished,
           count(*) FILTER (WHERE result = 'passed')::int AS passed
    FROM eval_iterations WHERE run_id = ANY(${runIds}) AND case_id = ANY(${caseIds})
    GROUP BY run_id, case_id`;
}

/**
 * One page of the suite's live cases, oldest first (as listCases), after the case `afterCaseId` (the last of the
 * previous page; a case deleted since still marks its place). Positions by id rather than by instant, since
 * created_at has microseconds that a JavaScript Date would drop.
 */
export async function listCaseHeadings(
  sql: Db,
  suiteId: string,
  afterCaseId: string | undefined,
  limit: number,
): Promise<CaseHeading[]> {
  const after =
    afterCaseId === undefined
      ? sql``
      : sql`AND (created_at, id) > (SELECT created_at, id FROM eval_cases WHERE id = ${afterCaseId} AND suite_id = ${suiteId})`;
  return await sql<CaseHeading[]>`
    SELECT id, title FROM eval_cases WHERE suite_id = ${suiteId} AND deleted_at IS NULL ${after}
    ORDER BY created_at, id LIMIT ${limit}`;
}

/** The suite's live cases, oldest first: what a run plans and what the case list shows. */
export async function listCases(sql: Db, suiteId: string): Promise<Case[]> {
  return camelRows(
    await sql<
      CaseRow[]
    >`SELECT * FROM eval_cases WHERE suite_id = ${suiteId} AND deleted_at IS NULL ORDER BY created_at, id`,
  );
}

export interface SuiteListRow extends SuiteRow {
  latest_run: LatestRun | null;
  runs: number;
  runs_passed: number;
  runs_failed: number;
  trend: number[];
  /** the distinct sources of the suite's runs (api, sdk, schedule), in name order */
  sources: string[];
  /** when the suite's schedule last started a run */
  last_scheduled_run_at: Date | null;
}

/** The suite list's row as the domain's SuiteWithStats (domain/evals/suite.ts). */
type _SuiteListIsRow = RowIsNoun<Same<Camel<SuiteListRow>, SuiteWithStats>>;

/**
 * Suites with their latest run, run totals, the pass-rate trend of the last 10 finished runs, their runs' sources and
 * when their schedule last started one, in one query.
 */
export async function listSuitesWithStats(sql: Db, projectId: string): Promise<SuiteWithStats[]> {
  return camelRows(
    await sql<SuiteListRow[]>`
    SELECT s.*,
      (SELECT row_to_json(r) FROM (SELECT id, status, result, summary, created_at AS "createdAt" FROM eval_runs
        WHERE suite_id = s.id ORDER BY created_at DESC, run_number DESC LIMIT 1) r) AS latest_run,
      (SELECT count(*)::int FROM eval_runs WHERE suite_id = s.id) AS runs,
      (SELECT count(*)::int FROM eval_runs WHERE suite_id = s.id AND result = 'passed') AS runs_passed,
      (SELECT count(*)::int FROM eval_runs WHERE suite_id = s.id AND result = 'failed') AS runs_failed,
      COALESCE((SELECT array_agg(rate ORDER BY created_at) FROM (
        SELECT (summary->>'passRate')::float8 AS rate, created_at FROM eval_runs
        WHERE suite_id = s.id AND status <> 'running' AND summary IS NOT NULL
        ORDER BY created_at DESC LIMIT 10) t), '{}') AS trend,
      COALESCE((SELECT array_agg(DISTINCT source ORDER BY source) FROM eval_runs WHERE suite_id = s.id), '{}') AS sources,
      (SELECT max(created_at) FROM eval_runs WHERE suite_id = s.id AND source = 'schedule') AS last_scheduled_run_at
    FROM eval_suites s WHERE s.project_id = ${projectId} AND s.deleted_at IS NULL
    ORDER BY s.created_at, s.id`,
  );
}
