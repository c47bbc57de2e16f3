import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireSuite } from '../../access/suite.js';
import { caseWarnings, lockSuiteForCases, refuseDuplicateCase } from '../../evals/caseWrites.js';
import type { UnknownToolWarning } from '../../evals/expectedTools.js';
import { checkSuiteCases } from '../../limits.js';
import type { McpOperations } from '../../mcp/index.js';
import type { Principal } from '../../principal.js';
import type { Case, CaseInput } from '../../evals/case.js';

/**
 * Adds a case to a live suite (runs started later include it), under the suite's lock: a case with the title and
 * prompt of another case of the suite is refused (DUPLICATE_CASE), and so is one past the cases a suite may hold.
 */
export function addCase(deps: { suites: SuiteStore; mcp: McpOperations }) {
  return async function addCase(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    case: CaseInput;
  }): Promise<{ case: Case; warnings: UnknownToolWarning[] }> {
    const suite = await requireSuite(deps.suites, input.principal, input);
    const row = await deps.suites.transaction(async (tx) => {
      await lockSuiteForCases(tx, suite);
      await refuseDuplicateCase(tx, suite.id, input.case);
      checkSuiteCases(suite.id, await tx.lockCases(suite.id), 1);
      return await tx.addCase(suite.id, input.case);
    });
    return { case: row, warnings: await caseWarnings(deps, suite, row) };
  };
}

export type AddCase = ReturnType<typeof addCase>;
