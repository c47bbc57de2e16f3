import type { Db } from '../../../db/connection.js';
import { deleteCase as removeCase } from '../../../db/evalCases.js';
import { requireSuite } from '../../access/suite.js';
import { notFound } from '../../failures.js';
import type { Principal } from '../../principal.js';

/** Deletes a case of a live suite; past runs keep its iterations and stay readable. */
export function deleteCase(deps: { sql: Db }) {
  return async function deleteCase(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    caseId: string;
  }): Promise<void> {
    const suite = await requireSuite(deps.sql, input.principal, input);
    if (!(await removeCase(deps.sql, suite.id, input.caseId))) throw notFound('case', { caseId: input.caseId });
  };
}

export type DeleteCase = ReturnType<typeof deleteCase>;
