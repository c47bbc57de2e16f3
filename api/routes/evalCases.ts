import { z } from 'zod';
import { checkExpectedTools } from '../../domain/evals/expectedTools.js';
import { checkSuiteCases } from '../../domain/limits.js';
import type { Sql, Tx } from '../../db/connection.js';
import {
  createCase,
  deleteCase,
  findCase,
  findCaseByIdentity,
  updateCase,
  type CaseChanges,
} from '../../db/evalCases.js';
import { listCases, lockLiveSuite, lockSuiteCases, type Case, type Suite } from '../../db/evalSuites.js';
import type { RouteDeps } from '../app.js';
import { notFound, validationError } from '../errors.js';
import { toCaseView } from '../caseViews.js';
import { defineRoute } from '../route.js';
import { caseDeletedSchema, caseSchema, createCaseBody, updateCaseBody } from '../schemas/cases.js';
import { id } from '../schemas/common.js';
import { caseShapeIssues, suiteParams, turnsExpectedToolCalls, warningsSchema } from '../schemas/evals.js';
import { requireSuite, suiteServersToCheck } from '../../domain/access/suite.js';

const caseParams = suiteParams.extend({ caseId: id });

/** A case as written: the case, and advice about expected tools the suite's servers do not list. */
const caseWrittenSchema = caseSchema.extend({ warnings: warningsSchema }).meta({ id: 'EvalCaseWritten' });

/** The suite locked for case writes (404 if deleted meanwhile): writes to one suite's cases happen one at a time. */
async function lockSuite(tx: Tx, suite: Suite): Promise<void> {
  if (!(await lockLiveSuite(tx, suite.id))) throw notFound('eval suite', { suiteId: suite.id });
}

/** Cases are identified within a suite by title + prompt: a second case with both equal is refused. */
async function refuseDuplicate(
  tx: Tx,
  suiteId: string,
  identity: { title: string; query: string },
  exceptId?: string,
): Promise<void> {
  const other = await findCaseByIdentity(tx, suiteId, identity, exceptId);
  if (!other) return;
  throw validationError(
    `case ${other.id} of this suite already has this title and prompt; cases are identified by title + prompt within a suite: change one of them, or edit ${other.id}`,
    { reason: 'DUPLICATE_CASE', caseId: other.id },
  );
}

/**
 * An edit checked against the case it changes (turns, query, expectations and output check must agree as on
 * creation: caseShapeIssues); with turns, the stored query becomes the first prompt and expectedToolCalls every
 * turn's.
 */
function turnChanges(current: Case, body: CaseChanges): CaseChanges {
  const pick = <K extends keyof CaseChanges & keyof Case>(key: K) =>
    (body[key] !== undefined ? body[key] : current[key]) as never;
  const merged = {
    query: body.query ?? null,
    expectedToolCalls: body.expectedToolCalls ?? null,
    expectedOutput: pick('expectedOutput'),
    outputCheck: pick('outputCheck'),
    turns: pick('turns'),
  } as Parameters<typeof caseShapeIssues>[0];
  const issues = caseShapeIssues(merged, 'prompt');
  const first = issues[0];
  if (first)
    throw validationError(`body.${first.path.join('.')}: ${first.message}`, {
      issues: issues.map((i) => ({ path: ['body', ...i.path].join('.'), message: i.message })),
    });
  if (!merged.turns) return body;
  return { ...body, query: merged.turns[0].prompt, expectedToolCalls: turnsExpectedToolCalls(merged.turns) };
}

export function evalCaseRoutes({ sql, box, mcp }: RouteDeps) {
  /** Expected tools the suite's servers do not list: a warning, never a refusal. */
  const warningsFor = async (suite: Suite, row: Case) => {
    const warnings = await checkExpectedTools(mcp, await suiteServersToCheck(sql, box, suite), [
      { title: row.title, expectedToolCalls: row.expectedToolCalls },
    ]);
    return warnings.length > 0 ? { warnings } : {};
  };

  return [
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-suites/:suiteId/cases',
      tag: 'Evals',
      summary: "A suite's cases, oldest first",
      params: suiteParams,
      response: z.object({ items: z.array(caseSchema) }),
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        const suite = await requireSuite(sql, principal, params);
        return { items: (await listCases(sql, suite.id)).map(toCaseView) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/eval-suites/:suiteId/cases',
      tag: 'Evals',
      summary: 'Add a case to a suite (runs started later include it)',
      description:
        "Takes the real product's field names (prompt, iterations, isNegative, models) or Runway's (query, runs, isNegativeTest, model + provider). A case with the title and prompt of another case of the suite is refused (400, details.reason DUPLICATE_CASE).",
      params: suiteParams,
      body: createCaseBody,
      status: 201,
      response: caseWrittenSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const suite = await requireSuite(sql, principal, params);
        const row = await (sql as Sql).begin(async (tx) => {
          await lockSuite(tx, suite);
          await refuseDuplicate(tx, suite.id, body);
          const { cases } = await lockSuiteCases(tx, suite.id);
          checkSuiteCases(suite.id, cases, 1);
          return await createCase(tx, suite.id, body);
        });
        return { ...toCaseView(row), ...(await warningsFor(suite, row)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-suites/:suiteId/cases/:caseId',
      tag: 'Evals',
      summary: 'One case of a suite',
      params: caseParams,
      response: caseSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        const suite = await requireSuite(sql, principal, params);
        const row = await findCase(sql, suite.id, params.caseId);
        if (!row) throw notFound('case', { caseId: params.caseId });
        return toCaseView(row);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/projects/:projectId/eval-suites/:suiteId/cases/:caseId',
      tag: 'Evals',
      summary: 'Edit a case (runs started later use the edit; past runs keep what they ran)',
      description: 'The fields given change; null clears an optional one. Either vocabulary, as for POST.',
      params: caseParams,
      body: updateCaseBody,
      response: caseWrittenSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const suite = await requireSuite(sql, principal, params);
        const row = await (sql as Sql).begin(async (tx) => {
          await lockSuite(tx, suite);
          const current = await findCase(tx, suite.id, params.caseId);
          if (!current) throw notFound('case', { caseId: params.caseId });
          const changes = turnChanges(current, body);
          const identity = { title: changes.title ?? current.title, query: changes.query ?? current.query };
          if (identity.title !== current.title || identity.query !== current.query)
            await refuseDuplicate(tx, suite.id, identity, current.id);
          return (await updateCase(tx, suite.id, current.id, changes))!;
        });
        const expectationsChanged = body.expectedToolCalls !== undefined || (body.turns ?? null) !== null;
        return { ...toCaseView(row), ...(expectationsChanged ? await warningsFor(suite, row) : {}) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/projects/:projectId/eval-suites/:suiteId/cases/:caseId',
      tag: 'Evals',
      summary: 'Delete a case (past runs keep its iterations and stay readable)',
      params: caseParams,
      response: caseDeletedSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        const suite = await requireSuite(sql, principal, params);
        if (!(await deleteCase(sql, suite.id, params.caseId))) throw notFound('case', { caseId: params.caseId });
        return { id: params.caseId, deleted: true as const };
      },
    }),
  ];
}
