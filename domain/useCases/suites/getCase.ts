import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireSuite } from '../../access/suite.js';
import { notFound } from '../../failures.js';
import type { Principal } from '../../principal.js';
import type { Case } from '../../evals/case.js';

/** One case of a live suite. */
export function getCase(deps: { suites: SuiteStore }) {
  return async function getCase(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    caseId: string;
  }): Promise<Case> {
    const suite = await requireSuite(deps.suites, input.principal, input);
    const row = await deps.suites.findCase(suite.id, input.caseId);
    if (!row) throw notFound('case', { caseId: input.caseId });
    return row;
  };
}

export type GetCase = ReturnType<typeof getCase>;
