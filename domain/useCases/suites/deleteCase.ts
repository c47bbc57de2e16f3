import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireSuite } from '../../access/suite.js';
import { notFound } from '../../failures.js';
import type { Principal } from '../../principal.js';

/** Deletes a case of a live suite; past runs keep its iterations and stay readable. */
export function deleteCase(deps: { suites: SuiteStore }) {
  return async function deleteCase(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    caseId: string;
  }): Promise<void> {
    const suite = await requireSuite(deps.suites, input.principal, input);
    if (!(await deps.suites.deleteCase(suite.id, input.caseId))) throw notFound('case', { caseId: input.caseId });
  };
}

export type DeleteCase = ReturnType<typeof deleteCase>;
