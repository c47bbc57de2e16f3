import { z } from 'zod';
import type { AddCase } from '../../domain/useCases/suites/addCase.js';
import type { DeleteCase } from '../../domain/useCases/suites/deleteCase.js';
import type { EditCase } from '../../domain/useCases/suites/editCase.js';
import type { GetCase } from '../../domain/useCases/suites/getCase.js';
import type { ListCases } from '../../domain/useCases/suites/listCases.js';
import { toCaseView } from '../caseViews.js';
import { defineRoute } from '../route.js';
import { caseDeletedSchema, caseSchema, createCaseBody, updateCaseBody } from '../schemas/cases.js';
import { id } from '../schemas/common.js';
import { suiteParams, warningsSchema } from '../schemas/evals.js';

const caseParams = suiteParams.extend({ caseId: id });

/** A case as written: the case, and advice about expected tools the suite's servers do not list. */
const caseWrittenSchema = caseSchema.extend({ warnings: warningsSchema }).meta({ id: 'EvalCaseWritten' });

/** A written case on the wire: warnings only when there are some. */
const written = (outcome: Awaited<ReturnType<AddCase | EditCase>>) => ({
  ...toCaseView(outcome.case),
  ...(outcome.warnings.length > 0 && { warnings: outcome.warnings }),
});

export function evalCaseRoutes(deps: {
  listCases: ListCases;
  addCase: AddCase;
  getCase: GetCase;
  editCase: EditCase;
  deleteCase: DeleteCase;
}) {
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
        return { items: (await deps.listCases({ principal, ...params })).map(toCaseView) };
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
      idempotent: true,
      response: caseWrittenSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        return written(await deps.addCase({ principal, ...params, case: body }));
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
        return toCaseView(await deps.getCase({ principal, ...params }));
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
        return written(await deps.editCase({ principal, ...params, changes: body }));
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
        await deps.deleteCase({ principal, ...params });
        return { id: params.caseId, deleted: true as const };
      },
    }),
  ];
}
