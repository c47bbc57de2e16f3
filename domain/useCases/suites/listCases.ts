import type { Db } from '../../../db/connection.js';
import { listCases as readCases } from '../../../db/evalSuites.js';
import { requireSuite } from '../../access/suite.js';
import type { Principal } from '../../principal.js';
import type { Case } from '../../evals/case.js';

/** A suite's cases, oldest first. */
export function listCases(deps: { sql: Db }) {
  return async function listCases(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
  }): Promise<Case[]> {
    const suite = await requireSuite(deps.sql, input.principal, input);
    return await readCases(deps.sql, suite.id);
  };
}

export type ListCases = ReturnType<typeof listCases>;
