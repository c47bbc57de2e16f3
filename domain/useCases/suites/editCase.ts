import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireSuite } from '../../access/suite.js';
import { caseWarnings, lockSuiteForCases, refuseDuplicateCase, turnChanges } from '../../evals/caseWrites.js';
import type { UnknownToolWarning } from '../../evals/expectedTools.js';
import { notFound } from '../../failures.js';
import type { McpOperations } from '../../mcp/index.js';
import type { Principal } from '../../principal.js';
import type { Case, CaseChanges } from '../../evals/case.js';

/**
 * Edits a case of a live suite (runs started later use the edit; past runs keep what they ran), under the suite's
 * lock. The edit must agree with the case it changes (turns, prompt, expectations), and a new title or prompt must
 * not be another case's. Warnings about expected tools come only when the expectations changed.
 */
export function editCase(deps: { suites: SuiteStore; mcp: McpOperations }) {
  return async function editCase(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    caseId: string;
    changes: CaseChanges;
  }): Promise<{ case: Case; warnings: UnknownToolWarning[] }> {
    const body = input.changes;
    const suite = await requireSuite(deps.suites, input.principal, input);
    const row = await deps.suites.transaction(async (tx) => {
      await lockSuiteForCases(tx, suite);
      const current = await tx.findCase(suite.id, input.caseId);
      if (!current) throw notFound('case', { caseId: input.caseId });
      const changes = turnChanges(current, body);
      const identity = { title: changes.title ?? current.title, query: changes.query ?? current.query };
      if (identity.title !== current.title || identity.query !== current.query)
        await refuseDuplicateCase(tx, suite.id, identity, current.id);
      return (await tx.updateCase(suite.id, current.id, changes))!;
    });
    const expectationsChanged = body.expectedToolCalls !== undefined || (body.turns ?? null) !== null;
    return { case: row, warnings: expectationsChanged ? await caseWarnings(deps, suite, row) : [] };
  };
}

export type EditCase = ReturnType<typeof editCase>;
