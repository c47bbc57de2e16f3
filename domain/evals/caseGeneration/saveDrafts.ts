import { OperationFailure } from '../../failures.js';
import { checkSuiteCases } from '../../limits.js';
import type { CaseDraft, SkippedDraft } from './drafts.js';
import type { Case } from '../case.js';
import type { SuiteStore } from '../../ports/suiteStore.js';

/** The model and provider saved with every generated case (none: the case runs on the suite's default model). */
export interface GeneratedCaseModel {
  model?: string;
  provider?: string;
}

/**
 * Saves the checked drafts as cases of the suite, in one transaction holding the suite's lock. A draft whose
 * title and query (the case identity) a case of the suite already has is skipped, never written over the case.
 * Past the cases a suite may hold, the whole batch is refused (TOO_MANY_CASES) and nothing is written.
 */
export async function saveDrafts(
  suites: SuiteStore,
  suiteId: string,
  drafts: readonly CaseDraft[],
  caseModel: GeneratedCaseModel,
): Promise<{ created: Case[]; skipped: SkippedDraft[] }> {
  return await suites.transaction(async (tx) => {
    // A suite deleted while its cases were being drafted gets none.
    if (!(await tx.lockLive(suiteId)))
      throw new OperationFailure('NOT_FOUND', `eval suite ${suiteId} not found`, { suiteId });
    const cases = await tx.lockCases(suiteId);
    const existing = new Set((await tx.cases(suiteId)).map((c) => `${c.title}\u0000${c.query}`));
    const skipped: SkippedDraft[] = [];
    const fresh = drafts.filter((d) => {
      if (!existing.has(`${d.title}\u0000${d.query}`)) return true;
      skipped.push({ title: d.title, error: 'the suite already has a case with this title and query' });
      return false;
    });
    checkSuiteCases(suiteId, cases, fresh.length);
    const upsert = await tx.upsertCases(
      suiteId,
      fresh.map((d) => ({
        title: d.title,
        query: d.query,
        runs: 1,
        isNegativeTest: d.isNegative,
        expectedToolCalls: d.expectedToolCalls,
        ...caseModel,
      })),
    );
    skipped.push(...upsert.failed.map((f) => ({ title: f.name, error: f.error })));
    const ids = new Set(upsert.committed.map((c) => c.id));
    const created = (await tx.cases(suiteId)).filter((c) => ids.has(c.id));
    return { created, skipped };
  });
}
