import type { SuiteStore } from '../ports/suiteStore.js';
import { suiteServersToCheck } from '../access/suite.js';
import { notFound, refused } from '../failures.js';
import type { McpOperations } from '../mcp/index.js';
import { caseShapeIssues, turnsExpectedToolCalls } from './caseShape.js';
import { checkExpectedTools, type UnknownToolWarning } from './expectedTools.js';
import type { Case, CaseChanges } from './case.js';
import type { Suite } from './suite.js';

// Stryker disable all: not mutated, they only call storage or the MCP servers (lockSuiteForCases,
// refuseDuplicateCase, caseWarnings; test/integration/use-cases/suites-cases.test.ts covers them); turnChanges is pure
/**
 * The suite locked for case writes (404 if deleted meanwhile): writes to one suite's cases happen one at a time.
 * `suites` is a transaction's store (SuiteStore.transaction): the lock holds until it ends.
 */
export async function lockSuiteForCases(suites: Pick<SuiteStore, 'lockLive'>, suite: Suite): Promise<void> {
  if (!(await suites.lockLive(suite.id))) throw notFound('eval suite', { suiteId: suite.id });
}

/** Cases are identified within a suite by title + prompt: a second case with both equal is refused. */
export async function refuseDuplicateCase(
  suites: Pick<SuiteStore, 'findCaseByIdentity'>,
  suiteId: string,
  identity: { title: string; query: string },
  exceptId?: string,
): Promise<void> {
  const other = await suites.findCaseByIdentity(suiteId, identity, exceptId);
  if (!other) return;
  throw refused(
    `case ${other.id} of this suite already has this title and prompt; cases are identified by title + prompt within a suite: change one of them, or edit ${other.id}`,
    { reason: 'DUPLICATE_CASE', caseId: other.id },
  );
}

// Stryker restore all
/**
 * An edit checked against the case it changes (turns, query, expectations and output check must agree as on
 * creation: caseShapeIssues); with turns, the stored query becomes the first prompt and expectedToolCalls every
 * turn's.
 */
export function turnChanges(current: Case, body: CaseChanges): CaseChanges {
  const pick = <K extends keyof CaseChanges & keyof Case>(key: K) =>
    (body[key] !== undefined ? body[key] : current[key]) as never;
  const merged = {
    query: body.query ?? null,
    expectedToolCalls: body.expectedToolCalls ?? null,
    expectedOutput: pick('expectedOutput'),
    outputCheck: pick('outputCheck'),
    turns: pick('turns'),
  } as Parameters<typeof caseShapeIssues>[0];
  const issues = caseShapeIssues(merged, 'prompt');
  const first = issues[0];
  if (first)
    throw refused(`body.${first.path.join('.')}: ${first.message}`, {
      issues: issues.map((i) => ({ path: ['body', ...i.path].join('.'), message: i.message })),
    });
  if (!merged.turns) return body;
  return { ...body, query: merged.turns[0].prompt, expectedToolCalls: turnsExpectedToolCalls(merged.turns) };
}

// Stryker disable all: reads the suite's servers (see above)
/** Expected tools of the case the suite's servers do not list: a warning, never a refusal. */
export async function caseWarnings(
  deps: { suites: Pick<SuiteStore, 'sealedServers'>; mcp: McpOperations },
  suite: Suite,
  row: Case,
): Promise<UnknownToolWarning[]> {
  return await checkExpectedTools(deps.mcp, await suiteServersToCheck(deps.suites, suite), [
    { title: row.title, expectedToolCalls: row.expectedToolCalls },
  ]);
}
