import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireSuite } from '../../access/suite.js';
import type { Principal } from '../../principal.js';
import type { Case } from '../../evals/case.js';

/** A suite's cases, oldest first. */
export function listCases(deps: { suites: SuiteStore }) {
  return async function listCases(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
  }): Promise<Case[]> {
    const suite = await requireSuite(deps.suites, input.principal, input);
    return await deps.suites.cases(suite.id);
  };
}

export type ListCases = ReturnType<typeof listCases>;
