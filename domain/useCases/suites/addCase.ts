import { inTransaction, type Db } from '../../../db/connection.js';
import { createCase } from '../../../db/evalCases.js';
import { lockSuiteCases, type CaseInput } from '../../../db/evalSuites.js';
import type { SecretBox } from '../../ports/secretBox.js';
import { requireSuite } from '../../access/suite.js';
import { caseWarnings, lockSuiteForCases, refuseDuplicateCase } from '../../evals/caseWrites.js';
import type { UnknownToolWarning } from '../../evals/expectedTools.js';
import { checkSuiteCases } from '../../limits.js';
import type { McpOperations } from '../../mcp/index.js';
import type { Principal } from '../../principal.js';
import type { Case } from '../../evals/case.js';

/**
 * Adds a case to a live suite (runs started later include it), under the suite's lock: a case with the title and
 * prompt of another case of the suite is refused (DUPLICATE_CASE), and so is one past the cases a suite may hold.
 */
export function addCase(deps: { sql: Db; box: SecretBox; mcp: McpOperations }) {
  return async function addCase(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    case: CaseInput;
  }): Promise<{ case: Case; warnings: UnknownToolWarning[] }> {
    const { sql } = deps;
    const suite = await requireSuite(sql, input.principal, input);
    const row = await inTransaction(sql, async (tx) => {
      await lockSuiteForCases(tx, suite);
      await refuseDuplicateCase(tx, suite.id, input.case);
      const { cases } = await lockSuiteCases(tx, suite.id);
      checkSuiteCases(suite.id, cases, 1);
      return await createCase(tx, suite.id, input.case);
    });
    return { case: row, warnings: await caseWarnings(deps, suite, row) };
  };
}

export type AddCase = ReturnType<typeof addCase>;
