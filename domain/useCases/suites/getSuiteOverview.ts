import type { PageCursors } from '../../ports/pageCursors.js';
import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireVisibleProject } from '../../access/visibleProject.js';
import { requireSuiteDetail, type SuiteDetail } from '../../access/suite.js';
import type { Principal } from '../../principal.js';
import type { Progress, Run } from '../../evals/run.js';

export interface SuiteOverview {
  detail: SuiteDetail;
  /** newest first */
  runs: { run: Run; progress: Progress }[];
  /** a page of the suite's cases, oldest first, each with its pass rate in each of `runs`, oldest run first */
  cases: { id: string; title: string; history: { runId: string; passRate: number | null }[] }[];
  casesNextCursor?: string;
}

/**
 * A suite at a glance: its detail, its recent runs and a page of its cases with their pass rate across those runs.
 * A fixed number of statements, whatever the number of runs, and a bounded answer, whatever the number of cases.
 */
export function getSuiteOverview(deps: { suites: SuiteStore; cursors: PageCursors }) {
  return async function getSuiteOverview(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    /** runs, newest first */
    limit: number;
    casesLimit: number;
    /** a casesNextCursor of this suite's overview */
    casesCursor?: string;
  }): Promise<SuiteOverview> {
    const { suites, cursors } = deps;
    const project = await requireVisibleProject(suites, input.principal, input.projectId);
    // The detail is read first: it is the 404 for a suite that is not the project's (or deleted).
    const detail = await requireSuiteDetail(suites, project.id, input.suiteId);
    const suiteId = detail.suite.id;
    const scope = `overview-cases:${suiteId}`;
    const after = input.casesCursor === undefined ? undefined : cursors.decode<string>(scope, input.casesCursor);
    const [runs, headings] = await Promise.all([
      suites.runs(suiteId, input.limit),
      suites.caseHeadings(suiteId, after, input.casesLimit + 1),
    ]);
    const cases = headings.slice(0, input.casesLimit);
    const runIds = runs.map((r) => r.id);
    const [progress, tallies] = await Promise.all([
      suites.progressOf(runIds),
      suites.caseRunTallies(
        runIds,
        cases.map((c) => c.id),
      ),
    ]);
    const tally = new Map(tallies.map((t) => [`${t.caseId}\u0000${t.runId}`, t]));
    const oldestFirst = runIds.toReversed();
    return {
      detail,
      runs: runs.map((run) => ({ run, progress: progress.get(run.id)! })),
      cases: cases.map((c) => ({
        id: c.id,
        title: c.title,
        history: oldestFirst.map((runId) => {
          const t = tally.get(`${c.id}\u0000${runId}`);
          return { runId, passRate: t && t.finished > 0 ? t.passed / t.finished : null };
        }),
      })),
      ...(headings.length > input.casesLimit ? { casesNextCursor: cursors.encode(scope, cases.at(-1)!.id) } : {}),
    };
  };
}

export type GetSuiteOverview = ReturnType<typeof getSuiteOverview>;
